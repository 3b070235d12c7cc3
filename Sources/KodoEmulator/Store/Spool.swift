import Foundation
import StorageCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The emulator's private folder for bytes too large to hold in memory: request bodies past the
/// in-memory size, the parts of unfinished uploads, and the large objects of in-memory buckets.
///
/// Made with `mkdtemp` (mode 0700) in the system's temporary folder when the server starts, and
/// removed when it stops. Every file in it is a `SpoolFile`, removed when the last reference to
/// it goes.
final class SpoolDirectory: Sendable {
  /// Why a spool operation failed.
  enum Failure: Error, Equatable {
    /// The file system refused (no space, the folder removed, …).
    case io(Int32)
    /// An append did not start where the file ends (a Kodo v1 chunk at the wrong offset).
    case wrongOffset
  }

  let path: String
  let descriptor: Int32
  /// Spool files that exist now.
  private let live = Atomic<Int>(0)
  /// Whether the folder is the emulator's own (made here, removed by `remove`), not a
  /// directory bucket's temporary folder.
  private let owned: Bool
  /// The mode new files get: private in the emulator's folder, a bucket's files' own mode in a
  /// bucket's folder (they become its objects).
  fileprivate let fileMode: mode_t

  /// Makes a new private folder in `parent` (the system's temporary folder by default).
  init(parent: String? = nil) throws(EmulatorError) {
    let base = parent ?? FileManager.default.temporaryDirectory.path
    var template = Array((base + "/kodo-emulator-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.flatMap { mkdtemp($0) }
    }
    guard let made else {
      throw .invalidConfiguration("cannot make a spool folder in \(base): \(Self.reason(errno))")
    }
    path = String(cString: made)
    descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      rmdir(path)
      throw .invalidConfiguration("cannot open the spool folder \(path): \(Self.reason(code))")
    }
    owned = true
    fileMode = 0o600
  }

  /// Spool files in an existing folder (a directory bucket's temporary folder, where the parts
  /// of its uploads are written so that a completion can rename them into place): takes
  /// ownership of `descriptor`; `remove` leaves the folder alone.
  init(folder descriptor: Int32, path: String) {
    self.descriptor = descriptor
    self.path = path
    owned = false
    fileMode = 0o644
  }

  deinit {
    close(descriptor)
  }

  /// How many spool files exist now.
  var fileCount: Int { live.load(ordering: .relaxed) }

  /// A new empty file.
  func newFile() throws(Failure) -> SpoolFile {
    try SpoolFile(in: self)
  }

  /// Removes every file and the folder itself (the server stops). Files still referenced stay
  /// readable through their descriptors until they go.
  func remove() {
    guard owned, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
      return
    }
    for name in names { unlinkat(descriptor, name, 0) }
    rmdir(path)
  }

  fileprivate func opened() { live.add(1, ordering: .relaxed) }

  fileprivate func closed() { live.subtract(1, ordering: .relaxed) }

  private static func reason(_ code: Int32) -> String {
    String(cString: strerror(code))
  }
}

/// One file in the spool folder: written by appending, read at any offset, removed when the
/// last reference goes. Appends are serialised; the bytes already written never change, so
/// readers need no lock.
final class SpoolFile: Sendable {
  /// What every spool file's name begins with.
  static let prefix = "spool-"

  private let folder: SpoolDirectory
  let name: String
  let descriptor: Int32
  private let written = Mutex<Int64>(0)
  /// The file holds an object's content now (`seal`): nothing writes into it any more.
  private let sealed = Atomic<Bool>(false)
  /// The file was renamed out of its folder (`renamed()`): its name there is not its own.
  private let moved = Atomic<Bool>(false)

  fileprivate init(in folder: SpoolDirectory) throws(SpoolDirectory.Failure) {
    self.folder = folder
    var random = SystemRandomNumberGenerator()
    name = Self.prefix + String(random.next(), radix: 36)
    descriptor = openat(
      folder.descriptor, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
      folder.fileMode)
    guard descriptor >= 0 else { throw .io(errno) }
    folder.opened()
  }

  deinit {
    close(descriptor)
    if !moved.load(ordering: .relaxed) { unlinkat(folder.descriptor, name, 0) }
    folder.closed()
  }

  /// The bytes written so far (by appends, or as `seal` set it).
  var size: Int64 { written.withLock { $0 } }

  /// The folder the file is in.
  var folderDescriptor: Int32 { folder.descriptor }

  /// Whether the file holds an object's content (`seal`).
  var isSealed: Bool { sealed.load(ordering: .relaxed) }

  /// Writes `bytes` at `offset` (a part in its place in its session's file), leaving `size`
  /// alone: the caller owns that range.
  func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SpoolDirectory.Failure) {
    try Self.write(descriptor, bytes, at: offset)
  }

  /// Flushes the file's bytes to the disk.
  func flush() throws(SpoolDirectory.Failure) {
    guard fdatasync(descriptor) == 0 else { throw .io(errno) }
  }

  /// Cuts the file to `count` bytes, which become its `size`, and marks it as an object's
  /// content: nothing writes into it any more.
  func seal(size count: Int64) throws(SpoolDirectory.Failure) {
    try written.withLock { (size: inout Int64) throws(SpoolDirectory.Failure) in
      guard ftruncate(descriptor, off_t(count)) == 0 else { throw .io(errno) }
      size = count
    }
    sealed.store(true, ordering: .relaxed)
  }

  /// Records that the file was renamed out of its folder, so that its end leaves the name
  /// alone.
  func renamed() {
    moved.store(true, ordering: .relaxed)
  }

  /// Appends `bytes` at the end; with `expectedOffset`, only when the file ends there.
  func append(_ bytes: UnsafeRawBufferPointer, expectedOffset: Int64? = nil)
    throws(SpoolDirectory.Failure)
  {
    try written.withLock { (size: inout Int64) throws(SpoolDirectory.Failure) in
      if let expectedOffset, expectedOffset != size { throw .wrongOffset }
      try Self.write(descriptor, bytes, at: size)
      size += Int64(bytes.count)
    }
  }

  /// Appends `count` bytes from `offset` of `source`, copied by the kernel; `false`, having
  /// copied nothing, where the kernel cannot.
  func appendCopy(from source: SpoolFile, at offset: Int64, count: Int64) throws(StoreFailure)
    -> Bool
  {
    try written.withLock { (size: inout Int64) throws(StoreFailure) -> Bool in
      guard lseek(descriptor, off_t(size), SEEK_SET) >= 0 else { throw .io }
      guard try FileCopy.copy(from: source.descriptor, at: offset, count: count, to: descriptor)
      else { return false }
      size += count
      return true
    }
  }

  /// Reads up to `buffer.count` bytes at `offset`; returns how many were read (fewer only at
  /// the end of the file).
  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer)
    throws(SpoolDirectory.Failure) -> Int
  {
    let (count, failure) = PositionalFile.read(descriptor, into: buffer, at: offset)
    if let failure { throw .io(failure) }
    return count
  }

  /// Writes all of `bytes` at `offset` of `descriptor`.
  static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64)
    throws(SpoolDirectory.Failure)
  {
    if let failure = PositionalFile.write(descriptor, bytes, at: offset) { throw .io(failure) }
  }
}
