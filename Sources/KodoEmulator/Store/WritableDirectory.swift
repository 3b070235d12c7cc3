import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes into a `--writable` directory bucket: every file is written whole to a temporary file
/// under `DIR/.kodo-emulator/tmp/`, flushed to the disk, then renamed into place, so a reader
/// sees the old file or the new one and a crash leaves no half-written object; every folder on
/// the way is created or opened below the bucket's descriptor without following a link.
final class WritableDirectory: Sendable {
  /// Why a write into the directory failed.
  enum Failure: Error, Equatable {
    /// The key cannot be a path: an empty component (a leading, trailing or doubled `/`), `.`,
    /// `..`, or a name over 255 bytes.
    case keyNotAPath
    /// A folder on the way is a file (or a link), or the target is a folder.
    case pathConflict
    /// The file system refused (no space, no permission, …).
    case io(Int32)
    /// Another emulator serves the directory as a writable bucket now (``DirectoryClaim``).
    case inUse
  }

  /// The folder the emulator keeps its own files in, skipped by the scan.
  static let stateFolder = ".kodo-emulator"

  let root: DirectoryHandle
  /// `DIR/.kodo-emulator/tmp`, `DIR/.kodo-emulator/objects`.
  private let temporary: DirectoryHandle
  let records: DirectoryHandle
  /// The lock on `DIR/.kodo-emulator` held while this emulator serves the directory.
  let claim: DirectoryClaim
  /// The temporary folder as spool files: where the parts of uploads into this bucket are
  /// written (`PartLayout`), so that a completion renames them into place.
  let partFolder: SpoolDirectory

  init(root: DirectoryHandle) throws(Failure) {
    self.root = root
    let state = try Self.folder(Self.stateFolder, in: root.descriptor)
    defer { close(state) }
    claim = try DirectoryClaim(state: state)
    temporary = DirectoryHandle(descriptor: try Self.folder("tmp", in: state))
    // Claimed: whatever temporary files are there were left by an emulator that was killed
    // (unclaimed, on a file system without locks, they may be a running one's: left alone).
    if claim.isHeld { _ = DirectoryClaim.removeLeftovers(in: temporary.descriptor) }
    records = DirectoryHandle(descriptor: try Self.folder("objects", in: state))
    let parts = Descriptors.duplicate(temporary.descriptor)
    guard parts >= 0 else { throw .io(errno) }
    partFolder = SpoolDirectory(folder: parts, path: Self.stateFolder + "/tmp")
  }

