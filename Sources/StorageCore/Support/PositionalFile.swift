#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `pread` and `pwrite` carried on until the whole buffer is done, an interrupted call
/// (`EINTR`) retried: the one loop for the transfer engine, the browser's range reads and the
/// emulator's spool. Failures are the `errno` values, for each caller to word.
package enum PositionalFile {
  /// Writes all of `bytes` at `offset` of `descriptor`; the `errno` of a failure, or `nil`.
  package static func write(
    _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) -> Int32? {
    var done = 0
    while done < bytes.count {
      let written = pwrite(
        descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done,
        off_t(offset + Int64(done)))
      if written < 0 {
        let number = errno
        if number == EINTR { continue }
        return number
      }
      done += written
    }
    return nil
  }

  /// Reads into `buffer` from `offset` of `descriptor` until it is full or the file ends;
  /// returns how many bytes were read, and the `errno` of a failure that stopped it early.
  package static func read(
    _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) -> (count: Int, failure: Int32?) {
    var done = 0
    while done < buffer.count {
      let got = pread(
        descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done,
        off_t(offset + Int64(done)))
      if got < 0 {
        let number = errno
        if number == EINTR { continue }
        return (done, number)
      }
      if got == 0 { break }
      done += got
    }
    return (done, nil)
  }

  /// Reads the whole open file `descriptor` from its start (its offset is not moved) through
  /// one buffer of at most `chunk` bytes (less for a smaller file: its size and one byte, so a
  /// file that grew since is read on), handing each chunk to `body` in order; the `errno` of a
  /// failure that stopped it, or `nil` at the file's end.
  package static func readAll(
    _ descriptor: Int32, chunk: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Void
  ) -> Int32? {
    var status = stat()
    let size = fstat(descriptor, &status) == 0 ? Int(status.st_size) : chunk
    var buffer = [UInt8](repeating: 0, count: max(1, min(chunk, size + 1)))
    var offset: Int64 = 0
    while true {
      let (count, failure) = buffer.withUnsafeMutableBytes {
        read(descriptor, into: $0, at: offset)
      }
      buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
      if let failure { return failure }
      offset += Int64(count)
      if count < buffer.count { return nil }
    }
  }
}
