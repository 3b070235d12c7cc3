import Foundation
import KodoCore
import NIOCore
import NIOPosix
public import StorageCore
import Synchronization

/// A loopback HTTP/1.1 server whose every answer comes from a script, including wrong ones.
///
/// It listens on `127.0.0.1` on a free port and parses requests itself from the raw bytes: the
/// head up to `\r\n\r\n`, then a `Content-Length` body or a chunked one (decoded).
/// Connections are kept alive and requests on one connection are answered in order. Each request
/// is recorded with its exact bytes, and then the script decides what happens, one ``Action`` per
/// request: a proper response (optionally gzip-encoded), raw bytes, closing the connection, never
/// answering, answering with headers and then stalling, or promising a longer body than it sends.
/// This makes it a fixture both for the transport's own tests and for "bad answer" tests of
/// anything built on a transport.
///
/// ```swift
/// try await ScriptedHTTPServer.withServer { request in
///   request.path == "/ok" ? .respond(.text("hello")) : .close
/// } body: { server in
///   let response = try await transport.send(HTTPRequest(url: server.url("/ok")))
///   #expect(server.acceptedConnections == 1)
/// }
/// ```
///
/// Prefer ``withServer(script:body:)``, which always shuts the server down; a server made with
/// ``start(script:)`` must be stopped with ``shutdown()``.
public final class ScriptedHTTPServer: Sendable {
  /// One request as it arrived.
  public struct Request: Sendable {
    /// The request's exact bytes: the head through `\r\n\r\n`, then the body.
    public let raw: [UInt8]
    /// The method from the request line, e.g. `GET`.
    public let method: String
    /// The request target exactly as sent: path and query, still percent-encoded.
    public let target: String
    /// The protocol version from the request line, e.g. `HTTP/1.1`.
    public let version: String
    /// The header fields in the order they arrived, names as sent.
    public let headers: HTTPHeaders
    /// The body (`Content-Length` bytes, or a chunked body decoded).
    public let body: [UInt8]
    /// Which accepted connection carried the request, counting from 1.
    public let connection: Int

    /// The target up to `?`.
    public var path: String {
      String(target.prefix(while: { $0 != "?" }))
    }

    /// The raw query after `?`, or `nil` without one.
    public var query: String? {
      guard let question = target.firstIndex(of: "?") else { return nil }
      return String(target[target.index(after: question)...])
    }

    /// The head (request line and header lines, without the final blank line) as text.
    public var head: String {
      String(decoding: raw.prefix(raw.count - body.count), as: UTF8.self)
    }
  }

  /// A complete, well-formed response.
  public struct Response: Sendable {
    /// The status code.
    public var status: Int
    /// The reason phrase; a standard one for common codes when not given.
    public var reason: String
    /// Header fields, sent in order. `Content-Length` is added unless a `Content-Length` or
    /// `Transfer-Encoding` field is given, and `Content-Encoding: gzip` when ``gzip`` is set.
    public var headers: HTTPHeaders
    /// The body, before any gzip encoding. Not sent in answer to `HEAD` (its length still is).
    public var body: [UInt8]
    /// Whether to send the body gzip-encoded (deflate "stored" blocks: a valid gzip stream that
    /// every decoder must inflate).
    public var gzip: Bool
    /// Whether to close the connection after the response.
    public var closeConnection: Bool

    /// A response from its parts.
    public init(
      status: Int = 200, reason: String? = nil, headers: HTTPHeaders = [:], body: [UInt8] = [],
      gzip: Bool = false, closeConnection: Bool = false
    ) {
      self.status = status
      self.reason = reason ?? ScriptedHTTPServer.reasonPhrase(status)
      self.headers = headers
      self.body = body
      self.gzip = gzip
      self.closeConnection = closeConnection
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: Int = 200, headers: HTTPHeaders = [:])
      -> Response
    {
      var fields = headers
      if fields["Content-Type"] == nil { fields.add("Content-Type", "text/plain; charset=utf-8") }
      return Response(status: status, headers: fields, body: Array(text.utf8))
    }

    /// An `application/json` response, as Kodo sends answers and errors.
    public static func json(_ json: String, status: Int = 200, headers: HTTPHeaders = [:])
      -> Response
    {
      var fields = headers
      if fields["Content-Type"] == nil { fields.add("Content-Type", "application/json") }
      return Response(status: status, headers: fields, body: Array(json.utf8))
    }
  }

