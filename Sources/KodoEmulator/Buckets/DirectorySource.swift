import KodoCore
import NIOCore
import OSSCore
import StorageCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A bucket served from a local directory, read-only.
///
/// The tree is scanned once at start-up: regular files become objects (key = path relative to
/// the directory, `/`-separated), symbolic links are never followed, and names that are not UTF-8
/// are skipped. Hashes are computed on first use and cached, so starting on a big tree is fast.
final class DirectorySource: ObjectSource {
  private struct Entry: Sendable {
    var key: [UInt8]
    /// The path below the root, one name a folder.
    var components: [String]
    var size: Int64
    var putTime: Int64
    var mimeType: String
  }

  private let entries: [Entry]
  /// The root, opened once: every file is reached from it without following links.
  private let root: DirectoryHandle
  private let rootPath: String
  private let hashes: Mutex<[String?]>
  /// The directory's own modification time, Unix seconds (the bucket's `ctime`).
  let modificationSeconds: Int64

  /// Scans `root`.
  ///
  /// - Throws: `EmulatorError.directoryNotFound` / `.notADirectory` / `.unreadableDirectory`.
  init(root: String) throws(EmulatorError) {
    var info = stat()
    guard stat(root, &info) == 0 else { throw .directoryNotFound(root) }
    guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(root) }
    modificationSeconds = Int64(Self.modificationTime(info).seconds)
    guard let handle = DirectoryHandle(path: root) else { throw .unreadableDirectory(root) }
    self.root = handle
    rootPath = root
    var entries = [Entry]()
    try Self.walk(directory: root, components: [], into: &entries, isRoot: true)
    entries.sort { ByteOrder.compare($0.key, $1.key) < 0 }
    self.entries = entries
    hashes = Mutex([String?](repeating: nil, count: entries.count))
  }

  var count: Int { entries.count }

  /// The root, opened at start-up.
  var rootHandle: DirectoryHandle { root }

  /// What the scan found at `index`: the path below the root, the size, and the modification
  /// time (100 ns units), for a `--writable` bucket's store.
  func scanned(at index: Int) -> (components: [String], size: Int64, modified: Int64) {
    (entries[index].components, entries[index].size, entries[index].putTime)
  }

  /// The qetag and CRC-64 of the file at `index`, read once; `nil` when it cannot be read.
  func digests(at index: Int) -> (hash: String, crc64: UInt64)? {
    var digests = [[UInt8]]()
    var crc = CRC64()
    do {
      let file = try ServedFile(in: root, at: entries[index].components)
      try file.forEachBlock(of: QETag.blockSize) { block in
        digests.append(Digest.sha1(block))
        crc.update(block)
      }
    } catch {
      return nil
    }
    return (QETag.hash(blockDigests: digests), crc.value)
  }

  func key(at index: Int) -> [UInt8] { entries[index].key }

  func metadata(at index: Int) -> ObjectMetadata {
    let entry = entries[index]
    return ObjectMetadata(
      fsize: entry.size, hash: hash(at: index), mimeType: entry.mimeType,
      putTime: entry.putTime)
  }

  var readsFiles: Bool { true }

  func body(at index: Int) -> ObjectBody? {
    let components = entries[index].components
    let root = self.root
    // Checked now, so that a file (or a folder on its way) replaced by a link, a FIFO or a
    // directory since the scan gets an error answer instead of a head promising bytes that
    // never come.
    guard (try? ServedFile(in: root, at: components)) != nil else { return nil }
    let path = rootPath + "/" + components.joined(separator: "/")
    return ObjectBody(length: entries[index].size, readsFiles: true) { offset, count, buffer in
      do {
        let file = try ServedFile(in: root, at: components)
        try file.read(at: offset, count: count, into: &buffer)
      } catch {
        throw EmulatorError.unreadableFile(path)
      }
    }
  }

  private func hash(at index: Int) -> String {
    if let cached = hashes.withLock({ $0[index] }) { return cached }
    // A file that vanished or changed kind after the scan, or that is reached only through a
    // link now, has no content to hash: report an empty hash rather than invent one (its
    // download fails too), remember nothing, and try again next time.
    guard let computed = Self.hash(in: root, at: entries[index].components) else { return "" }
    hashes.withLock { $0[index] = computed }
    return computed
  }

  /// The qetag of a served file, read one 4 MiB block at a time.
  private static func hash(in root: DirectoryHandle, at components: [String]) -> String? {
    var digests = [[UInt8]]()
    do {
      let file = try ServedFile(in: root, at: components)
      try file.forEachBlock(of: QETag.blockSize) { digests.append(Digest.sha1($0)) }
    } catch {
      return nil
    }
    return QETag.hash(blockDigests: digests)
  }

  private static func walk(
    directory: String, components: [String], into entries: inout [Entry], isRoot: Bool
  ) throws(EmulatorError) {
    guard let stream = opendir(directory) else {
      if isRoot { throw .unreadableDirectory(directory) }
      return  // an unreadable subdirectory is skipped, as a sync tool would
    }
    defer { closedir(stream) }
    while let record = readdir(stream) {
      let nameBytes = withUnsafeBytes(of: record.pointee.d_name) { raw in
        Array(raw.prefix(while: { $0 != 0 }))
      }
      if nameBytes == [UInt8(ascii: ".")] || nameBytes == [UInt8(ascii: "."), UInt8(ascii: ".")] {
        continue
      }
      guard let name = String(validating: nameBytes, as: UTF8.self) else { continue }
      // The emulator's own files (a `--writable` bucket's metadata) are not objects.
      if isRoot && name == WritableDirectory.stateFolder { continue }
      let path = KeySegments.endsWithSlash(directory) ? directory + name : directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      let kind = info.st_mode & S_IFMT
      if kind == S_IFDIR {
        try walk(directory: path, components: components + [name], into: &entries, isRoot: false)
      } else if kind == S_IFREG {
        let key = (components + [name]).joined(separator: "/")
        let time = modificationTime(info)
        entries.append(
          Entry(
            key: Array(key.utf8), components: components + [name], size: Int64(info.st_size),
            putTime: Int64(time.seconds) * 10_000_000 + Int64(time.nanoseconds) / 100,
            mimeType: MimeTypes.forKey(key)))
      }
      // Symbolic links, sockets, devices and FIFOs are not objects.
    }
  }

  private static func modificationTime(_ info: stat) -> (seconds: Int, nanoseconds: Int) {
    #if canImport(Darwin)
      return (Int(info.st_mtimespec.tv_sec), Int(info.st_mtimespec.tv_nsec))
    #else
      return (Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec))
    #endif
  }
}
