import Foundation
import KodoCore
import NIOCore
import NIOPosix
public import StorageCore

/// An HTTP/1.1 request written byte for byte as given: the target is never re-encoded.
public struct RawHTTPRequest: Sendable {
  /// The method (`GET`).
  public var method: String
  /// The request target, exactly as sent (`/list?bucket=b&prefix=a%20b`).
  public var target: String
  /// Headers, in order; `Content-Length` is added for a body or a `POST`.
  public var headers: [(String, String)]
  /// The body.
  public var body: [UInt8]

  /// A request from its parts.
  public init(
    method: String = "GET", target: String, headers: [(String, String)] = [], body: [UInt8] = []
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
  }

  /// The bytes on the wire.
  public var bytes: [UInt8] {
    var text = method + " " + target + " HTTP/1.1\r\n"
    for (name, value) in headers { text += name + ": " + value + "\r\n" }
    let hasLength = headers.contains { $0.0.lowercased() == "content-length" }
    if !hasLength && (!body.isEmpty || method == "POST") {
      text += "Content-Length: " + String(body.count) + "\r\n"
    }
    text += "\r\n"
    return Array(text.utf8) + body
  }
}

/// A complete HTTP response.
public struct RawHTTPResponse: Sendable {
  /// The status code.
  public var status: Int
  /// The reason phrase.
  public var reason: String
  /// Headers, in order.
  public var headers: [(name: String, value: String)]
  /// The body (empty for `HEAD`).
  public var body: [UInt8]

  /// The first value of a header (names compared case-insensitively).
  public func header(_ name: String) -> String? {
    let lowered = name.lowercased()
    return headers.first(where: { $0.name.lowercased() == lowered })?.value
  }

  /// The body as UTF-8 text.
  public var text: String { String(decoding: body, as: UTF8.self) }

  /// The body parsed as JSON.
  public func json() throws -> JSONValue {
    try JSONValue.parse(text)
  }
}

/// What came back on a connection.
public enum RawHTTPResult: Sendable {
  /// A complete response.
  case response(RawHTTPResponse)
  /// The server closed the connection before a complete response; the bytes it did send.
  case closed(received: [UInt8])
  /// Nothing complete arrived in time; the bytes that did.
  case timedOut(received: [UInt8])

  /// The response, if one arrived.
  public var response: RawHTTPResponse? {
    if case .response(let response) = self { return response }
    return nil
  }

  /// A one-word description for test output: `status 200`, `closed`, `timed out`.
  public var summary: String {
    switch self {
    case .response(let response): "status \(response.status)"
    case .closed: "closed"
    case .timedOut: "timed out"
    }
  }
}

/// Why a raw exchange failed.
public struct RawHTTPError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var description: String
}

/// A tiny HTTP/1.1 client over NIO that sends exactly the bytes it is given, for tests that must
/// control the request target byte for byte (URLSession re-encodes paths) and observe broken
/// responses (truncated bodies, dropped connections, stalls).
public enum RawHTTPClient {
  /// Opens a connection, runs `body` with it, and closes it.
  public static func withConnection<Result: Sendable>(
    host: String = "127.0.0.1", port: Int,
    _ body: (RawHTTPConnection) async throws -> Result
  ) async throws -> Result {
    try await withConnection(host: host, port: port, sendingOnConnect: nil, body)
  }

  /// Sends one request on a new connection and reads one response.
  ///
  /// The request is written from the event loop as soon as the connection is up, not when this
  /// task next gets a thread: on a busy test run that can be long enough for a server's request
  /// timeout to close a connection that has sent nothing.
  public static func send(
    _ request: RawHTTPRequest, host: String = "127.0.0.1", port: Int,
    timeout: Duration = .seconds(300)
  ) async throws -> RawHTTPResult {
    try await withConnection(host: host, port: port, sendingOnConnect: request.bytes) {
      connection in
      try await connection.readResponse(isHEAD: request.method == "HEAD", timeout: timeout)
    }
  }

