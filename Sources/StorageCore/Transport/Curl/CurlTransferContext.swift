import CCurl
import Synchronization
import SystemPackage

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
    /// A buffered body grew past its bound (`error`: the body of a non-2xx answer).
    case bodyTooLarge(limit: Int, error: Bool)
    /// A download's body grew past the length it was expected to have.
    case longerThanExpected(Int64)
    /// The header block grew past its bound.
    case headersTooLarge(Int)
    /// The request body could not be read.
    case body(StorageError)
  }

  /// How much a transfer may buffer.
  struct Limits {
    var body: Int
    var errorBody: Int
    var headers: Int
    /// The length a download's body must have, when known.
    var expectedLength: Int64?
    /// A ranged download: only a 206 answer's body is written (a server that ignores the
    /// `Range` and sends the object from its start must not put those bytes where the range's
    /// go); any other answer is buffered as usual, for the caller to judge.
    var partialOnly = false
  }

  let destination: Int32?
  /// Takes the body bytes written to `destination`.
  let digest: StreamedDigest?
  /// Looks at a buffered 2xx body as it arrives, until it has seen enough (then `nil`).
  private var watcher: BodyWatcher?
  let cancellation: CancellationFlag
  let limits: Limits
  /// `CURL_ERROR_SIZE` bytes that libcurl fills with a description of a failure.
  let errorBuffer: UnsafeMutablePointer<CChar>
  /// Reads the request body for libcurl (`nil`: the request has none).
  let bodyReader: BodyReader?

  /// The status of the response being received (0 before its status line).
  var currentStatus = 0
  /// The header fields of the response being received.
  var headerFields: [(String, String)] = []
  var body: [UInt8] = []
  /// The `Content-Length` of the response being received, when it sent one: a buffered body
  /// reserves room for it once (up to `reservationLimit`) rather than growing page by page.
  private var announcedLength: Int?
  var streamedByteCount: Int64 = 0
  var headerBytes = 0
  var failure: Failure?

  init(
    destination: Int32?, digest: StreamedDigest? = nil, watcher: BodyWatcher? = nil,
    cancellation: CancellationFlag, body: BodyReader?, limits: Limits
  ) {
    self.destination = destination
    self.digest = digest
    self.watcher = watcher
    self.cancellation = cancellation
    self.limits = limits
    let errorSize = Int(CURL_ERROR_SIZE) + 1
    errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: errorSize)
    errorBuffer.initialize(repeating: 0, count: errorSize)
    bodyReader = body
  }

  deinit {
    errorBuffer.deallocate()
  }

  /// Whether the transfer should stop because the task was cancelled (and remembers why).
  func shouldAbort() -> Bool {
    guard cancellation.isCancelled else { return false }
    if failure == nil { failure = .cancelled }
    return true
  }

  /// One header line from libcurl: a status line starts a new response (after a redirect or an
  /// interim 1xx), so it drops what the previous response left.
  /// Returns whether the line was taken (`false`: the header block is too large).
  func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
    headerBytes += bytes.count
    if headerBytes > limits.headers {
      failure = .headersTooLarge(limits.headers)
      return false
    }
    var end = bytes.count
    while end > 0, bytes[end - 1] == UInt8(ascii: "\r") || bytes[end - 1] == UInt8(ascii: "\n") {
      end -= 1
    }
    let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    if WireText.hasPrefix(line, "HTTP/") {
      let words = WireText.split(line, at: " ", omittingEmpty: true)
      currentStatus = words.count > 1 ? Int(words[1]) ?? 0 : 0
      headerFields.removeAll()
      announcedLength = nil
      headerBytes = bytes.count
      if streamedByteCount == 0 { body.removeAll() }
      return true
    }
    guard !line.isEmpty else { return true }
    if let first = line.utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
      // An obsolete folded continuation of the previous field.
      if let last = headerFields.indices.last {
        headerFields[last].1 += " " + line.trimmingHTTPWhitespace()
      }
      return true
    }
    guard let (name, rawValue) = WireText.cut(line, at: ":") else { return true }
    let value = rawValue.trimmingHTTPWhitespace()
    if WireText.sameIgnoringASCIICase(name, "Content-Length") {
      announcedLength = DecimalText.parse(value.utf8).map { Int(clamping: $0) }
    }
    headerFields.append((String(name), value))
    return true
  }

  /// The most room a buffered body reserves on the strength of its `Content-Length` (which a
  /// server may overstate); a larger body grows as it arrives, up to its bound.
  static var reservationLimit: Int { 8 << 20 }

  /// Body bytes from libcurl; returns whether they were all taken.
  ///
  /// The one bounded reader of the transport: a buffered body never grows past its bound, and a
  /// streamed one never past the length it is expected to have.
  func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let success =
      limits.partialOnly ? currentStatus == 206 : (200..<300).contains(currentStatus)
    guard let destination, success else {
      let limit = success ? limits.body : limits.errorBody
      guard body.count + bytes.count <= limit else {
        failure = .bodyTooLarge(limit: limit, error: !success)
        return false
      }
      if body.isEmpty, let announced = announcedLength, announced > bytes.count {
        body.reserveCapacity(min(announced, limit, Self.reservationLimit))
      }
      body.append(contentsOf: bytes)
      if success, let watcher {
        let seen = body.count - bytes.count
        if seen >= watcher.limit || watcher.look(body) { self.watcher = nil }
      }
      return true
    }
    if let expected = limits.expectedLength, streamedByteCount + Int64(bytes.count) > expected {
      failure = .longerThanExpected(expected)
      return false
    }
    let descriptor = FileDescriptor(rawValue: destination)
    var rest = bytes
    while !rest.isEmpty {
      let failed: Errno
      do {
        // swift-system retries an interrupted write itself.
        let written = try descriptor.write(rest)
        if written > 0 {
          digest?.update(UnsafeRawBufferPointer(rebasing: rest[..<written]))
          rest = UnsafeRawBufferPointer(rebasing: rest[written...])
          streamedByteCount += Int64(written)
          continue
        }
        failed = .ioError
      } catch let error as Errno {
        failed = error
      } catch {
        failed = .ioError
      }
      if failed == .resourceTemporarilyUnavailable || failed == .wouldBlock {
        // A non-blocking descriptor is full: wait for room, still honouring cancellation.
        var poller = pollfd(fd: destination, events: Int16(POLLOUT), revents: 0)
        _ = poll(&poller, 1, 200)
        if shouldAbort() { return false }
        continue
      }
      failure = .write(failed.rawValue)
      return false
    }
    return true
  }
}

@available(*, unavailable)
extension TransferContext: Sendable {}

extension StringProtocol {
  func trimmingHTTPWhitespace() -> String {
    String(WireText.trimmingSpaces(Substring(self)))
  }
}
