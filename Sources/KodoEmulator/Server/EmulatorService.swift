import Foundation
import KodoCore
import NIOCore
import NIOHTTP1
import StorageCore
import Synchronization

/// One request, complete.
struct IncomingRequest: Sendable {
  var head: HTTPRequestHead
  /// The body: in memory, or for an upload past `Payload.inMemorySize` a spool file (only
  /// requests the front's `spoolsBody` names are spooled).
  var content: Payload
  /// A spooled body's digests, computed as it was written (those the front's `spoolDigests`
  /// names), so that it is not read back to hash it.
  var spooledDigests: SpooledDigests?
  /// The place in an upload session's file a part's body was written to (`content` is that
  /// range), held for as long as this or the part it becomes lives.
  var slot: PartSlot?

  init(
    head: HTTPRequestHead, content: Payload, spooledDigests: SpooledDigests? = nil,
    slot: PartSlot? = nil
  ) {
    self.head = head
    self.content = content
    self.spooledDigests = spooledDigests
    self.slot = slot
  }

  /// The digests `options` names of the body: those computed as it was spooled when they
  /// include them, else read now.
  func contentDigests(_ options: DigestPass.Options) throws(StoreFailure) -> PartDigests {
    if let spooledDigests, spooledDigests.options.isSuperset(of: options) {
      return spooledDigests.digests
    }
    return try DigestPass.of(content, options)
  }

  init(head: HTTPRequestHead, body: [UInt8]) {
    self.init(head: head, content: .bytes(body))
  }

  /// The body of a request whose body stays in memory (every one but an upload's); a spooled
  /// body is read by chunks through `content`, never here.
  var body: [UInt8] {
    if case .bytes(let bytes) = content { return bytes }
    return []
  }
}

/// The digests of a spooled body, computed as it was written to its spool file.
struct SpooledDigests: Sendable {
  /// What was asked for.
  var options: DigestPass.Options
  var digests: PartDigests
}

/// The emulator's request handling, independent of the network: a request in, a decision out.
///
/// Immutable configuration plus one locked block of counters and scheduled faults, so any number
/// of event loops can share it.
final class EmulatorService: Sendable {
  private struct State {
    var stats = EmulatorStats()
    var faults: [EmulatorFault] = []
    var requestCounter: UInt64 = 0
    var failRateSequence: UInt64 = 0
  }

  let configuration: EmulatorConfiguration
  let buckets: [String: BucketStore]
  let bucketNames: [String]
  private let hostForURLs: String
  private let boundPort = Mutex(0)
  private let state = Mutex(State())
  private let reqidNonce: UInt32

  /// Whether any bucket reads files, so that list, stat and download requests must run off the
  /// event loops.
  private let hasFileBuckets: Bool
  /// Whether the server is bound to a loopback address, so that only loopback `Host` values are
  /// answered (a defence against DNS rebinding: a web page whose name resolves to 127.0.0.1
  /// cannot read buckets or schedule faults through the visitor's browser).
  private let requiresLoopbackHost: Bool

  /// Unfinished multipart uploads, both protocols.
  let uploads: UploadSessions
  /// The request bodies being received, on every connection and both fronts.
  let bodyBudget: MemoryBudget
  let spool: SpoolDirectory

  init(
    configuration: EmulatorConfiguration, buckets: [BucketStore], memory: MemoryBudget,
    spool: SpoolDirectory
  ) {
    self.configuration = configuration
    self.spool = spool
    uploads = UploadSessions(memory: memory, ttlSeconds: configuration.uploadTTLSeconds)
    bodyBudget = MemoryBudget(limit: configuration.limits.maximumBodiesInFlight)
    var table = [String: BucketStore]()
    for bucket in buckets { table[bucket.name] = bucket }
    self.buckets = table
    bucketNames = table.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    hostForURLs =
      WireText.contains(configuration.host, byte: ":")
      ? "[" + configuration.host + "]" : configuration.host
    reqidNonce = UInt32.random(in: 0...UInt32.max)
    hasFileBuckets = buckets.contains { $0.source.readsFiles }
    requiresLoopbackHost = LoopbackHost.isLoopback(configuration.host)
  }

