import Foundation
import StorageCore
import Synchronization
import SystemPackage

/// Where `get` writes: a file kodo creates itself, never one it finds.
///
/// The bytes go to a temporary file made in the destination's directory with
/// `O_CREAT|O_EXCL|O_NOFOLLOW` under a short random name (mode 0600), so no symlink or file
/// planted there can be written through, and a long destination name never makes the temporary
/// name too long. Only a complete, checked download is moved to the destination: without
/// `--force` by `link(2)`, which fails rather than replace anything that appeared meanwhile;
/// with it by `rename(2)`, which replaces a link itself, never its target. Every step after the
/// directory is opened (create, read back, link, rename, remove) is relative to its descriptor
/// (`openat`, `linkat`, `renameat`, `unlinkat`), never a path, so a folder swapped for a symbolic
/// link meanwhile cannot send the file elsewhere.
struct DownloadFile {
  /// The destination's path, for messages.
  let destination: FilePath
  /// The temporary file's path, for messages and the clean-up after a signal.
  let temporary: FilePath
  let descriptor: FileDescriptor
  /// The destination's directory.
  let parent: Int32
  /// Whether `parent` was opened here (and is closed with the file).
  let ownsParent: Bool
  /// The destination's and the temporary file's names in `parent`.
  let name: String
  let temporaryName: String

  /// The file name a key gives by default: its last path segment, when that can be one.
  static func defaultName(for key: String) -> String? {
    let last = KeySegments.lastSegment(of: key)
    guard !last.isEmpty, last != ".", last != "..", !last.utf8.contains(0)
    else { return nil }
    return String(last)
  }

  /// Whether anything (a file, a directory, a dangling symbolic link) is at `path`.
  static func exists(_ path: FilePath) -> Bool {
    (try? SystemPackage.Stat(path, followTargetSymlink: false)) != nil
  }

  /// Whether `path` is a character device or a FIFO (following a link to one): something to
  /// write into, never to replace (`-o /dev/null`).
  static func isStream(_ path: FilePath) -> Bool {
    guard let status = try? SystemPackage.Stat(path, followTargetSymlink: true) else {
      return false
    }
    return status.type == .characterSpecial || status.type == .fifo
  }

  /// Whether `path` is a directory (following a link to one).
  static func isDirectory(_ path: FilePath) -> Bool {
    guard let status = try? SystemPackage.Stat(path, followTargetSymlink: true) else {
      return false
    }
    return status.type == .directory
  }

  /// Makes the directory `path` and any missing parents, as `mkdir -p` does (a link the user
  /// named in the path is followed); a path that exists and is not a directory is an error.
  static func makeDirectories(_ path: FilePath) throws(StorageError) {
    if isDirectory(path) { return }
    var partial = path.root.map { FilePath(root: $0) } ?? FilePath()
    for component in path.components {
      partial.append(component)
      if isDirectory(partial) { continue }
      if mkdir(partial.string, 0o777) != 0 {
        let failure = Errno(rawValue: errno)
        if failure == .fileExists && isDirectory(partial) { continue }
        throw StorageError(
          failure == .fileExists ? .invalidInput : .localIO,
          failure == .fileExists
            ? "\(DisplayText.quoted(partial.string)) exists and is not a directory"
            : "cannot create the directory \(DisplayText.quoted(partial.string)): \(failure)")
      }
    }
  }

