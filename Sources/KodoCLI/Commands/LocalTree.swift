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
    /// A regular file: its path (as the walk reached it), its path relative to the root,
    /// `/`-separated, and its size when the walk looked.
    case file(path: String, relative: String, size: Int64)
    /// Skipped, not a failure (a link, a special file): what to tell the user.
    case skipped(DisplayText)
    /// A failure (a name that is not UTF-8, a directory that cannot be read).
    case failed(StorageError)
  }

  let root: String
  let followLinks: Bool

  func makeIterator() -> Iterator { Iterator(root: root, followLinks: followLinks) }

  /// The walk's state: a stack of open directories, each with its names still to visit.
  final class Iterator: IteratorProtocol {
    private struct Level {
      let descriptor: Int32
      /// `root/...` as text, for messages and for the files' paths.
      let path: String
      /// Relative to the root, `/`-separated, ending in `/` (empty for the root).
      let relative: String
      /// The directory's device and inode, to refuse a followed link back to it.
      let identity: FileIdentity
      var names: [[UInt8]]
    }

    private struct FileIdentity: Equatable {
      var device: UInt64
      var inode: UInt64
    }

    private let followLinks: Bool
    private var stack: [Level] = []
    private var pending: [Item] = []

    init(root: String, followLinks: Bool) {
      self.followLinks = followLinks
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
      // `dir/` and `dir` give the same paths (not `dir//a`); `/` stays itself.
      var bytes = Array(root.utf8)
      while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
      let trimmed = String(decoding: bytes, as: UTF8.self)
      enter(descriptor, path: trimmed, relative: "")
    }

    deinit {
      for level in stack { _ = close(level.descriptor) }
    }

    func next() -> Item? {
      while true {
        if !pending.isEmpty { return pending.removeFirst() }
        guard var level = stack.popLast() else { return nil }
        guard let name = level.names.popLast() else {
          _ = close(level.descriptor)
          continue
        }
        stack.append(level)
        if let item = visit(name, in: level) { return item }
      }
    }

    /// What `name` in `level` is: a file to upload, a directory entered, or a report.
    private func visit(_ name: [UInt8], in level: Level) -> Item? {
      guard let text = String(validating: name, as: UTF8.self) else {
        let escaped = DisplayText(quotingBytes: Array(level.path.utf8) + [UInt8(ascii: "/")] + name)
        return .failed(
          StorageError(
            .invalidInput,
            "\(escaped) was not uploaded: its name is not valid UTF-8, and keys are UTF-8"))
      }
      // The path the walk reached: the file's to upload, and the one messages show.
      let shown = level.path + "/" + text
      var status = stat()
      let flags = followLinks ? 0 : AT_SYMLINK_NOFOLLOW
      // A valid UTF-8 name has no NUL (readdir ends names there): the String is the name's bytes.
      guard fstatat(level.descriptor, text, &status, flags) == 0 else {
        let failure = Errno(rawValue: errno)
        if followLinks, failure == .noSuchFileOrDirectory {
          return .skipped("skipped \(DisplayText(quoting: shown)): a link to nothing")
        }
        return .failed(
          StorageError(.localIO, "cannot read \(DisplayText(quoting: shown)): \(failure)"))
      }
      switch status.st_mode & S_IFMT {
      case S_IFREG:
        return .file(path: shown, relative: level.relative + text, size: Int64(status.st_size))
      case S_IFDIR:
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
        enter(descriptor, path: shown, relative: level.relative + text + "/")
        return nil
      case S_IFLNK:
        return .skipped(
          "skipped \(DisplayText(quoting: shown)): a symbolic link (--follow-symlinks follows it)")
      default:
        return .skipped(
          "skipped \(DisplayText(quoting: shown)): not a regular file (a device, FIFO or socket)")
      }
    }

    private static let dot = [UInt8(ascii: ".")]
    private static let dotDot = [UInt8(ascii: "."), UInt8(ascii: ".")]

    /// Whether `lhs` sorts before `rhs` byte by byte (a prefix first), with `memcmp`.
    static func bytesPrecede(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
      lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in
          let common = Swift.min(left.count, right.count)
          guard common > 0, let a = left.baseAddress, let b = right.baseAddress else {
            return left.count < right.count
          }
          let order = memcmp(a, b, common)
          return order != 0 ? order < 0 : left.count < right.count
        }
      }
    }

    /// Reads the names of the directory open at `descriptor` and puts it on the stack.
    private func enter(_ descriptor: Int32, path: String, relative: String) {
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
      var names: [[UInt8]] = []
      errno = 0
      while let entry = readdir(directory) {
        // The name read in place (not a copy of the whole `d_name` field), up to its NUL.
        let name = withUnsafeMutablePointer(to: &entry.pointee.d_name) { field in
          field.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { characters in
            let bytes = UnsafeRawBufferPointer(start: characters, count: strlen(characters))
            return bytes.elementsEqual(Self.dot) || bytes.elementsEqual(Self.dotDot)
              ? nil : Array(bytes)
          }
        }
        if let name { names.append(name) }
      }
      // The stream owns the descriptor: a duplicate stays open for the walk below it.
      let kept = dup(descriptor)
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
      names.sort { Self.bytesPrecede($1, $0) }
      stack.append(
        Level(
          descriptor: kept, path: path, relative: relative,
          identity: FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)),
          names: names))
    }
  }
}