  /// Whether handling `request` may read files (then it runs on a thread pool).
  func mayReadFiles(_ request: IncomingRequest) -> Bool {
    switch Route(path: RequestTarget(request.head.uri).path) {
    // Writes hash their bodies and may flush files: never on an event loop.
    case .formUpload, .upload, .write: return true
    case .list, .stat, .download: return hasFileBuckets
    default: return false
    }
  }

  func maximumBodySize(for head: HTTPRequestHead) -> Int {
    switch Route(path: RequestTarget(head.uri).path) {
    case .formUpload, .upload, .write: configuration.limits.maximumWriteBodySize
    default: configuration.limits.maximumBodySize
    }
  }

  /// A resumable v2 part's digests: its MD5 and qetag (its answer), its SHA-1 (the object's
  /// hash).
  static let v2PartDigests = DigestPass.Options.kodo.union(.wholeSHA1)

  func spoolDigests(for head: HTTPRequestHead) -> DigestPass.Options {
    guard head.method == .PUT, case .upload(let path) = Route(path: RequestTarget(head.uri).path),
      WireText.hasPrefix(path, "/buckets/")
    else { return [] }
    return Self.v2PartDigests
  }

  /// A resumable v2 part (`PUT /buckets/B/objects/K/uploads/ID/N`) goes to its place in its
  /// session's file.
  func partSlot(for head: HTTPRequestHead, size: Int64) -> PartSlot? {
    guard head.method == .PUT, case .upload(let path) = Route(path: RequestTarget(head.uri).path),
      WireText.hasPrefix(path, "/buckets/")
    else { return nil }
    let parts = KeySegments.segments(of: path)
    guard parts.count == 8, parts[3] == "objects", parts[5] == "uploads",
      let number = Int(parts[7]), (1...10_000).contains(number)
    else { return nil }
    return uploads.slot(upload: String(parts[6]), part: number, size: size)
  }

  func spoolsBody(for head: HTTPRequestHead) -> Bool {
    switch Route(path: RequestTarget(head.uri).path) {
    case .formUpload: true
    // A v2 part, a v1 block's chunk.
    case .upload(let path):
      head.method == .PUT || WireText.hasPrefix(path, "/mkblk/")
        || WireText.hasPrefix(path, "/bput/")
    default: false
    }
  }

  /// Now, as Kodo writes put times: 100 ns units since the Unix epoch.
  var putTimeNow: Int64 {
    Int64(configuration.clock.now().timeIntervalSince1970 * 10_000_000)
  }

  /// Records the port bound; called once, before the server is handed out.
  func setPort(_ port: Int) {
    boundPort.withLock { $0 = port }
  }

  /// `HOST:PORT` (brackets around an IPv6 host), as domains are written.
  var authority: String { hostForURLs + ":" + String(boundPort.withLock { $0 }) }

  /// `http://HOST:PORT`.
  var baseURL: String { "http://" + authority }

  /// A bucket's download domain: `http://HOST:PORT/dl/BUCKET`.
  func downloadDomain(for bucket: String) -> String {
    baseURL + "/dl/" + bucket
  }

  // MARK: Counters and faults

  var stats: EmulatorStats { state.withLock { $0.stats } }

  func resetStats() {
    state.withLock { $0.stats = EmulatorStats() }
  }

  func connectionAccepted() {
    state.withLock { $0.stats.connections += 1 }
  }

  func schedule(_ fault: EmulatorFault) {
    state.withLock { $0.faults.append(fault) }
  }

  @discardableResult
  func clearFaults() -> Int {
    state.withLock { state in
      // Counts come from the control API and may be as large as Int allows: saturate.
      let count = state.faults.reduce(0) { sum, fault in
        let (total, overflow) = sum.addingReportingOverflow(max(0, fault.count))
        return overflow ? Int.max : total
      }
      state.faults.removeAll()
      return count
    }
  }

  var pendingFaults: [EmulatorFault] { state.withLock { $0.faults } }

