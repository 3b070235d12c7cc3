import NIOCore
import NIOHTTP1

/// The per-connection glue between NIO's HTTP/1.1 codec and the protocol front end (Kodo or
/// OSS): collects one request, asks the front end what to do, and does it (including the
/// deliberate breakages of fault injection).
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  /// Object bodies are sent in chunks of this size, each after the previous one was written.
  private static let chunkSize = 256 * 1024

  private let service: any EmulatorFront
  private var head: HTTPRequestHead?
  private var body: [UInt8] = []
  private var bodyTooLarge = false
  /// A response was started and has not ended (or never will: hang, stall).
  private var responding = false

  init(service: any EmulatorFront) {
    self.service = service
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
      body.removeAll(keepingCapacity: true)
      bodyTooLarge = false
    case .body(var buffer):
      guard !bodyTooLarge else { return }
      if body.count + buffer.readableBytes > EmulatorService.maximumBodySize {
        bodyTooLarge = true
        body = []
      } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
        body.append(contentsOf: bytes)
      }
    case .end:
      guard let head else { return }
      self.head = nil
      let request = IncomingRequest(head: head, body: body, bodyTooLarge: bodyTooLarge)
      let decision = service.handle(request)
      responding = true
      let keepAlive = head.isKeepAlive
      if decision.delayMilliseconds > 0 {
        context.eventLoop.assumeIsolated().scheduleTask(
          in: .milliseconds(Int64(decision.delayMilliseconds))
        ) {
          self.perform(decision.action, context: context, keepAlive: keepAlive)
        }
      } else {
        perform(decision.action, context: context, keepAlive: keepAlive)
      }
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // The decoder rejected the bytes (bad syntax, headers over the limit, …). Answer 400 when no
    // other request or response is under way, then close: the stream cannot be trusted.
    if error is HTTPParserError && head == nil && !responding {
      responding = true
      let reply = service.malformedRequestReply()
      write(reply, context: context, keepAlive: false, delivery: .normal)
    } else {
      context.close(promise: nil)
    }
  }

  private func perform(_ action: Action, context: ChannelHandlerContext, keepAlive: Bool) {
    switch action {
    case .drop:
      context.close(promise: nil)
    case .hang:
      break  // never answer; shutdown closes the connection
    case .reply(let reply, let delivery):
      write(reply, context: context, keepAlive: keepAlive, delivery: delivery)
    }
  }

  private func write(
    _ reply: Reply, context: ChannelHandlerContext, keepAlive: Bool, delivery: Delivery
  ) {
    let fullLength = reply.body.length
    var status = reply.status
    var declaredLength = fullLength
    var sentLength = reply.sendsBody ? fullLength : 0
    switch delivery {
    case .normal, .stallAfterHeaders:
      break
    case .truncated:
      status = .ok
      declaredLength = fullLength / 2
      sentLength = reply.sendsBody ? declaredLength : 0
    case .shortBody:
      sentLength = fullLength / 2
    }
    var headers = HTTPHeaders(reply.headers)
    headers.replaceOrAdd(name: "Content-Length", value: String(declaredLength))
    if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
    context.write(
      wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
      promise: nil)
    if case .stallAfterHeaders = delivery {
      context.flush()
      return
    }
    sendBody(reply.body, from: 0, remaining: sentLength, context: context) {
      if case .shortBody = delivery {
        context.flush()
        context.close(promise: nil)
        return
      }
      self.responding = false
      let ended = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
      if !keepAlive {
        ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
      }
    }
  }

  /// Writes `remaining` bytes of `body` from `offset`, a chunk at a time, then calls `done`.
  private func sendBody(
    _ body: Reply.Body, from offset: Int64, remaining: Int64, context: ChannelHandlerContext,
    done: @escaping () -> Void
  ) {
    guard remaining > 0 else {
      done()
      return
    }
    switch body {
    case .buffer(let buffer):
      if let slice = buffer.getSlice(at: buffer.readerIndex, length: Int(remaining)) {
        context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
      }
      done()
    case .object(let object, let start, _):
      let count = Int(min(Int64(Self.chunkSize), remaining))
      var chunk = context.channel.allocator.buffer(capacity: count)
      do {
        try object.read(start + offset, count, &chunk)
      } catch {
        // The source failed mid-body (a file vanished): the length cannot be honoured.
        context.close(promise: nil)
        return
      }
      let written = context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))))
      guard remaining > Int64(count) else {
        done()
        return
      }
      written.assumeIsolated().whenComplete { result in
        switch result {
        case .success:
          self.sendBody(
            body, from: offset + Int64(count), remaining: remaining - Int64(count),
            context: context, done: done)
        case .failure:
          context.close(promise: nil)
        }
      }
    }
  }
}

@available(*, unavailable)
extension ConnectionHandler: Sendable {}
