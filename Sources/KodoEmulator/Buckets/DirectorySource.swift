import KodoCore
import NIOCore
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
    var path: String
    var size: Int64
    var putTime: Int64
    var mimeType: String
  }

  private let entries: [Entry]
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
    var entries = [Entry]()
    try Self.walk(directory: root, keyPrefix: "", into: &entries, isRoot: true)
    entries.sort { ByteOrder.compare($0.key, $1.key) < 0 }
    self.entries = entries
    hashes = Mutex([String?](repeating: nil, count: entries.count))
  }

  var count: Int { entries.count }

  func key(at index: Int) -> [UInt8] { entries[index].key }

  func metadata(at index: Int) -> ObjectMetadata {
    let entry = entries[index]
    return ObjectMetadata(
      fsize: entry.size, hash: hash(at: index), mimeType: entry.mimeType,
      putTime: entry.putTime)
  }

  var readsFiles: Bool { true }

  func body(at index: Int) -> ObjectBody? {
    let path = entries[index].path
    // Checked now, so that a file replaced by a link, a FIFO or a directory since the scan gets
    // an error answer instead of a head promising bytes that never come.
    guard (try? ServedFile(path: path)) != nil else { return nil }
    return ObjectBody(length: entries[index].size, readsFiles: true) { offset, count, buffer in
      do {
        let file = try ServedFile(path: path)
        try file.read(at: offset, count: count, into: &buffer)
      } catch {
        throw EmulatorError.unreadableFile(path)
      }
    }
  }

  private func hash(at index: Int) -> String {
    if let cached = hashes.withLock({ $0[index] }) { return cached }
    // A file that vanished or changed kind after the scan has no content to hash: report an
    // empty hash rather than invent one (its download fails too), and try again next time.
    guard let computed = Self.hash(fileAt: entries[index].path) else { return "" }
    hashes.withLock { $0[index] = computed }
    return computed
  }

  /// The qetag of a served file, read one 4 MiB block at a time.
  private static func hash(fileAt path: String) -> String? {
    var digests = [[UInt8]]()
    do {
      let file = try ServedFile(path: path)
      try file.forEachBlock(of: QETag.blockSize) { digests.append(Digest.sha1($0)) }
    } catch {
      return nil
    }
    return QETag.hash(blockDigests: digests)
  }

  private static func walk(
    directory: String, keyPrefix: String, into entries: inout [Entry], isRoot: Bool
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
      let path = KeySegments.endsWithSlash(directory) ? directory + name : directory + "/" + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      let kind = info.st_mode & S_IFMT
      if kind == S_IFDIR {
        try walk(directory: path, keyPrefix: keyPrefix + name + "/", into: &entries, isRoot: false)
      } else if kind == S_IFREG {
        let key = keyPrefix + name
        let time = modificationTime(info)
        entries.append(
          Entry(
            key: Array(key.utf8), path: path, size: Int64(info.st_size),
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