  /// Opens (creating it if missing) the folder `name` in `parent`, refusing a link. A folder it
  /// creates has its entry flushed to the disk in `parent`, so a write answered below it
  /// survives a crash with the path that leads to it.
  static func folder(_ name: String, in parent: Int32) throws(Failure) -> Int32 {
    if mkdirat(parent, name, 0o755) == 0 {
      _ = fsync(parent)
    } else if errno != EEXIST {
      throw .io(errno)
    }
    let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw errno == ENOTDIR || errno == ELOOP ? .pathConflict : .io(errno)
    }
    return descriptor
  }

  /// A file being written: appended to, then committed (renamed into place) or discarded.
  final class PendingFile {
    /// What every pending file's name begins with.
    static let prefix = "put-"

    private let folder: DirectoryHandle
    let name: String
    private(set) var descriptor: Int32
    private(set) var size: Int64 = 0

    fileprivate init(folder: DirectoryHandle) throws(Failure) {
      self.folder = folder
      var random = SystemRandomNumberGenerator()
      name = Self.prefix + String(random.next(), radix: 36)
      descriptor = openat(
        folder.descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else { throw .io(errno) }
    }

    deinit {
      if descriptor >= 0 {
        close(descriptor)
        unlinkat(folder.descriptor, name, 0)
      }
    }

    /// Appends `bytes`.
    func append(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
      var offset = 0
      while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          throw .io(errno)
        }
        offset += written
      }
      size += Int64(bytes.count)
    }

    /// Counts `count` bytes written to `descriptor` by someone else (a kernel copy).
    func grew(by count: Int64) {
      size += count
    }

    func append(_ bytes: [UInt8]) throws(Failure) {
      let outcome = bytes.withUnsafeBytes { raw in
        Result { () throws(Failure) in try append(raw) }
      }
      try outcome.get()
    }

    /// Flushes the bytes to the disk and renames the file to `name` in `target`, whose own
    /// entry is flushed too; returns the file's modification time (100 ns units).
    fileprivate func commit(into target: Int32, as finalName: String) throws(Failure) -> Int64 {
      guard fsync(descriptor) == 0 else { throw .io(errno) }
      var info = stat()
      guard fstat(descriptor, &info) == 0 else { throw .io(errno) }
      close(descriptor)
      descriptor = -1
      guard renameat(folder.descriptor, name, target, finalName) == 0 else {
        let code = errno
        unlinkat(folder.descriptor, name, 0)
        throw code == EISDIR || code == ENOTEMPTY || code == EEXIST ? .pathConflict : .io(code)
      }
      _ = fsync(target)
      return WritableDirectory.hundredNanoseconds(info)
    }
  }

  /// A new temporary file for an object's bytes.
  func pendingFile() throws(Failure) -> PendingFile {
    try PendingFile(folder: temporary)
  }

  /// Renames `file` to `components` below the root, creating the folders on the way; returns
  /// the file's modification time (100 ns units).
  func commit(_ file: PendingFile, to components: [String]) throws(Failure) -> Int64 {
    try inFolder(of: components) { (folder, name) throws(Failure) in
      try file.commit(into: folder, as: name)
    }
  }

  /// Makes `file` (a session's parts, in `partFolder`) the object at `components`: cut to
  /// `size`, flushed to the disk, renamed into place with its folder flushed, as `commit` does
  /// with a pending file; returns the file's modification time (100 ns units). A rename that
  /// fails leaves the file where it was.
  func commit(_ file: SpoolFile, size: Int64, to components: [String]) throws(Failure) -> Int64 {
    try inFolder(of: components) { (folder, name) throws(Failure) in
      do throws(SpoolDirectory.Failure) {
        try file.seal(size: size)
      } catch {
        throw .io(EIO)
      }
      guard fsync(file.descriptor) == 0 else { throw .io(errno) }
      var info = stat()
      guard fstat(file.descriptor, &info) == 0 else { throw .io(errno) }
      guard renameat(file.folderDescriptor, file.name, folder, name) == 0 else {
        let code = errno
        throw code == EISDIR || code == ENOTEMPTY || code == EEXIST ? .pathConflict : .io(code)
      }
      file.renamed()
      _ = fsync(folder)
      return Self.hundredNanoseconds(info)
    }
  }

  /// Calls `body` with the folder of `components` below the root (created on the way) and the
  /// last component.
  private func inFolder<T>(
    of components: [String], _ body: (Int32, String) throws(Failure) -> T
  ) throws(Failure) -> T {
    guard let name = components.last else { throw .keyNotAPath }
    var current = Descriptors.duplicate(root.descriptor)
    guard current >= 0 else { throw .io(errno) }
    defer { close(current) }
    for component in components.dropLast() {
      let next = try Self.folder(component, in: current)
      close(current)
      current = next
    }
    return try body(current, name)
  }

  /// Removes the file at `components` (a missing one is not an error).
  func remove(_ components: [String]) throws(Failure) {
    guard let name = components.last, let folder = root.openFolder(components.dropLast()) else {
      return
    }
    defer { close(folder) }
    if unlinkat(folder, name, 0) != 0 && errno != ENOENT { throw .io(errno) }
    _ = fsync(folder)
  }

  /// The modification time of the file at `components` (100 ns units), if it is a regular file
  /// reached without links.
  func modificationTime(of components: [String]) -> Int64? {
    guard let descriptor = root.openFileForReading(components) else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return Self.hundredNanoseconds(info)
  }

  static func hundredNanoseconds(_ info: stat) -> Int64 {
    #if canImport(Darwin)
      let time = info.st_mtimespec
    #else
      let time = info.st_mtim
    #endif
    return Int64(time.tv_sec) * 10_000_000 + Int64(time.tv_nsec) / 100
  }

  /// Writes `bytes` to `name` in `folder` atomically (a record of the emulator's own).
  func writeRecord(_ bytes: [UInt8], named name: String) throws(Failure) {
    let file = try PendingFile(folder: temporary)
    try file.append(bytes)
    _ = try file.commit(into: records.descriptor, as: name)
  }

  /// Removes the record `name`, if any.
  func removeRecord(named name: String) {
    unlinkat(records.descriptor, name, 0)
  }
}
