import Foundation
import StorageCore
import SystemPackage

/// A source of `put`, opened: a regular file (its descriptor, absolute path and identity), or
/// stdin's bytes (in memory, or spooled to an unnamed temporary file when large).
final class PutSource: Sendable {
  /// The descriptor the bytes are read from (`pread`), or -1 for bytes in memory.
  let descriptor: Int32
  /// The bytes of a small stdin.
  let bytes: [UInt8]?
  /// The absolute path, for a named file (checkpoints are kept for these only).
  let path: String?
  /// Size and modification time.
  let identity: SourceIdentity
  /// The name to record and to detect the content type from.
  let fileName: String?

  deinit { if descriptor >= 0 { _ = close(descriptor) } }

  private init(
    descriptor: Int32, bytes: [UInt8]?, path: String?, identity: SourceIdentity, fileName: String?
  ) {
    self.descriptor = descriptor
    self.bytes = bytes
    self.path = path
    self.identity = identity
    self.fileName = fileName
  }

  /// The absolute path of `source` and the identity of the regular file there.
  static func identity(of source: String) throws(StorageError) -> (
    path: String, identity: SourceIdentity
  ) {
    let absolute = absolutePath(source)
    var status = stat()
    guard stat(source, &status) == 0 else {
      throw StorageError(
        errno == ENOENT ? .notFound : .localIO,
        "cannot read \(DisplayText(quoting: source)): \(Errno(rawValue: errno))")
    }
    return (absolute, try checkedIdentity(status, source))
  }

  /// `source` from the root: as given when it starts with `/`, else under the current directory.
  private static func absolutePath(_ source: String) -> String {
    source.utf8.first == UInt8(ascii: "/")
      ? source : FileManager.default.currentDirectoryPath + "/" + source
  }

  private static func checkedIdentity(_ status: stat, _ source: String) throws(StorageError)
    -> SourceIdentity
  {
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw StorageError(
        .invalidInput, "\(DisplayText(quoting: source)) is not a regular file; it was skipped")
    }
    return SourceIdentity(
      size: Int64(status.st_size),
      modifiedNanoseconds: Int64(status.st_mtim.tv_sec) * 1_000_000_000
        + Int64(status.st_mtim.tv_nsec))
  }

  /// Opens the file `source` (a regular file; a link to one is followed, as the user named it,
  /// unless `noFollow`: then a link is refused, as a tree's walk found none there).
  static func file(_ source: String, noFollow: Bool = false) throws(StorageError) -> PutSource {
    let descriptor = open(source, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0))
    guard descriptor >= 0 else {
      if noFollow && errno == ELOOP {
        throw StorageError(
          .invalidInput,
          "\(DisplayText(quoting: source)) became a symbolic link while the folder was read; it was not followed"
        )
      }
      throw StorageError(
        errno == ENOENT ? .notFound : .localIO,
        "cannot open \(DisplayText(quoting: source)): \(Errno(rawValue: errno))")
    }
    var status = stat()
    let identity: SourceIdentity
    do throws(StorageError) {
      guard fstat(descriptor, &status) == 0 else {
        throw StorageError(
          .localIO, "cannot read \(DisplayText(quoting: source)): \(Errno(rawValue: errno))")
      }
      identity = try checkedIdentity(status, source)
    } catch {
      _ = close(descriptor)
      throw error
    }
    let absolute = absolutePath(source)
    return PutSource(
      descriptor: descriptor, bytes: nil, path: absolute, identity: identity,
      fileName: String(KeySegments.lastSegment(of: source)))
  }

  /// Reads stdin (`input`): in memory up to `threshold` bytes, else into an unnamed temporary
  /// file in `temporaryDirectory` (`O_TMPFILE`: nothing to clean up, nothing another process
  /// can open).
  static func standardInput(_ input: Int32, threshold: Int64, temporaryDirectory: String)
    throws(StorageError) -> PutSource
  {
    var held: [UInt8] = []
    var spool: Int32 = -1
    var total: Int64 = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    func fail(_ what: String) -> StorageError {
      if spool >= 0 { _ = close(spool) }
      return StorageError(.localIO, "cannot \(what): \(Errno(rawValue: errno))")
    }
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw fail("read stdin")
      }
      if count == 0 { break }
      total += Int64(count)
      if spool < 0 && total > threshold {
        spool = open(temporaryDirectory, temporaryFileFlag | O_RDWR | O_CLOEXEC, 0o600)
        guard spool >= 0 else { throw fail("make a temporary file for stdin") }
        guard FileDescriptorWriter.writeAll(held, to: spool) == nil else {
          throw fail("write a temporary file for stdin")
        }
        held = []
      }
      if spool >= 0 {
        guard FileDescriptorWriter.writeAll(Array(chunk[0..<count]), to: spool) == nil else {
          throw fail("write a temporary file for stdin")
        }
      } else {
        held += chunk[0..<count]
      }
    }
    let identity = SourceIdentity(size: total, modifiedNanoseconds: 0)
    return PutSource(
      descriptor: spool, bytes: spool < 0 ? held : nil, path: nil, identity: identity,
      fileName: nil)
  }

  /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; the C macro is not imported).
  private static let temporaryFileFlag = Int32(0o20_000_000) | O_DIRECTORY

  /// Throws when the file is no longer what was opened (its size or modification time changed
  /// while it was read): the object made from it may hold neither version.
  func checkUnchanged(_ source: String) throws(StorageError) {
    guard descriptor >= 0, path != nil else { return }
    var status = stat()
    guard fstat(descriptor, &status) == 0,
      let now = try? Self.checkedIdentity(status, source), now == identity
    else {
      throw StorageError(
        .localIO,
        "\(DisplayText(quoting: source)) changed while it was uploaded; the object made from it may hold neither version: put it again"
      )
    }
  }

  /// The whole content, for a single-request upload: the bytes in memory, or the file read
  /// with `pread` (which must still be its size).
  func content() throws(StorageError) -> [UInt8] {
    if let bytes { return bytes }
    return try read(0..<identity.size)
  }

  /// The bytes in `range` of the file.
  func read(_ range: Range<Int64>) throws(StorageError) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: Int(range.count))
    var done = 0
    while done < buffer.count {
      let count = buffer[done...].withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, $0.count, off_t(range.lowerBound) + off_t(done))
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw StorageError(.localIO, "cannot read the file: \(Errno(rawValue: errno))")
      }
      if count == 0 {
        throw StorageError(.localIO, "the file got shorter while it was read")
      }
      done += count
    }
    return buffer
  }
}