  /// Creates the temporary file for `destination`, in its directory opened by path (the path
  /// the user gave, links in it followed).
  static func create(for destination: FilePath) throws(StorageError) -> DownloadFile {
    var directory = destination.removingLastComponent()
    if directory.isEmpty { directory = "." }
    let parent = open(directory.string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard parent >= 0 else {
      throw StorageError(
        .localIO,
        "cannot open the directory \(DisplayText.quoted(directory.string)): \(Errno(rawValue: errno))"
      )
    }
    do {
      return try create(in: parent, owned: true, for: destination)
    } catch {
      _ = Glibc.close(parent)
      throw error
    }
  }

  /// Creates the temporary file for `destination` in the directory `parent` (whose descriptor
  /// the caller keeps open until the file is closed, unless `owned`).
  static func create(in parent: Int32, owned: Bool = false, for destination: FilePath)
    throws(StorageError) -> DownloadFile
  {
    var directory = destination.removingLastComponent()
    if directory.isEmpty { directory = "." }
    let name = destination.lastComponent?.string ?? ""
    for _ in 0..<16 {
      let temporaryName = ".kodo-" + randomName() + ".part"
      let raw = openat(
        parent, temporaryName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if raw < 0 {
        let failure = Errno(rawValue: errno)
        if failure == .fileExists { continue }
        throw StorageError(
          .localIO,
          "cannot create a temporary file in \(DisplayText.quoted(directory.string)): \(failure)")
      }
      let temporary = directory.appending(temporaryName)
      TemporaryFiles.register(temporary.string)
      return DownloadFile(
        destination: destination, temporary: temporary, descriptor: FileDescriptor(rawValue: raw),
        parent: parent, ownsParent: owned, name: name, temporaryName: temporaryName)
    }
    throw StorageError(
      .localIO,
      "cannot create a temporary file in \(DisplayText.quoted(directory.string)): every name tried was taken"
    )
  }

  /// Checks that the file holds exactly `size` bytes, flushes it to disk and gives it the mode a
  /// new file gets (the umask's).
  func finish(size: Int64?) throws(StorageError) {
    var status = stat()
    guard fstat(descriptor.rawValue, &status) == 0 else {
      throw StorageError(
        .localIO, "cannot read \(DisplayText.quoted(temporary.string)): \(Errno(rawValue: errno))")
    }
    if let size, Int64(status.st_size) != size {
      throw StorageError(
        .protocolError,
        "the downloaded file holds \(status.st_size) bytes where the object has \(size)")
    }
    guard fsync(descriptor.rawValue) == 0 else {
      throw StorageError(
        .localIO, "cannot write \(DisplayText.quoted(temporary.string)): \(Errno(rawValue: errno))")
    }
    let mask = umask(0o022)
    umask(mask)
    _ = fchmod(descriptor.rawValue, 0o666 & ~mask)
  }

  /// Moves the finished file to the destination.
  func commit(replacing: Bool) throws(StorageError) {
    if replacing {
      guard renameat(parent, temporaryName, parent, name) == 0 else {
        throw StorageError(
          .localIO,
          "cannot move the download to \(DisplayText.quoted(destination.string)): \(Errno(rawValue: errno))"
        )
      }
      return
    }
    if linkat(parent, temporaryName, parent, name, 0) == 0 {
      unlinkat(parent, temporaryName, 0)
      return
    }
    let failure = Errno(rawValue: errno)
    switch failure {
    case .fileExists:
      throw StorageError(
        .invalidInput,
        "\(DisplayText.quoted(destination.string)) appeared while downloading; pass --force to replace it"
      )
    case .notPermitted, .improperLink, .notSupported, .tooManyLinks:
      // The file system has no hard links: check, then rename.
      var status = stat()
      guard fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) != 0 else {
        throw StorageError(
          .invalidInput,
          "\(DisplayText.quoted(destination.string)) appeared while downloading; pass --force to replace it"
        )
      }
      try commit(replacing: true)
    default:
      throw StorageError(
        .localIO,
        "cannot move the download to \(DisplayText.quoted(destination.string)): \(failure)")
    }
  }

  /// Closes the descriptor; removes the temporary file unless it was committed.
  func close(committed: Bool) {
    try? descriptor.close()
    if !committed { unlinkat(parent, temporaryName, 0) }
    TemporaryFiles.unregister(temporary.string)
    if ownsParent { _ = Glibc.close(parent) }
  }

  private static func randomName() -> String {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    return String((0..<10).map { _ in alphabet.randomElement() ?? "x" })
  }
}

/// Temporary files to remove if a signal ends the process before the command can.
enum TemporaryFiles {
  /// By bytes (`ExactKey`): two paths that differ only in their Unicode normalization are two
  /// files, and unregistering one must not forget the other.
  private static let paths = Mutex(Set<ExactKey>())

  static func register(_ path: String) { _ = paths.withLock { $0.insert(ExactKey(path)) } }
  static func unregister(_ path: String) { _ = paths.withLock { $0.remove(ExactKey(path)) } }
  static func removeAll() {
    for path in paths.withLock({ $0 }) { unlink(path.text) }
  }
}