  /// A fresh request id: the process nonce and a counter, URL-safe base64 (16 characters).
  func nextReqid() -> String {
    let counter = state.withLock { state -> UInt64 in
      state.requestCounter += 1
      return state.requestCounter
    }
    var bytes = [UInt8]()
    bytes.reserveCapacity(12)
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: reqidNonce >> UInt32(shift)))
    }
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: counter >> UInt64(shift)))
    }
    return URLSafeBase64.encode(bytes)
  }

  /// Counts a request and takes the fault that applies to it, if any.
  func admit(_ route: Route) -> EmulatorFault.Mode? {
    state.withLock { state in
      switch route {
      case .control: state.stats.control += 1
      case .unknown: state.stats.other += 1
      case .query: state.stats.query += 1
      case .buckets, .bucketsV2: state.stats.buckets += 1
      case .bucketInfo: state.stats.bucketInfo += 1
      case .domains: state.stats.domains += 1
      case .list: state.stats.list += 1
      case .stat: state.stats.stat += 1
      case .download: state.stats.download += 1
      case .formUpload, .upload: state.stats.upload += 1
      case .write: state.stats.write += 1
      }
      if case .control = route { return nil }
      state.stats.total += 1
      var mode: EmulatorFault.Mode?
      if let endpoint = route.faultEndpoint,
        let position = state.faults.firstIndex(where: {
          $0.endpoint == .any || $0.endpoint == endpoint
        })
      {
        mode = state.faults[position].mode
        state.faults[position].count -= 1
        if state.faults[position].count <= 0 { state.faults.remove(at: position) }
      }
      if route.isFailRateEligible && configuration.failRate > 0 {
        // Every eligible request takes a sequence number, faulted or not, so the outcome of
        // request n depends only on the seed and n.
        let sequence = state.failRateSequence
        state.failRateSequence += 1
        if mode == nil {
          mode = FailRate.outcome(
            seed: configuration.seed, sequence: sequence, rate: configuration.failRate)
        }
      }
      if mode != nil { state.stats.faults += 1 }
      return mode
    }
  }

  // MARK: Handling

  /// Decides what to answer to `request`.
  func handle(_ request: IncomingRequest) -> Decision {
    let reqid = nextReqid()
    let uri = request.head.uri
    // The decoder turns bytes that are not UTF-8 into U+FFFD; such a target cannot name anything.
    guard !WireText.contains(uri, "\u{FFFD}") else {
      _ = admit(.unknown)
      return Decision(action: .reply(error(400, "invalid request URI", reqid: reqid), .normal))
    }
    let target = RequestTarget(uri)
    if requiresLoopbackHost,
      !LoopbackHost.accepts(host: request.head.headers.first(name: "Host"), target: target)
    {
      _ = admit(.unknown)
      return Decision(
        action: .reply(
          error(
            403,
            "the emulator listens on a loopback address and answers only Host 127.0.0.1, "
              + "localhost or [::1]", reqid: reqid), .normal))
    }
    let route = Route(path: target.path)
    let fault = admit(route)
    if case .control(let name) = route {
      return Decision(action: .reply(control(name, request, reqid: reqid), .normal))
    }
    let delay = route.delayMilliseconds(configuration)
    var delivery = Delivery.normal
    switch fault {
    case .drop: return Decision(action: .drop, delayMilliseconds: delay)
    case .hang: return Decision(action: .hang)
    case .status(let code, let body):
      let reply: Reply
      if let body {
        var buffer = ByteBuffer()
        buffer.writeString(body)
        reply = json(code, buffer, reqid: reqid)
      } else {
        reply = error(code, FailRate.message(for: code), reqid: reqid)
      }
      return Decision(action: .reply(reply, .normal), delayMilliseconds: delay)
    case .html:
      var buffer = ByteBuffer()
      buffer.writeString(Self.proxyErrorPage)
      let reply = Reply(
        status: .badGateway,
        headers: commonHeaders(reqid: reqid) + [("Content-Type", "text/html")],
        body: .buffer(buffer))
      return Decision(action: .reply(reply, .normal), delayMilliseconds: delay)
    case .truncated: delivery = .truncated
    case .shortBody: delivery = .shortBody
    case .stallAfterHeaders: delivery = .stallAfterHeaders
    case .corruptBody: delivery = .corruptBody
    case .noReqid, .skewedDate, .wrongDigest, nil: break
    }
    var reply = answer(route, target: target, request: request, reqid: reqid)
    if case .wrongDigest = fault { reply.changeDigest() }
    if case .noReqid = fault {
      reply.headers.removeAll { $0.0 == "X-Reqid" }
    }
    if case .skewedDate(let seconds) = fault {
      reply.setDate(configuration.clock.unixSeconds &+ seconds)
    }
    return Decision(action: .reply(reply, delivery), delayMilliseconds: delay)
  }

  private func answer(
    _ route: Route, target: RequestTarget, request: IncomingRequest, reqid: String
  )
    -> Reply
  {
    guard let query = QueryParameters(target.query) else {
      return error(400, "invalid argument", reqid: reqid)
    }
    let method = request.head.method
    switch route {
    case .download(let bucket, let key):
      guard method == .GET || method == .HEAD else {
        return error(405, "method not allowed", reqid: reqid)
      }
      return download(bucket: bucket, key: key, request: request, reqid: reqid)
    case .query:
      guard method == .GET else { return error(405, "method not allowed", reqid: reqid) }
      return regionQuery(query, reqid: reqid)
    case .formUpload, .upload:
      return upload(route, request: request, reqid: reqid)
    case .unknown, .control:
      return error(404, "no such API", reqid: reqid)
    default:
      break
    }
    guard method == .GET || method == .POST else {
      return error(405, "method not allowed", reqid: reqid)
    }
    switch authenticate(request) {
    case .badToken: return error(401, "bad token", reqid: reqid)
    case .skewed: return error(403, "request time too skewed", reqid: reqid)
    case .ok: break
    }
    switch route {
    case .buckets: return bucketList(reqid: reqid)
    case .bucketsV2: return bucketListV2(reqid: reqid)
    case .bucketInfo: return bucketInfo(query, reqid: reqid)
    case .domains: return domains(query, reqid: reqid)
    case .list: return list(query, reqid: reqid)
    case .stat(let entry): return stat(entry, reqid: reqid)
    case .write(let path): return write(path, request: request, reqid: reqid)
    default: return error(404, "no such API", reqid: reqid)
    }
  }

  // MARK: Reply helpers

  /// The page of the `html` fault: what a proxy in front of the service sends.
  static let proxyErrorPage =
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    + "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    + "</body>\r\n</html>\r\n"

  /// `X-Reqid`, `Date` and `Server`, which every answer carries.
  func commonHeaders(reqid: String) -> [(String, String)] {
    [
      ("X-Reqid", reqid), ("X-Log", "kodo-emulator"),
      ("Date", HTTPDate.format(unixSeconds: configuration.clock.unixSeconds)),
      ("Server", "kodo-emulator/" + KodoVersion.current),
    ]
  }

  func json(_ status: Int, _ body: ByteBuffer, reqid: String) -> Reply {
    Reply(
      status: .kodo(status),
      headers: commonHeaders(reqid: reqid) + [("Content-Type", "application/json")],
      body: .buffer(body))
  }

  func error(_ status: Int, _ message: String, reqid: String) -> Reply {
    json(status, JSONBody.error(message), reqid: reqid)
  }

  /// The answer to a request the HTTP decoder rejected (bad syntax, oversized headers).
  func malformedRequestReply() -> Reply {
    _ = admit(.unknown)
    return error(400, "malformed request", reqid: nextReqid())
  }

  /// The answer to a request whose body is over the limit, sent before the body is read.
  func bodyTooLargeReply() -> Reply {
    _ = admit(.unknown)
    return error(413, "request entity too large", reqid: nextReqid())
  }

  func unstorableBodyReply() -> Reply {
    _ = admit(.unknown)
    let result = OperationResult.store(.io)
    return error(result.code, result.message ?? "", reqid: nextReqid())
  }
}