  /// What the server does with one request.
  public indirect enum Action: Sendable {
    /// Sends a complete response; the connection stays open unless the response says otherwise.
    case respond(Response)
    /// Sends exactly these bytes, then closes the connection (or keeps it, when `close` is false).
    case raw([UInt8], close: Bool = true)
    /// Closes the connection without answering.
    case close
    /// Never answers; the connection stays open until the client gives up or the server stops.
    case hang
    /// Sends the status line and header fields (with `Content-Length: contentLength` when given),
    /// then nothing more, keeping the connection open.
    case headersThenStall(status: Int = 200, headers: HTTPHeaders = [:], contentLength: Int? = nil)
    /// Sends a response announcing `Content-Length: declaredLength` but only `body`, then closes.
    case truncatedBody(
      status: Int = 200, headers: HTTPHeaders = [:], body: [UInt8], declaredLength: Int)
    /// Sends the status line and header fields (no `Content-Length`: the body ends when the
    /// connection does), then `chunk` again and again, `every` apart (as fast as the client reads
    /// when `nil`), for ever: an endless or a trickling body. Stops when the client goes away.
    case stream(status: Int = 200, headers: HTTPHeaders = [:], chunk: [UInt8], every: Duration?)
    /// Waits, then does `action`.
    case delayed(Duration, Action)
    /// Runs `decide` (off the event loop; it may wait for other requests, as a barrier does),
    /// then does the action it returns. Later requests on the same connection wait meanwhile.
    case deferred(@Sendable () async -> Action)
    /// Sends `first` (raw bytes: the head and the start of a body), then, once `rest` returns
    /// (off the event loop; it may wait for other requests), the bytes it gives; the connection
    /// stays open. An answer whose end is held back.
    case split([UInt8], rest: @Sendable () async -> [UInt8])
  }

  /// Decides the answer to a request. Called on the server's event loop, once per request.
  public typealias Script = @Sendable (Request) -> Action

  private let group: MultiThreadedEventLoopGroup
  private let channel: any Channel
  private let state: ServerState

  /// The port the server listens on (on `127.0.0.1`).
  public let port: Int

  private init(
    group: MultiThreadedEventLoopGroup, channel: any Channel, state: ServerState, port: Int
  ) {
    self.group = group
    self.channel = channel
    self.state = state
    self.port = port
  }

  /// Starts a server that answers with `script`. Stop it with ``shutdown()``.
  public static func start(script: @escaping Script) async throws -> ScriptedHTTPServer {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let state = ServerState()
    do {
      let channel = try await ServerBootstrap(group: group)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              ConnectionHandler(state: state, script: script))
          }
        }
        .bind(host: "127.0.0.1", port: 0).get()
      guard let port = channel.localAddress?.port else {
        try? await channel.close()
        throw ServerError(message: "the server socket has no port")
      }
      return ScriptedHTTPServer(group: group, channel: channel, state: state, port: port)
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
  }

  /// Runs `body` with a server answering with `script`, and shuts the server down afterwards
  /// (also when `body` throws).
  public static func withServer<Result: Sendable>(
    script: @escaping Script, body: (ScriptedHTTPServer) async throws -> Result
  ) async throws -> Result {
    let server = try await start(script: script)
    do {
      let result = try await body(server)
      try await server.shutdown()
      return result
    } catch {
      try? await server.shutdown()
      throw error
    }
  }

  /// Closes the listening socket and every connection, and stops the event loop.
  public func shutdown() async throws {
    try? await channel.close()
    try await group.shutdownGracefully()
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// `baseURL` followed by `pathAndQuery` (which should start with `/`), unchanged.
  public func url(_ pathAndQuery: String) -> String { baseURL + pathAndQuery }

  /// How many connections the server has accepted.
  public var acceptedConnections: Int { state.storage.withLock { $0.accepted } }

  /// Every request received so far, in arrival order.
  public var requests: [Request] { state.storage.withLock { $0.requests } }

  /// Waits until at least `count` requests have arrived (polling every few milliseconds).
  ///
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  public func waitForRequests(_ count: Int) async throws {
    while requests.count < count {
      try await Task.sleep(for: .milliseconds(5))
    }
  }

  /// A standard reason phrase for `status`, or `Status`.
  static func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 304: "Not Modified"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    default: "Status"
    }
  }
}

/// A failure to start the server.
struct ServerError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// Counters and the request log, shared by every connection of one server.
private final class ServerState: Sendable {
  struct Storage {
    var accepted = 0
    var requests: [ScriptedHTTPServer.Request] = []
  }

  let storage = Mutex(Storage())

  /// Counts a new connection and returns its number, from 1.
  func accept() -> Int {
    storage.withLock {
      $0.accepted += 1
      return $0.accepted
    }
  }

