/// An ordered list of HTTP header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
  /// The fields in order, names as given.
  public private(set) var fields: [(name: String, value: String)]

  /// Headers from `(name, value)` pairs, in order.
  public init(_ fields: [(String, String)] = []) {
    self.fields = fields.map { (name: $0.0, value: $0.1) }
  }

  /// Headers from a literal, in its order.
  public init(dictionaryLiteral elements: (String, String)...) {
    self.init(elements)
  }

  /// The first value of the field named `name` (any case).
  public subscript(name: String) -> String? {
    fields.first(where: { WireText.sameIgnoringASCIICase($0.name, name) })?.value
  }

  /// Appends a field.
  public mutating func add(_ name: String, _ value: String) {
    fields.append((name: name, value: value))
  }

  /// Replaces every field named `name` (any case) with one field, appended when absent.
  public mutating func set(_ name: String, _ value: String) {
    if let index = fields.firstIndex(where: { WireText.sameIgnoringASCIICase($0.name, name) }) {
      fields[index].value = value
      var next = index + 1
      while next < fields.count {
        if WireText.sameIgnoringASCIICase(fields[next].name, name) {
          fields.remove(at: next)
        } else {
          next += 1
        }
      }
    } else {
      fields.append((name: name, value: value))
    }
  }

  /// Iterates the fields in order.
  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    fields.makeIterator()
  }

  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.elementsEqual(rhs.fields, by: { $0.name == $1.name && $0.value == $1.value })
  }
}

/// A request as the client hands it to a transport: exactly what goes on the wire.
public struct HTTPRequest: Sendable, Equatable {
  /// `GET`, `POST`, …
  public var method: String
  /// The absolute URL, already encoded; sent byte for byte.
  public var url: String
  /// Header fields to send (the transport adds `User-Agent`, `Accept-Encoding` and `Host`).
  public var headers: HTTPHeaders
  /// The body (empty for most API calls), read for the wire as it is sent.
  public var body: RequestBody

  /// A request from its parts, with a body in memory.
  public init(method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8] = []) {
    self.init(method: method, url: url, headers: headers, body: .bytes(body))
  }

  /// A request from its parts.
  public init(method: String = "GET", url: String, headers: HTTPHeaders = [:], body: RequestBody) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }
}

/// A response: the status, the header fields and the (decompressed) body.
public struct HTTPResponse: Sendable, Equatable {
  /// The HTTP status code.
  public var status: Int
  /// The response's header fields.
  public var headers: HTTPHeaders
  /// The body, when buffered. For a 2xx download streamed to a file descriptor it is empty.
  public var body: [UInt8]
  /// The number of body bytes written to the file descriptor of a download.
  public var streamedByteCount: Int64

  /// A response from its parts.
  public init(
    status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], streamedByteCount: Int64 = 0
  ) {
    self.status = status
    self.headers = headers
    self.body = body
    self.streamedByteCount = streamedByteCount
  }
}

/// Moves requests and responses; knows nothing about any storage service.
///
/// Implementations return every response that arrives, whatever its status, and throw
/// `StorageError` only when no complete response arrived: `.unavailable` (DNS, connect, TLS,
/// timeouts), `.protocolError` (a malformed, truncated or oversized answer), `.cancelled` (the
/// calling task was cancelled), `.outputClosed`/`.localIO` (writing a download failed). A failed
/// download's error says in `writtenBytes` how many body bytes had reached the descriptor.
public protocol HTTPTransport: Sendable {
  /// Sends `request` and buffers the whole response body.
  func send(_ request: HTTPRequest) async throws -> HTTPResponse

  /// Sends `request`; a 2xx body is streamed to `fileDescriptor` as it arrives (and not buffered),
  /// exactly as stored (never decompressed), any other status's body is buffered in the response
  /// as usual. With `expectedLength`, a body that would grow past it stops at once and a shorter
  /// one is an error: both `.protocolError`. `digest` takes the bytes written, in order.
  func download(
    _ request: HTTPRequest, to fileDescriptor: Int32, expectedLength: Int64?,
    digest: StreamedDigest?
  ) async throws -> HTTPResponse

  /// Sends `request` and buffers the whole response body, as `send(_:)` does; `watcher` looks
  /// at the body of a 2xx answer as it arrives (see ``BodyWatcher``), before the rest of it.
  func send(_ request: HTTPRequest, watchingBody watcher: BodyWatcher) async throws
    -> HTTPResponse
}

/// Looks at the start of an answer's body while the rest is still on its way: a listing reads
/// the marker that continues it from the first bytes, so the next request need not wait for the
/// whole page.
///
/// `look` is called on the transfer's thread with the body so far (of a 2xx answer only), each
/// time more of it arrives, until it returns `true` (it has seen what it wanted) or the body
/// passes `limit` bytes; it must be quick and must not block. A transport that cannot show the
/// body early shows it once, whole.
public struct BodyWatcher: Sendable {
  /// The most bytes `look` is shown more of; past them it is not called again.
  public var limit: Int
  /// Looks at the body so far; `true` when it needs to see no more.
  public var look: @Sendable ([UInt8]) -> Bool

  /// A watcher of the first `limit` bytes.
  public init(limit: Int = 64 * 1024, look: @escaping @Sendable ([UInt8]) -> Bool) {
    self.limit = limit
    self.look = look
  }
}

extension HTTPTransport {
  /// Shows `watcher` the whole body once it has arrived: for transports that cannot show it
  /// sooner.
  public func send(_ request: HTTPRequest, watchingBody watcher: BodyWatcher) async throws
    -> HTTPResponse
  {
    let response = try await send(request)
    if (200..<300).contains(response.status) { _ = watcher.look(response.body) }
    return response
  }

  /// A download without a running digest.
  public func download(_ request: HTTPRequest, to fileDescriptor: Int32, expectedLength: Int64?)
    async throws -> HTTPResponse
  {
    try await download(request, to: fileDescriptor, expectedLength: expectedLength, digest: nil)
  }

  /// A download of a body of unknown length.
  public func download(_ request: HTTPRequest, to fileDescriptor: Int32) async throws
    -> HTTPResponse
  {
    try await download(request, to: fileDescriptor, expectedLength: nil)
  }
}

/// HTTP's `token` rule (RFC 9110 `tchar`), for methods and header names.
package enum HTTPToken {
  /// Whether `byte` may appear in an HTTP token (RFC 9110 `tchar`): header names, methods.
  package static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default:
      return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }
}
