import CCurl
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Set when the calling task is cancelled; read by the transfer's callbacks on its own thread.
final class CancellationFlag: Sendable {
  private let cancelled = Atomic<Bool>(false)

  var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

  func cancel() { cancelled.store(true, ordering: .relaxed) }
}

/// Everything one transfer's callbacks read and write. Lives on the transfer's thread only; libcurl
/// gets it as an unretained pointer for the duration of `curl_easy_perform`.
final class TransferContext {
  /// Why a callback stopped the transfer.
  enum Failure {
    case cancelled
    case write(Int32)
  }

  let destination: Int32?
  let cancellation: CancellationFlag
  /// `CURL_ERROR_SIZE` bytes that libcurl fills with a description of a failure.
  let errorBuffer: UnsafeMutablePointer<CChar>
  /// A copy of the request body that outlives `curl_easy_perform` (at least one byte, so that an
  /// empty body is still a valid pointer).
  let requestBody: UnsafeMutableRawPointer

  /// The status of the response being received (0 before its status line).
  var currentStatus = 0
  /// The header fields of the response being received.
  var headerFields: [(String, String)] = []
  var body: [UInt8] = []
  var streamedByteCount: Int64 = 0
  var failure: Failure?

  init(destination: Int32?, cancellation: CancellationFlag, body: [UInt8]) {
    self.destination = destination
    self.cancellation = cancellation
    let errorSize = Int(CURL_ERROR_SIZE) + 1
    errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: errorSize)
    errorBuffer.initialize(repeating: 0, count: errorSize)
    requestBody = UnsafeMutableRawPointer.allocate(
      byteCount: max(1, body.count), alignment: MemoryLayout<UInt8>.alignment)
    body.withUnsafeBytes { bytes in
      if let base = bytes.baseAddress { requestBody.copyMemory(from: base, byteCount: bytes.count) }
    }
  }

  deinit {
    errorBuffer.deallocate()
    requestBody.deallocate()
  }

  /// Whether the transfer should stop because the task was cancelled (and remembers why).
  func shouldAbort() -> Bool {
    guard cancellation.isCancelled else { return false }
    if failure == nil { failure = .cancelled }
    return true
  }

  /// One header line from libcurl: a status line starts a new response (after a redirect or an
  /// interim 1xx), so it drops what the previous response left.
  func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
    var line = String(decoding: bytes, as: UTF8.self)
    while let last = line.last, last == "\r\n" || last == "\n" || last == "\r" {
      line.removeLast()
    }
    if line.hasPrefix("HTTP/") {
      let words = line.split(separator: " ", omittingEmptySubsequences: true)
      currentStatus = words.count > 1 ? Int(words[1]) ?? 0 : 0
      headerFields.removeAll()
      if streamedByteCount == 0 { body.removeAll() }
      return
    }
    guard !line.isEmpty else { return }
    if let first = line.first, first == " " || first == "\t" {
      // An obsolete folded continuation of the previous field.
      if let last = headerFields.indices.last {
        headerFields[last].1 += " " + line.trimmingHTTPWhitespace()
      }
      return
    }
    guard let colon = line.firstIndex(of: ":") else { return }
    let name = String(line[..<colon])
    let value = line[line.index(after: colon)...].trimmingHTTPWhitespace()
    headerFields.append((name, value))
  }

  /// Body bytes from libcurl; returns whether they were all taken.
  func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let destination, (200..<300).contains(currentStatus) else {
      body.append(contentsOf: bytes)
      return true
    }
    guard let base = bytes.baseAddress else { return true }
    var offset = 0
    while offset < bytes.count {
      let written = write(destination, base + offset, bytes.count - offset)
      if written > 0 {
        offset += written
        streamedByteCount += Int64(written)
        continue
      }
      let number = written == 0 ? EIO : errno
      if number == EINTR { continue }
      if number == EAGAIN || number == EWOULDBLOCK {
        // A non-blocking descriptor is full: wait for room, still honouring cancellation.
        var poller = pollfd(fd: destination, events: Int16(POLLOUT), revents: 0)
        _ = poll(&poller, 1, 200)
        if shouldAbort() { return false }
        continue
      }
      failure = .write(number)
      return false
    }
    return true
  }
}

@available(*, unavailable)
extension TransferContext: Sendable {}

extension StringProtocol {
  func trimmingHTTPWhitespace() -> String {
    var slice = Substring(self)
    while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
    while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
    return String(slice)
  }
}