  private static func withConnection<Result: Sendable>(
    host: String, port: Int, sendingOnConnect bytes: [UInt8]?,
    _ body: (RawHTTPConnection) async throws -> Result
  ) async throws -> Result {
    let arrived = ArrivedBytes()
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: host, port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(RecordArrivals(arrived))
          if let bytes {
            try channel.pipeline.syncOperations.addHandler(SendOnConnect(bytes))
          }
          return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    let underlying = channel.channel
    return try await channel.executeThenClose { inbound, outbound in
      let connection = RawHTTPConnection(
        iterator: inbound.makeAsyncIterator(), outbound: outbound, channel: underlying,
        arrived: arrived)
      return try await body(connection)
    }
  }
}

/// Every byte the event loop has read on a connection, as it arrives; for the watchdog, which
/// must not take a response that has arrived, but not yet been read by a task still waiting for
/// a thread, for a timeout.
// `bytes` is only touched under `lock`, which makes the unchecked conformance sound.
final class ArrivedBytes: @unchecked Sendable {
  private let lock = NSLock()
  private var bytes: [UInt8] = []

  func append(_ buffer: ByteBuffer) {
    lock.withLock { bytes.append(contentsOf: buffer.readableBytesView) }
  }

  /// The bytes from `offset` on.
  func suffix(from offset: Int) -> [UInt8] {
    lock.withLock { offset < bytes.count ? Array(bytes[offset...]) : [] }
  }
}

/// Copies what the connection reads into an `ArrivedBytes`, on the event loop.
private final class RecordArrivals: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let arrived: ArrivedBytes

  init(_ arrived: ArrivedBytes) {
    self.arrived = arrived
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    arrived.append(unwrapInboundIn(data))
    context.fireChannelRead(data)
  }
}

@available(*, unavailable)
extension RecordArrivals: Sendable {}

/// Writes the given bytes once the connection is up, from the event loop.
private final class SendOnConnect: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let bytes: [UInt8]

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  func channelActive(context: ChannelHandlerContext) {
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
    context.fireChannelActive()
  }
}

@available(*, unavailable)
extension SendOnConnect: Sendable {}

/// One open connection; use it from one task.
public final class RawHTTPConnection {
  private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
  private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
  private let channel: any Channel
  private var buffered: [UInt8] = []
  private var isClosed = false
  private let arrived: ArrivedBytes
  /// The bytes of the responses returned so far.
  private var consumed = 0

  init(
    iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
    outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, channel: any Channel,
    arrived: ArrivedBytes
  ) {
    self.iterator = iterator
    self.outbound = outbound
    self.channel = channel
    self.arrived = arrived
  }

  /// Writes bytes as they are.
  public func send(_ bytes: [UInt8]) async throws {
    try await outbound.write(ByteBuffer(bytes: bytes))
  }

  /// Writes a request.
  public func send(_ request: RawHTTPRequest) async throws {
    try await send(request.bytes)
  }

  /// Reads one response. After `.closed` or `.timedOut` the connection is unusable.
  public func readResponse(isHEAD: Bool = false, timeout: Duration = .seconds(300)) async throws
    -> RawHTTPResult
  {
    let timer = TimeoutFlag()
    let channel = self.channel
    let arrived = self.arrived
    let consumed = self.consumed
    let watchdog = Task {
      try await Task.sleep(for: timeout)
      // On a busy test run this task may be scheduled long before the reader: a response whose
      // bytes are all here is not a timeout (closing would break the next request).
      let pending = arrived.suffix(from: consumed)
      if (try? RawHTTPConnection.parse(pending, isHEAD: isHEAD, atEnd: false)) != nil { return }
      timer.fire()
      channel.close(promise: nil)
    }
    defer { watchdog.cancel() }
    while true {
      if let response = try parse(isHEAD: isHEAD, atEnd: isClosed) { return .response(response) }
      if isClosed {
        let received = buffered
        buffered = []
        return timer.fired ? .timedOut(received: received) : .closed(received: received)
      }
      do {
        if let chunk = try await iterator.next() {
          buffered.append(contentsOf: chunk.readableBytesView)
        } else {
          isClosed = true
        }
      } catch {
        isClosed = true
      }
    }
  }

