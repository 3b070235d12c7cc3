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
}