  func record(_ request: ScriptedHTTPServer.Request) {
    storage.withLock { $0.requests.append(request) }
  }
}

/// One connection: splits the bytes into requests and carries out the script's actions, one
/// request at a time.
private final class ConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let state: ServerState
  private let script: ScriptedHTTPServer.Script
  private var connection = 0
  private var pending: [UInt8] = []
  /// An action is in progress (or the connection hangs or is closing); later requests wait.
  private var busy = false

  init(state: ServerState, script: @escaping ScriptedHTTPServer.Script) {
    self.state = state
    self.script = script
  }

  func channelActive(context: ChannelHandlerContext) {
    connection = state.accept()
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    if let bytes = buffer.readBytes(length: buffer.readableBytes) { pending += bytes }
    serveWaitingRequests(context: context)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  private func serveWaitingRequests(context: ChannelHandlerContext) {
    while !busy, let request = nextRequest() {
      state.record(request)
      perform(script(request), for: request, context: context)
    }
  }

  /// Takes one complete request off the front of `pending`, if there is one.
  private func nextRequest() -> ScriptedHTTPServer.Request? {
    let terminator: [UInt8] = Array("\r\n\r\n".utf8)
    guard let headEnd = pending.firstRange(of: terminator)?.lowerBound else { return nil }
    let headText = String(decoding: pending[..<headEnd], as: UTF8.self)
    var lines = headText.components(separatedBy: "\r\n")
    let requestLine = lines.isEmpty ? "" : lines.removeFirst()
    let words = requestLine.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    var headers = HTTPHeaders()
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      headers.add(String(line[..<colon]), value)
    }
    let bodyStart = headEnd + terminator.count
    let total: Int
    let body: [UInt8]
    if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
      guard let (decoded, end) = Self.chunkedBody(pending, from: bodyStart) else { return nil }
      total = end
      body = decoded
    } else {
      let bodyLength = max(0, Int(headers["Content-Length"] ?? "0") ?? 0)
      total = bodyStart + bodyLength
      guard pending.count >= total else { return nil }
      body = Array(pending[bodyStart..<total])
    }
    let raw = Array(pending[..<total])
    pending.removeFirst(total)
    return ScriptedHTTPServer.Request(
      raw: raw, method: words.first ?? "", target: words.count > 1 ? words[1] : "",
      version: words.count > 2 ? words[2] : "", headers: headers, body: body,
      connection: connection)
  }

  /// A complete chunked body starting at `start` of `bytes`, decoded, and the index after it;
  /// `nil` while it is incomplete. Chunk extensions and trailers are skipped.
  private static func chunkedBody(_ bytes: [UInt8], from start: Int) -> ([UInt8], Int)? {
    let lineEnd: [UInt8] = Array("\r\n".utf8)
    var body: [UInt8] = []
    var index = start
    while true {
      guard let sizeEnd = bytes[index...].firstRange(of: lineEnd)?.lowerBound else { return nil }
      let sizeText = String(decoding: bytes[index..<sizeEnd], as: UTF8.self)
      let digits = sizeText.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
      guard let size = Int(digits, radix: 16), size >= 0 else { return nil }
      index = sizeEnd + lineEnd.count
      if size == 0 {
        // Trailer fields, then an empty line.
        while true {
          guard let end = bytes[index...].firstRange(of: lineEnd)?.lowerBound else { return nil }
          let empty = end == index
          index = end + lineEnd.count
          if empty { return (body, index) }
        }
      }
      guard bytes.count >= index + size + lineEnd.count else { return nil }
      body += bytes[index..<(index + size)]
      index += size + lineEnd.count
    }
  }

  private func perform(
    _ action: ScriptedHTTPServer.Action, for request: ScriptedHTTPServer.Request,
    context: ChannelHandlerContext
  ) {
    switch action {
    case .respond(let response):
      let bytes = Self.encode(response, omitBody: request.method == "HEAD")
      if response.closeConnection {
        writeThenClose(bytes, context: context)
      } else {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
      }
    case .raw(let bytes, let close):
      if close {
        writeThenClose(bytes, context: context)
      } else {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
      }
    case .close:
      busy = true
      context.close(promise: nil)
    case .hang:
      busy = true
    case .headersThenStall(let status, let headers, let contentLength):
      busy = true
      var fields = headers
      if let contentLength { fields.set("Content-Length", String(contentLength)) }
      let head = Self.head(status: status, reason: ScriptedHTTPServer.reasonPhrase(status), fields)
      context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: head)), promise: nil)
    case .truncatedBody(let status, let headers, let body, let declaredLength):
      var fields = headers
      fields.set("Content-Length", String(declaredLength))
      let head = Self.head(status: status, reason: ScriptedHTTPServer.reasonPhrase(status), fields)
      writeThenClose(head + body, context: context)
    case .stream(let status, let headers, let chunk, let every):
      busy = true
      var fields = headers
      fields.set("Connection", "close")
      let head = Self.head(status: status, reason: ScriptedHTTPServer.reasonPhrase(status), fields)
      context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: head)), promise: nil)
      streamForever(ByteBuffer(bytes: chunk), every: every, context: context)
    case .delayed(let delay, let next):
      busy = true
      let (seconds, attoseconds) = delay.components
      let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
      context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) {
        self.busy = false
        self.perform(next, for: request, context: context)
        self.serveWaitingRequests(context: context)
      }
    case .deferred(let decide):
      performLater(decide, for: request, context: context)
    case .split(let first, let rest):
      context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: first)), promise: nil)
      performLater({ .raw(await rest(), close: false) }, for: request, context: context)
    }
  }

  private func performLater(
    _ decide: @escaping @Sendable () async -> ScriptedHTTPServer.Action,
    for request: ScriptedHTTPServer.Request, context: ChannelHandlerContext
  ) {
    busy = true
    let loop = context.eventLoop
    let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
    Task {
      let next = await decide()
      loop.execute {
        let (handler, context) = bound.value
        handler.busy = false
        handler.perform(next, for: request, context: context)
        handler.serveWaitingRequests(context: context)
      }
    }
  }

  /// Writes `chunk` after each previous write completes (and `every` later), until a write fails.
  private func streamForever(
    _ chunk: ByteBuffer, every: Duration?, context: ChannelHandlerContext
  ) {
    let written = context.writeAndFlush(wrapOutboundOut(chunk))
    written.assumeIsolated().whenComplete { result in
      guard case .success = result else {
        context.close(promise: nil)
        return
      }
      guard let every else {
        self.streamForever(chunk, every: nil, context: context)
        return
      }
      let (seconds, attoseconds) = every.components
      let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
      context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) {
        self.streamForever(chunk, every: every, context: context)
      }
    }
  }

  private func writeThenClose(_ bytes: [UInt8], context: ChannelHandlerContext) {
    busy = true
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)))
      .assumeIsolated()
      .whenComplete { _ in context.close(promise: nil) }
  }

  /// The bytes of a complete response.
  private static func encode(_ response: ScriptedHTTPServer.Response, omitBody: Bool) -> [UInt8] {
    var fields = response.headers
    let body = response.gzip ? Gzip.stored(response.body) : response.body
    if response.gzip, fields["Content-Encoding"] == nil { fields.add("Content-Encoding", "gzip") }
    if fields["Content-Length"] == nil, fields["Transfer-Encoding"] == nil {
      fields.add("Content-Length", String(body.count))
    }
    if response.closeConnection, fields["Connection"] == nil { fields.add("Connection", "close") }
    return head(status: response.status, reason: response.reason, fields) + (omitBody ? [] : body)
  }

  private static func head(status: Int, reason: String, _ fields: HTTPHeaders) -> [UInt8] {
    var text = "HTTP/1.1 \(status) \(reason)\r\n"
    for field in fields { text += field.name + ": " + field.value + "\r\n" }
    text += "\r\n"
    return Array(text.utf8)
  }
}

/// Minimal gzip (RFC 1952) with deflate "stored" blocks: no compression, but a stream every
/// gzip decoder must accept, which is all the tests need.
enum Gzip {
  /// `bytes` as a gzip stream.
  static func stored(_ bytes: [UInt8]) -> [UInt8] {
    var output: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
    var offset = 0
    repeat {
      let length = min(65_535, bytes.count - offset)
      let isFinal = offset + length == bytes.count
      output.append(isFinal ? 0x01 : 0x00)
      let size = UInt16(length)
      output += [UInt8(size & 0xFF), UInt8(size >> 8), UInt8(~size & 0xFF), UInt8(~size >> 8)]
      output += bytes[offset..<(offset + length)]
      offset += length
    } while offset < bytes.count
    output += littleEndian(crc32(bytes))
    output += littleEndian(UInt32(truncatingIfNeeded: bytes.count))
    return output
  }

  private static func littleEndian(_ value: UInt32) -> [UInt8] {
    [
      UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF),
      UInt8(value >> 24),
    ]
  }

  private static let crcTable: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }

  /// The CRC-32 (IEEE) that gzip's trailer carries.
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
  }
}
