import NIOCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file of a directory bucket, opened to be read: never through a symbolic link, never
/// blocking on a FIFO or a device, and only when it is (still) a regular file.
///
/// The scan at start-up skips links and special files, but the tree can change afterwards; the
/// checks are made again on the descriptor each time a file is opened. Reading a regular file
/// still blocks, so callers run off the event loops.
struct ServedFile: ~Copyable {
  /// Why a file cannot be served.
  enum Failure: Error {
    /// Missing, a symbolic link, or unreadable.
    case cannotOpen
    /// A directory, FIFO, socket or device.
    case notARegularFile
    /// A read failed, or the file ended early (it shrank).
    case unreadable
  }

  private let descriptor: Int32
  /// The size when opened.
  let size: Int64

  /// Opens the file `components` names below `root`, following no link on the way (see
  /// `DirectoryHandle`), and checks that it is a regular file.
  init(in root: DirectoryHandle, at components: [String]) throws(Failure) {
    guard let descriptor = root.openFileForReading(components) else { throw .cannotOpen }
    try self.init(descriptor: descriptor)
  }

  /// Takes `descriptor` (closed on failure too) and checks that it is a regular file.
  init(descriptor: Int32) throws(Failure) {
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      throw .notARegularFile
    }
    self.descriptor = descriptor
    size = Int64(info.st_size)
  }

  deinit {
    close(descriptor)
  }

  /// Appends exactly `count` bytes from `offset` to `buffer`.
  func read(at offset: Int64, count: Int, into buffer: inout ByteBuffer) throws(Failure) {
    var position = offset
    var remaining = count
    while remaining > 0 {
      let descriptor = self.descriptor
      var failure: Int32 = 0
      let got = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: remaining) { raw in
        let result = pread(descriptor, raw.baseAddress, remaining, off_t(position))
        guard result >= 0 else {
          failure = errno
          return 0
        }
        return result
      }
      if failure == EINTR { continue }
      guard failure == 0, got > 0 else { throw .unreadable }
      position += Int64(got)
      remaining -= got
    }
  }

  /// Calls `body` with each successive block of the file, `blockSize` bytes (the last may be
  /// shorter), up to the size it had when opened.
  func forEachBlock(
    of blockSize: Int, _ body: (UnsafeRawBufferPointer) -> Void
  ) throws(Failure) {
    var block = ByteBuffer()
    block.reserveCapacity(Int(min(Int64(blockSize), max(size, 0))))
    var offset: Int64 = 0
    while offset < size {
      let count = Int(min(Int64(blockSize), size - offset))
      block.clear()
      try read(at: offset, count: count, into: &block)
      block.withUnsafeReadableBytes { body($0) }
      offset += Int64(count)
    }
  }
}
