import CCurl

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads one transfer's request body for libcurl: from memory, from a file with `pread`, or from
/// a stream, telling the body's observers of every byte and of every restart.
///
/// Lives on the transfer's thread only, like its ``TransferContext``.
final class BodyReader {
  let body: RequestBody
  /// Bytes handed to libcurl since the body last started from its beginning.
  private(set) var position: Int64 = 0
  /// Whether any byte was handed to libcurl in this transfer (restarts included).
  private(set) var hasRead = false

  /// A reader of `body` from its start.
  ///
  /// - Throws: `StorageError(.invalidInput)` when `body` is a stream an earlier attempt read from.
  init(_ body: RequestBody) throws(StorageError) {
    guard body.canBeSent else {
      throw StorageError(
        .invalidInput,
        "the request body is a stream that an earlier attempt already read; it cannot be sent again"
      )
    }
    self.body = body
    for observer in body.observers { observer.bodyRestarted() }
  }

  /// Fills `buffer` with the next bytes; `0` at the end.
  ///
  /// - Throws: `StorageError(.localIO)` when the file or stream cannot be read or ends before
  ///   the body's length.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(StorageError) -> Int {
    var room = buffer
    if let length = body.length {
      let remaining = length - position
      guard remaining > 0 else { return 0 }
      if Int64(room.count) > remaining {
        room = UnsafeMutableRawBufferPointer(rebasing: room[..<Int(remaining)])
      }
    }
    guard !room.isEmpty else { return 0 }
    let count: Int
    switch body.source {
    case .bytes(let bytes):
      count = bytes.withUnsafeBytes { all in
        let start = Int(position)
        let taken = min(room.count, all.count - start)
        if taken > 0, let base = all.baseAddress, let target = room.baseAddress {
          target.copyMemory(from: base + start, byteCount: taken)
        }
        return max(0, taken)
      }
    case .file(let descriptor, let offset, let length):
      count = try Self.pread(descriptor, into: room, at: offset + position)
      if count == 0 {
        throw StorageError(
          .localIO,
          "the file being sent ended after \(position) of its \(length) bytes; it changed while "
            + "it was being sent")
      }
    case .stream(let stream):
      count = try stream.read(into: room)
      if count == 0, let length = stream.length, position < length {
        throw StorageError(
          .localIO,
          "the stream being sent ended after \(position) of its \(length) bytes")
      }
    }
    if count > 0 {
      let taken = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(room)[..<count])
      for observer in body.observers { observer.bodyRead(taken) }
      position += Int64(count)
      hasRead = true
    }
    return count
  }

  /// Goes back to the body's first byte (libcurl re-sending on a fresh connection). Returns
  /// whether it could: a stream cannot once a byte of it was read.
  func rewind() -> Bool {
    guard position != 0 else { return true }
    guard body.isRewindable else { return false }
    position = 0
    for observer in body.observers { observer.bodyRestarted() }
    return true
  }

  /// `pread` into `buffer` at `offset`, retrying an interrupted call.
  private static func pread(
    _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
  ) throws(StorageError) -> Int {
    while true {
      #if canImport(Darwin)
        let count = Darwin.pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
      #else
        let count = Glibc.pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
      #endif
      if count >= 0 { return count }
      let number = errno
      if number == EINTR { continue }
      throw StorageError(.localIO, "cannot read the file being sent: " + errnoText(number))
    }
  }
}

/// CURLOPT_READFUNCTION: fills libcurl's buffer with the next body bytes; `0` ends the body and
/// `CURL_READFUNC_ABORT` stops the transfer.
func curlReadCallback(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ userData: UnsafeMutableRawPointer?
) -> Int {
  let abort = Int(CURL_READFUNC_ABORT)
  guard let userData, let buffer else { return abort }
  let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
  if context.shouldAbort() { return abort }
  guard let reader = context.bodyReader else { return 0 }
  do {
    return try reader.read(
      into: UnsafeMutableRawBufferPointer(
        start: UnsafeMutableRawPointer(buffer), count: size * count)
    )
  } catch {
    context.failure = .body(error)
    return abort
  }
}

/// CURLOPT_SEEKFUNCTION: libcurl rewinds the body to send it again (on a fresh connection after a
/// kept-alive one closed). Only a rewind to the start is supported.
func curlSeekCallback(
  _ userData: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32
) -> Int32 {
  let cannot = Int32(CURL_SEEKFUNC_CANTSEEK)
  guard let userData, offset == 0, origin == SEEK_SET else { return cannot }
  let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
  guard let reader = context.bodyReader else { return Int32(CURL_SEEKFUNC_OK) }
  return reader.rewind() ? Int32(CURL_SEEKFUNC_OK) : cannot
}