  /// A complete response at the start of the buffer (consumed), or `nil` if more bytes are needed.
  private func parse(isHEAD: Bool, atEnd: Bool) throws -> RawHTTPResponse? {
    guard let (response, length) = try Self.parse(buffered, isHEAD: isHEAD, atEnd: atEnd) else {
      return nil
    }
    buffered.removeFirst(length)
    consumed += length
    return response
  }

  /// A complete response at the start of `buffered` and its length in bytes, or `nil` if more
  /// bytes are needed.
  private static func parse(_ buffered: [UInt8], isHEAD: Bool, atEnd: Bool) throws
    -> (RawHTTPResponse, Int)?
  {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let headEnd = Self.find(separator, in: buffered) else { return nil }
    let headText = String(decoding: buffered[..<headEnd], as: UTF8.self)
    var lines = headText.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst()
    let statusParts = statusLine.split(
      separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
      throw RawHTTPError(description: "not an HTTP status line: \(statusLine)")
    }
    let reason = statusParts.count > 2 ? String(statusParts[2]) : ""
    var headers = [(name: String, value: String)]()
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers.append(
        (
          String(line[..<colon]),
          String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        ))
    }
    let bodyStart = headEnd + separator.count
    let length = headers.first(where: { $0.name.lowercased() == "content-length" })
      .flatMap { Int($0.value) }
    let hasNoBody = isHEAD || status / 100 == 1 || status == 204 || status == 304
    let chunked = headers.contains {
      $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked"
    }
    if !hasNoBody, chunked {
      guard let (body, end) = try dechunk(buffered, from: headEnd + separator.count) else {
        return nil
      }
      return (RawHTTPResponse(status: status, reason: reason, headers: headers, body: body), end)
    }
    let bodyLength: Int
    if hasNoBody {
      bodyLength = 0
    } else if let length {
      guard buffered.count - bodyStart >= length else { return nil }
      bodyLength = length
    } else {
      guard atEnd else { return nil }
      bodyLength = buffered.count - bodyStart
    }
    let body = Array(buffered[bodyStart..<bodyStart + bodyLength])
    return (
      RawHTTPResponse(status: status, reason: reason, headers: headers, body: body),
      bodyStart + bodyLength
    )
  }

  /// A chunked body from `start` (decoded) and where it ends, or `nil` if more bytes are needed.
  private static func dechunk(_ buffered: [UInt8], from start: Int) throws -> ([UInt8], Int)? {
    var body: [UInt8] = []
    var position = start
    while true {
      guard let lineEnd = find([13, 10], in: Array(buffered[position...])) else { return nil }
      let line = String(decoding: buffered[position..<position + lineEnd], as: UTF8.self)
      let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
      guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
        throw RawHTTPError(description: "not a chunk size: \(line)")
      }
      position += lineEnd + 2
      if size == 0 {
        // Trailer fields, if any, then the blank line.
        guard let end = find([13, 10, 13, 10], in: Array(buffered[(position - 2)...])) else {
          return nil
        }
        return (body, position - 2 + end + 4)
      }
      guard buffered.count >= position + size + 2 else { return nil }
      body += buffered[position..<position + size]
      position += size + 2
    }
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count)
    where haystack[start..<start + needle.count].elementsEqual(needle) {
      return start
    }
    return nil
  }
}

@available(*, unavailable)
extension RawHTTPConnection: Sendable {}

/// Set once by the watchdog; read by the reader.
// `value` is only touched under `lock`, which makes the unchecked conformance sound.
private final class TimeoutFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false

  func fire() {
    lock.lock()
    value = true
    lock.unlock()
  }

  var fired: Bool {
    lock.lock()
    defer { lock.unlock() }
    return value
  }
}
