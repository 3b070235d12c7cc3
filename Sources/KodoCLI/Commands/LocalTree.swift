import StorageCore
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The regular files under a local directory, for `put -r` (and `sync`'s upload side): walked
/// through directory descriptors (`openat` with `O_NOFOLLOW`, `fstatat` without following), each
/// directory's names in byte order, so the same tree always gives the same order.
///
/// A symbolic link is reported and skipped unless links are followed (then a link back to a
/// directory on the current path is reported and skipped: no loop); devices, FIFOs and sockets
/// are reported and skipped; a name that is not valid UTF-8 cannot become a key and is reported
/// as a failure (a directory with such a name, with everything under it).
struct LocalTree: Sequence {
  /// One thing the walk met.
  enum Item {
    /// A regular file.
    case file(File)
    /// Skipped, not a failure (a link, a special file): what to tell the user.
    case skipped(DisplayText)
    /// A failure (a name that is not UTF-8, a directory that cannot be read).
    case failed(StorageError)
  }

  /// A regular file the walk met: its name (`keyPrefix`, then its path relative to the root,
  /// `/`-separated) and its size as the walk found it. Its path is made when asked: a run that
  /// settles the file by its name and size never needs it.
  struct File {
    /// The root as the walk's paths start (without trailing slashes, `/` itself excepted).
    let root: String
    /// `keyPrefix` followed by the path relative to the root.
    let key: String
    /// How many bytes of `key` are `keyPrefix`.
    let prefixCount: Int
    let size: Int64

    /// The path relative to the root, `/`-separated.
    var relative: String {
      prefixCount == 0 ? key : String(decoding: key.utf8.dropFirst(prefixCount), as: UTF8.self)
    }

    /// The path the walk reached: the root, `/`, the relative path.
    var path: String { Self.path(root: root, relative: relative) }

    /// The path of the file at `relative` under `root` (as the walk reached it).
    static func path(root: String, relative: String) -> String {
      root + "/" + relative
    }
  }

  let root: String
  let followLinks: Bool
  /// Put before each file's relative path in its `File.key`.
  var keyPrefix = ""

  func makeIterator() -> Iterator {
    Iterator(root: root, followLinks: followLinks, keyPrefix: keyPrefix)
  }

  /// The walk's state: a stack of open directories, each with its names still to visit.
  final class Iterator: IteratorProtocol {
    /// A reference: visiting a name holds it once (not each of its arrays and strings).
    private final class Level {
      let descriptor: Int32
      /// `root/...` as text, for messages and for the paths below it.
      let path: String
      /// The key prefix, then the path relative to the root, `/`-separated, ending in `/`
      /// (the key prefix alone for the root).
      let key: String
      /// The directory's device and inode, to refuse a followed link back to it.
      let identity: FileIdentity
      /// The directory's names, each followed by a NUL, one after the other.
      let names: [UInt8]
      /// Where each name starts in `names` and how long it is; popped from the end.
      var order: [Range<Int>]

      init(
        descriptor: Int32, path: String, key: String, identity: FileIdentity, names: [UInt8],
        order: [Range<Int>]
      ) {
        self.descriptor = descriptor
        self.path = path
        self.key = key
        self.identity = identity
        self.names = names
        self.order = order
      }
    }

    private struct FileIdentity: Equatable {
      var device: UInt64
      var inode: UInt64
    }

    private let followLinks: Bool
    private let root: String
    private let prefixCount: Int
    private var stack: [Level] = []
    private var pending: [Item] = []

    init(root: String, followLinks: Bool, keyPrefix: String = "") {
      self.followLinks = followLinks
      prefixCount = keyPrefix.utf8.count
      // `dir/` and `dir` give the same paths (not `dir//a`); `/` stays itself.
      var bytes = Array(root.utf8)
      while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
      let trimmed = String(decoding: bytes, as: UTF8.self)
      self.root = trimmed
      let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard descriptor >= 0 else {
        pending.append(
          .failed(
            StorageError(
              errno == ENOENT ? .notFound : .localIO,
              "cannot read the directory \(DisplayText(quoting: root)): \(Errno(rawValue: errno))"
            )))
        return
      }
      enter(descriptor, path: trimmed, key: keyPrefix)
    }

    deinit {
      for level in stack { _ = close(level.descriptor) }
    }

    func next() -> Item? {
      while true {
        if !pending.isEmpty { return pending.removeFirst() }
        guard let level = stack.last else { return nil }
        guard let name = level.order.popLast() else {
          _ = close(level.descriptor)
          stack.removeLast()
          continue
        }
        let item = level.names.withUnsafeBufferPointer { names in
          visit(UnsafeBufferPointer(rebasing: names[name]), in: level)
        }
        if let item { return item }
      }
    }

    /// What `name` (followed by a NUL) in `level` is: a file to upload, a directory entered,
    /// or a report.
    private func visit(_ name: UnsafeBufferPointer<UInt8>, in level: Level) -> Item? {
      guard let text = String(validating: name, as: UTF8.self) else {
        let escaped = DisplayText(
          quotingBytes: Array(level.path.utf8) + [UInt8(ascii: "/")] + Array(name))
        return .failed(
          StorageError(
            .invalidInput,
            "\(escaped) was not uploaded: its name is not valid UTF-8, and keys are UTF-8"))
      }
      var status = stat()
      let flags = followLinks ? 0 : AT_SYMLINK_NOFOLLOW
      // The name's bytes up to the NUL that follows them in `names` (readdir ends names there).
      let looked = name.withMemoryRebound(to: CChar.self) { characters in
        characters.baseAddress.map { fstatat(level.descriptor, $0, &status, flags) } ?? -1
      }
      guard looked == 0 else {
        let failure = Errno(rawValue: errno)
        let shown = level.path + "/" + text
        if followLinks, failure == .noSuchFileOrDirectory {
          return .skipped("skipped \(DisplayText(quoting: shown)): a link to nothing")
        }
        return .failed(
          StorageError(.localIO, "cannot read \(DisplayText(quoting: shown)): \(failure)"))
      }
      switch status.st_mode & S_IFMT {
      case S_IFREG:
        // No path here: `File.path` makes it from the root and the relative path, the same text.
        return .file(
          File(
            root: root, key: level.key + text, prefixCount: prefixCount,
            size: Int64(status.st_size)))
      case S_IFDIR:
        let shown = level.path + "/" + text
        let identity = FileIdentity(
          device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        if stack.contains(where: { $0.identity == identity }) {
          return .skipped(
            "skipped \(DisplayText(quoting: shown)): a link to a folder it is inside of")
        }
        let open = followLinks ? 0 : O_NOFOLLOW
        let descriptor = openat(level.descriptor, text, O_RDONLY | O_DIRECTORY | O_CLOEXEC | open)
        guard descriptor >= 0 else {
          return .failed(
            StorageError(
              .localIO,
              "cannot read the directory \(DisplayText(quoting: shown)): \(Errno(rawValue: errno))"
            ))
        }
        enter(descriptor, path: shown, key: level.key + text + "/")
        return nil
      case S_IFLNK:
        return .skipped(
          "skipped \(DisplayText(quoting: level.path + "/" + text)): a symbolic link (--follow-symlinks follows it)"
        )
      default:
        return .skipped(
          "skipped \(DisplayText(quoting: level.path + "/" + text)): not a regular file (a device, FIFO or socket)"
        )
      }
    }

    /// Whether `lhs` sorts before `rhs` byte by byte (a prefix first), with `memcmp`.
    static func bytesPrecede(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>)
      -> Bool
    {
      let common = Swift.min(lhs.count, rhs.count)
      guard common > 0, let a = lhs.baseAddress, let b = rhs.baseAddress else {
        return lhs.count < rhs.count
      }
      let order = memcmp(a, b, common)
      return order != 0 ? order < 0 : lhs.count < rhs.count
    }

    /// Reads the names of the directory open at `descriptor` and puts it on the stack.
    private func enter(_ descriptor: Int32, path: String, key: String) {
      var status = stat()
      guard fstat(descriptor, &status) == 0, let directory = fdopendir(descriptor) else {
        pending.append(
          .failed(
            StorageError(
              .localIO,
              "cannot read the directory \(DisplayText(quoting: path)): \(Errno(rawValue: errno))")
          ))
        _ = close(descriptor)
        return
      }
      // Every name in one buffer (not an array each), each followed by its NUL.
      var names: [UInt8] = []
      var order: [Range<Int>] = []
      errno = 0
      while let entry = readdir(directory) {
        // The name read in place (not a copy of the whole `d_name` field), up to its NUL.
        withUnsafeMutablePointer(to: &entry.pointee.d_name) { field in
          field.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { characters in
            let bytes = UnsafeRawBufferPointer(start: characters, count: strlen(characters))
            guard !(bytes.elementsEqual(Self.dot) || bytes.elementsEqual(Self.dotDot)) else {
              return
            }
            order.append(names.count..<names.count + bytes.count)
            names.append(contentsOf: bytes)
            names.append(0)
          }
        }
      }
      // The stream owns the descriptor: a duplicate stays open for the walk below it.
      let kept = Descriptors.duplicate(descriptor)
      closedir(directory)
      guard kept >= 0 else {
        pending.append(
          .failed(
            StorageError(
              .localIO,
              "cannot read the directory \(DisplayText(quoting: path)): \(Errno(rawValue: errno))")
          ))
        return
      }
      // Popped from the end: sorted in reverse, visited in byte order.
      names.withUnsafeBufferPointer { buffer in
        order.sort {
          Self.bytesPrecede(
            UnsafeBufferPointer(rebasing: buffer[$1]), UnsafeBufferPointer(rebasing: buffer[$0]))
        }
      }
      stack.append(
        Level(
          descriptor: kept, path: path, key: key,
          identity: FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)),
          names: names, order: order))
    }

    private static let dot = [UInt8(ascii: ".")]
    private static let dotDot = [UInt8(ascii: "."), UInt8(ascii: ".")]
  }
}
