import NIOCore
import NIOHTTP1
import NIOPosix

/// The per-connection glue between NIO's HTTP/1.1 codec and the protocol front end (Kodo or
/// OSS): collects one request, asks the front end what to do, and does it (including the
/// deliberate breakages of fault injection).
///
/// It also keeps a client from holding the emulator: a connection that has not sent a complete
/// request head within the head timeout, or a complete request within the request timeout, is
/// closed, and a body over the limit gets 413 and a close at once. It reports its activity to
/// the connection registry, which closes the idlest connection when the cap is reached. Work
/// that reads files (directory buckets) runs on NIO's thread pool, never on the event loop.
final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundIn = HTTPServerResponsePart
  typealias OutboundOut = HTTPServerResponsePart

  /// Object bodies are sent in chunks of this size, each after the previous one was written.
  private static let chunkSize = 256 * 1024

  let service: any EmulatorFront
  let limits: EmulatorLimits
  /// This connection in the registry: told when bytes arrive and when answers start and end.
  private let connection: ConnectionRegistry.Entry
  var head: HTTPRequestHead?
  /// The body under way: what is in memory (all of it, or what is not yet in the spool file).
  var body: [UInt8] = []
  /// Bytes of the body received so far.
  var received = 0
  /// The largest body the front end takes for the request under way (writes take more).
  var bodyLimit = 0
  /// Whether the body under way goes to a spool file past `Payload.inMemorySize`.
  var spools = false
  /// The spool file of the body under way, once it has one.
  var spoolFile: SpoolFile?
  /// The place in its upload session's file the body under way (a part) is written to, if
  /// it has one (then `spoolFile` is that file, once the first chunk is written).
  var spoolSlot: PartSlot?
  /// What the front end wants computed as the body under way is spooled, and the pass doing it.
  var spoolDigests: DigestPass.Options = []
  var spoolPass: DigestPass?
  /// The memory of chunks written to the spool file, emptied, for the next chunks (of this body
  /// or the connection's next; at most `spareChunkCount`): spooled bodies cycle two buffers
  /// rather than allocating (and faulting in) one a chunk.
  var spareChunks: [[UInt8]] = []
  static let spareChunkCount = 2
  /// A write of the body to its spool file is under way on the thread pool.
  var spoolWriting = false
  /// The request's end arrived; it is handled once the spool file has every byte.
  var bodyEnded = false
  /// Reading from the socket is held until the spool file catches up (back-pressure).
  var readsHeld = false
  /// A read was asked for while reads were held.
  var readWanted = false
  /// Bytes of the body under way taken from the front end's budget of bodies in flight.
  var reserved = 0
  /// Counts bodies, so that a spool write finishing after its body was dropped is ignored.
  var bodyGeneration = 0
  /// The request was refused before its end (413); what is left of it is ignored.
  var discarding = false
  /// A response was started and has not ended (or never will: hang, stall). A connection being
  /// answered is never reaped for another.
  var responding = false {
    didSet { connection.setAnswering(responding) }
  }
  /// Whether the request being answered came as HTTP/1.1 or later, so its answer may be chunked.
  private var mayChunk = false
  /// Closes the connection when no complete request arrives in time.
  private var requestDeadline: Scheduled<Void>?
  /// Closes the connection when no complete request head arrives in time.
  private var headDeadline: Scheduled<Void>?

  init(service: any EmulatorFront, limits: EmulatorLimits, connection: ConnectionRegistry.Entry) {
    self.service = service
    self.limits = limits
    self.connection = connection
  }

  func channelActive(context: ChannelHandlerContext) {
    armRequestDeadline(context: context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    releaseBody()
    resetBody()
    cancelDeadlines()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    connection.touch()
    switch unwrapInboundIn(data) {
    case .head(let head):
      headDeadline?.cancel()
      headDeadline = nil
      guard !discarding, !responding else { return }
      startBody(for: head)
      if let declared = head.headers.first(name: "Content-Length").flatMap({ Int($0) }),
        declared > bodyLimit
      {
        refuseBody(context: context)
        return
      }
      self.head = head
    case .body(let buffer):
      guard !discarding, head != nil else { return }
      receive(buffer, context: context)
    case .end:
      guard !discarding, head != nil else { return }
      bodyEnded = true
      cancelDeadlines()
      if spoolFile != nil || spoolWriting {
        flushToSpool(context: context)
      } else {
        dispatch(content: .bytes(body), context: context)
      }
    }
  }

  func read(context: ChannelHandlerContext) {
    if readsHeld {
      readWanted = true
    } else {
      context.read()
    }
  }

  /// Hands the complete request to the front end: in place, or on the thread pool when it may
  /// read files.
  func dispatch(
    content: Payload, digests: SpooledDigests? = nil, slot: PartSlot? = nil,
    context: ChannelHandlerContext
  ) {
    guard let head else { return }
    self.head = nil
    responding = true
    mayChunk = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
    let request = IncomingRequest(
      head: head, content: content, spooledDigests: digests, slot: slot)
    resetBody()
    // The body's share of the budget goes back once the request is handled.
    let held = Int64(reserved)
    reserved = 0
    let keepAlive = head.isKeepAlive
    guard service.mayReadFiles(request) else {
      let decision = service.handle(request)
      service.bodyBudget.give(held)
      schedule(decision, context: context, keepAlive: keepAlive)
      return
    }
    let service = self.service
    BlockingWork.pool.runIfActive(eventLoop: context.eventLoop) {
      defer { service.bodyBudget.give(held) }
      return service.handle(request)
    }.assumeIsolated().whenComplete { result in
      switch result {
      case .success(let decision):
        self.schedule(decision, context: context, keepAlive: keepAlive)
      case .failure:
        context.close(promise: nil)
      }
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // The decoder rejected the bytes (bad syntax, headers over the limit, …). Answer 400 when no
    // other request or response is under way, then close: the stream cannot be trusted.
    if error is HTTPParserError && head == nil && !responding && !discarding {
      responding = true
      let reply = service.malformedRequestReply()
      write(reply, context: context, keepAlive: false, delivery: .normal)
    } else {
      context.close(promise: nil)
    }
  }

  /// Answers 413 before the body has arrived, then closes: reading a body that will be refused
  /// would only hold memory and the connection.
  func refuseBody(context: ChannelHandlerContext, reply: Reply? = nil) {
    discarding = true
    head = nil
    resetBody()
    releaseBody()
    cancelDeadlines()
    guard !responding else {
      context.close(promise: nil)
      return
    }
    responding = true
    write(
      reply ?? service.bodyTooLargeReply(), context: context, keepAlive: false, delivery: .normal)
  }

  /// Gives back what the body under way took from the budget of bodies in flight.
  func releaseBody() {
    guard reserved > 0 else { return }
    service.bodyBudget.give(Int64(reserved))
    reserved = 0
  }

  /// Starts the clocks for the next request: the connection is closed if its head, or the whole
  /// request, does not arrive in time.
  private func armRequestDeadline(context: ChannelHandlerContext) {
    cancelDeadlines()
    let loop = context.eventLoop.assumeIsolated()
    requestDeadline = loop.scheduleTask(
      in: .milliseconds(Int64(max(1, limits.requestTimeoutMilliseconds)))
    ) {
      guard !self.responding else { return }
      context.close(promise: nil)
    }
    headDeadline = loop.scheduleTask(
      in: .milliseconds(Int64(max(1, limits.headTimeoutMilliseconds)))
    ) {
      // A head that arrived (a pipelined one, delivered while the previous answer ended) is
      // left to the request deadline.
      guard !self.responding, self.head == nil else { return }
      context.close(promise: nil)
    }
  }

  func cancelDeadlines() {
    requestDeadline?.cancel()
    requestDeadline = nil
    headDeadline?.cancel()
    headDeadline = nil
  }

  func schedule(_ decision: Decision, context: ChannelHandlerContext, keepAlive: Bool) {
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

  func write(
    _ reply: Reply, context: ChannelHandlerContext, keepAlive: Bool, delivery: Delivery
  ) {
    var reply = reply
    if case .lead(let first, let rest) = reply.body {
      // Broken deliveries need the whole length, and HTTP/1.0 has no chunks: they get the
      // whole body, as any other.
      guard delivery == .normal, mayChunk, reply.sendsBody, !reply.status.forbidsBody else {
        reply.body = reply.body.whole
        write(reply, context: context, keepAlive: keepAlive, delivery: delivery)
        return
      }
      writeLead(reply, first: first, rest: rest, context: context, keepAlive: keepAlive)
      return
    }
    let fullLength = reply.body.length
    var status = reply.status
    var declaredLength = fullLength
    var sentLength = reply.sendsBody ? fullLength : 0
    switch delivery {
    case .normal, .stallAfterHeaders, .corruptBody:
      break
    case .truncated:
      status = .ok
      declaredLength = fullLength / 2
      sentLength = reply.sendsBody ? declaredLength : 0
    case .shortBody:
      sentLength = fullLength / 2
    }
    var headers = HTTPHeaders(reply.headers)
    if status.forbidsBody {
      // 204 and 304 end at their head: a body would be read as the start of the next answer.
      sentLength = 0
      headers.remove(name: "Content-Type")
    } else {
      headers.replaceOrAdd(name: "Content-Length", value: String(declaredLength))
    }
    if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
    context.write(
      wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
      promise: nil)
    if case .stallAfterHeaders = delivery {
      context.flush()
      return
    }
    sendBody(
      reply.body, from: 0, remaining: sentLength, corrupt: delivery == .corruptBody,
      context: context
    ) {
      if case .shortBody = delivery {
        context.flush()
        context.close(promise: nil)
        return
      }
      self.end(context: context, keepAlive: keepAlive)
    }
  }

  /// Ends the answer under way: the next request may come (or the connection closes).
  private func end(context: ChannelHandlerContext, keepAlive: Bool) {
    responding = false
    let ended = context.writeAndFlush(wrapOutboundOut(.end(nil)))
    if keepAlive && !discarding {
      armRequestDeadline(context: context)
    } else {
      ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
  }

  /// Writes the head and `first` chunked (no `Content-Length`: NIO's encoder frames the chunks),
  /// flushes them, and only then makes and writes the rest.
  private func writeLead(
    _ reply: Reply, first: ByteBuffer, rest: @Sendable () -> ByteBuffer,
    context: ChannelHandlerContext, keepAlive: Bool
  ) {
    var headers = HTTPHeaders(reply.headers)
    headers.remove(name: "Content-Length")
    if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
    context.write(
      wrapOutboundOut(
        .head(HTTPResponseHead(version: .http1_1, status: reply.status, headers: headers))),
      promise: nil)
    context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(first))), promise: nil)
    let more = rest()
    if more.readableBytes > 0 {
      context.write(wrapOutboundOut(.body(.byteBuffer(more))), promise: nil)
    }
    end(context: context, keepAlive: keepAlive)
  }

  /// Writes `remaining` bytes of `body` from `offset`, a chunk at a time, then calls `done`;
  /// with `corrupt`, the first byte is changed.
  private func sendBody(
    _ body: Reply.Body, from offset: Int64, remaining: Int64, corrupt: Bool = false,
    context: ChannelHandlerContext, done: @escaping () -> Void
  ) {
    guard remaining > 0 else {
      done()
      return
    }
    switch body {
    case .lead:
      // `write` sends a lead body itself, or makes it whole first.
      sendBody(
        body.whole, from: offset, remaining: remaining, corrupt: corrupt, context: context,
        done: done)
    case .buffer(let buffer):
      if var slice = buffer.getSlice(at: buffer.readerIndex, length: Int(remaining)) {
        if corrupt && offset == 0 { Self.changeFirstByte(of: &slice) }
        context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
      }
      done()
    case .object(let object, let start, _):
      let count = Int(min(Int64(Self.chunkSize), remaining))
      Self.read(object, at: start + offset, count: count, context: context)
        .assumeIsolated().whenComplete { result in
          guard case .success(var chunk) = result else {
            // The source failed mid-body (a file vanished): the length cannot be honoured.
            context.close(promise: nil)
            return
          }
          if corrupt && offset == 0 { Self.changeFirstByte(of: &chunk) }
          let written = context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(chunk))))
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

  /// Flips the bits of the first readable byte (a `corrupt-body` fault).
  private static func changeFirstByte(of chunk: inout ByteBuffer) {
    guard let first = chunk.getInteger(at: chunk.readerIndex, as: UInt8.self) else { return }
    chunk.setInteger(~first, at: chunk.readerIndex)
  }

  /// One chunk of an object: read in place for computed and in-memory bodies, on the thread
  /// pool for files.
  private static func read(
    _ object: ObjectBody, at position: Int64, count: Int, context: ChannelHandlerContext
  ) -> EventLoopFuture<ByteBuffer> {
    let allocator = context.channel.allocator
    guard object.readsFiles else {
      var chunk = allocator.buffer(capacity: count)
      do {
        try object.read(position, count, &chunk)
        return context.eventLoop.makeSucceededFuture(chunk)
      } catch {
        return context.eventLoop.makeFailedFuture(error)
      }
    }
    return BlockingWork.pool.runIfActive(eventLoop: context.eventLoop) {
      var chunk = allocator.buffer(capacity: count)
      try object.read(position, count, &chunk)
      return chunk
    }
  }
}

@available(*, unavailable)
extension ConnectionHandler: Sendable {}

/// The threads that run the emulator's blocking work (file reads, hashing, flushes of writes).
///
/// Not NIO's singleton pool: that one has a thread per core (two here), is shared with everything
/// else in the process, and one slow `fsync` on a busy disk held both threads, so every emulator
/// in the process stopped answering for as long. Sixteen threads, started once and kept for the
/// life of the process as the singleton is.
enum BlockingWork {
  static let pool: NIOThreadPool = {
    let pool = NIOThreadPool(numberOfThreads: 16)
    pool.start()
    return pool
  }()
}
