import NIOCore
import NIOHTTP1
import OSSCore
import StorageCore

/// The Aliyun OSS front end: answers as OSS does, over the store, counters and fault engine
/// the Kodo front end shares (see `EmulatorFront`).
final class OSSFront: EmulatorFront {
  let service: EmulatorService
  let verifier: OSSVerifier
  let owner: OSSOwner
  let checksums = ChecksumMemo()
  private let nonce: UInt32
  private let counter = Locked<UInt64>(0)
  /// Whether any bucket reads files (then object and listing requests run off the event loops).
  private let hasFileBuckets: Bool
  /// Whether only loopback `Host` values are answered (see `LoopbackHost`).
  private let requiresLoopbackHost: Bool

  init(service: EmulatorService) {
    self.service = service
    let configuration = service.configuration
    let credentials = Credentials(
      accessKey: configuration.credentials.accessKey,
      secretKey: String(decoding: configuration.credentials.secretKeyBytes, as: UTF8.self),
      securityToken: configuration.securityToken)
    verifier = OSSVerifier(region: configuration.region) { accessKey in
      accessKey == credentials.accessKey ? credentials : nil
    }
    // A 16-digit account ID, stable for the access key.
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in credentials.accessKey.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    let id = String(1_000_000_000_000_000 + hash % 9_000_000_000_000_000)
    owner = OSSOwner(id: id, displayName: id)
    nonce = UInt32.random(in: 0...UInt32.max)
    hasFileBuckets = service.buckets.values.contains { $0.source.readsFiles }
    requiresLoopbackHost = LoopbackHost.isLoopback(configuration.host)
  }

  var configuration: EmulatorConfiguration { service.configuration }

  /// A fresh request ID: 24 upper-case hex digits (the process nonce and a counter).
  func nextRequestID() -> String {
    let sequence = counter.withLock { value -> UInt64 in
      value &+= 1
      return value
    }
    let nonceText = String(nonce, radix: 16, uppercase: true)
    let sequenceText = String(sequence, radix: 16, uppercase: true)
    return String(repeating: "0", count: 8 - nonceText.count) + nonceText
      + String(repeating: "0", count: 16 - sequenceText.count) + sequenceText
  }

  // MARK: Handling

  func handle(_ request: IncomingRequest) -> Decision {
    let requestID = nextRequestID()
    let method = request.head.method
    let isHEAD = method == .HEAD
    let target = RequestTarget(request.head.uri)
    if requiresLoopbackHost,
      !LoopbackHost.accepts(host: request.head.headers.first(name: "Host"), target: target)
    {
      _ = service.admit(.unknown)
      let failure = OSSFailure(
        status: 403, code: "AccessDenied",
        message: "The emulator listens on a loopback address and answers only Host 127.0.0.1, "
          + "localhost or [::1].")
      return Decision(
        action: .reply(
          reply(
            failure, requestID: requestID, now: configuration.clock.unixSeconds, isHEAD: isHEAD),
          .normal))
    }
    if let control = WireText.dropping(prefix: "/_emulator/", from: target.path) {
      _ = service.admit(Route.control(control))
      return Decision(action: .reply(service.control(control, request, reqid: requestID), .normal))
    }
    let now = configuration.clock.unixSeconds
    let headers = StorageCore.HTTPHeaders(request.head.headers.map { ($0.name, $0.value) })
    let rawTarget = String(target.path) + (target.query.isEmpty ? "" : "?" + target.query)
    guard !WireText.contains(request.head.uri, "\u{FFFD}"),
      let incoming = OSSIncomingRequest(
        method: method.rawValue, pathStyleTarget: rawTarget, headers: headers)
    else {
      _ = service.admit(.unknown)
      let failure = OSSFailure(
        status: 400, code: "InvalidURI", message: "The specified URI is invalid.")
      return Decision(
        action: .reply(reply(failure, requestID: requestID, now: now, isHEAD: isHEAD), .normal))
    }
    let operation = OSSOperation(incoming)
    let route = operation.route
    let fault = service.admit(route)
    let delay = route.delayMilliseconds(configuration)
    var clock = now
    var delivery = Delivery.normal
    switch fault {
    case .drop: return Decision(action: .drop, delayMilliseconds: delay)
    case .hang: return Decision(action: .hang)
    case .status(let status, let body):
      var answer: Reply
      if let body {
        var buffer = ByteBuffer()
        buffer.writeString(body)
        // Sent as given: XML when it looks like XML, else the control API's JSON.
        let isXML = body.first == "<"
        answer = Reply(
          status: .kodo(status),
          headers: commonHeaders(requestID, now: now, xml: isXML)
            + (isXML ? [] : [("Content-Type", "application/json")]),
          body: .buffer(buffer), sendsBody: !isHEAD)
      } else {
        answer = reply(
          Self.injected(status), requestID: requestID, now: now, isHEAD: isHEAD)
      }
      return Decision(action: .reply(answer, .normal), delayMilliseconds: delay)
    case .html:
      var buffer = ByteBuffer()
      buffer.writeString(EmulatorService.proxyErrorPage)
      let answer = Reply(
        status: .badGateway,
        headers: commonHeaders(requestID, now: now, xml: false) + [("Content-Type", "text/html")],
        body: .buffer(buffer), sendsBody: !isHEAD)
      return Decision(action: .reply(answer, .normal), delayMilliseconds: delay)
    case .truncated: delivery = .truncated
    case .shortBody: delivery = .shortBody
    case .stallAfterHeaders: delivery = .stallAfterHeaders
    case .corruptBody: delivery = .corruptBody
    case .skewedDate(let seconds): clock = now &+ seconds
    case .noReqid, .wrongDigest, nil: break
    }
    var answer: Reply
    do {
      answer = try self.answer(operation, incoming, request, requestID: requestID, now: clock)
    } catch {
      answer = reply(error, requestID: requestID, now: clock, isHEAD: isHEAD)
    }
    if case .noReqid = fault {
      answer.headers.removeAll { $0.0 == "x-oss-request-id" }
    }
    if case .wrongDigest = fault { answer.changeDigest() }
    return Decision(action: .reply(answer, delivery), delayMilliseconds: delay)
  }

  func mayReadFiles(_ request: IncomingRequest) -> Bool {
    guard !WireText.hasPrefix(RequestTarget(request.head.uri).path, "/_emulator/") else {
      return false
    }
    // Writes hash their bodies and may flush files: never on an event loop.
    return hasFileBuckets || request.head.method != .GET && request.head.method != .HEAD
  }

  var bodyBudget: MemoryBudget { service.bodyBudget }

  func maximumBodySize(for head: HTTPRequestHead) -> Int {
    head.method == .PUT || head.method == .POST
      ? configuration.limits.maximumWriteBodySize : configuration.limits.maximumBodySize
  }

  var spool: SpoolDirectory { service.spool }

  /// PutObject and UploadPart bodies (an UploadPartCopy has none).
  func spoolsBody(for head: HTTPRequestHead) -> Bool {
    head.method == .PUT
  }

  /// PutObject's and UploadPart's digests (what their answers carry).
  func spoolDigests(for head: HTTPRequestHead) -> DigestPass.Options {
    head.method == .PUT ? .oss : []
  }

  /// An UploadPart's body (not a copy's) goes to its place in its session's file.
  func partSlot(for head: HTTPRequestHead, size: Int64) -> PartSlot? {
    guard head.method == .PUT, head.headers["x-oss-copy-source"].isEmpty,
      let query = QueryParameters(RequestTarget(head.uri).query),
      let id = query.first("uploadId"),
      let number = query.first("partNumber").flatMap({ Int($0) }), (1...10_000).contains(number)
    else { return nil }
    return service.uploads.slot(upload: id, part: number, size: size)
  }

  func unstorableBodyReply() -> Reply {
    _ = service.admit(.unknown)
    return reply(
      Self.failure(.io, key: ""), requestID: nextRequestID(),
      now: configuration.clock.unixSeconds, isHEAD: false)
  }

  func bodyTooLargeReply() -> Reply {
    _ = service.admit(.unknown)
    let failure = OSSFailure(
      status: 413, code: "EntityTooLarge",
      message: "Your proposed upload exceeds the maximum allowed size.")
    return reply(
      failure, requestID: nextRequestID(), now: configuration.clock.unixSeconds, isHEAD: false)
  }

  func malformedRequestReply() -> Reply {
    _ = service.admit(.unknown)
    let failure = OSSFailure(
      status: 400, code: "InvalidRequest", message: "The request is malformed.")
    return reply(
      failure, requestID: nextRequestID(), now: configuration.clock.unixSeconds, isHEAD: false)
  }

  private func answer(
    _ operation: OSSOperation, _ incoming: OSSIncomingRequest, _ request: IncomingRequest,
    requestID: String, now: Int64
  ) throws(OSSFailure) -> Reply {
    let method = request.head.method
    guard method == .GET || method == .HEAD || operation.isWrite
    else {
      throw OSSFailure(
        status: 405, code: "MethodNotAllowed",
        message: "The specified method is not allowed against this resource.",
        fields: ["Method": request.head.method.rawValue, "ResourceType": "Object"])
    }
    var store: BucketStore?
    if let name = operation.bucket {
      guard let found = service.buckets[name] else { throw Self.noSuchBucket(name) }
      store = found
    }
    try authorize(operation, incoming, bucket: store, now: now)
    let context = AnswerContext(
      incoming: incoming, requestID: requestID, now: now,
      sendsBody: request.head.method != .HEAD)
    switch operation {
    case .listBuckets: return try listBuckets(context)
    case .notImplemented:
      throw OSSFailure(
        status: 501, code: "NotImplemented",
        message: "kodo-emulator does not implement this API.")
    case .bucketInfo:
      return xml(OSSAnswers.bucketInfoXML(summary(of: store, full: true)), context)
    case .bucketLocation:
      return xml(OSSAnswers.bucketLocationXML("oss-" + configuration.region), context)
    case .bucketACL:
      return xml(aclXML(store?.isPrivate == true ? "private" : "public-read"), context)
    case .objectACL(_, let key):
      guard let store, store.source.index(of: Array(key.utf8)) != nil else {
        throw OSSFailure(
          status: 404, code: "NoSuchKey", message: "The specified key does not exist.",
          ec: "0026-00000001", fields: ["Key": key])
      }
      // An object without its own ACL follows its bucket's.
      return xml(aclXML("default"), context)
    case .listObjects: return try listObjects(store, context, v2: false)
    case .listObjectsV2: return try listObjects(store, context, v2: true)
    case .headObject(_, let key): return try object(store, key: key, context, mode: .head)
    case .objectMeta(_, let key): return try object(store, key: key, context, mode: .meta)
    case .getObject(_, let key): return try object(store, key: key, context, mode: .get)
    default:
      guard let store else { throw Self.noSuchBucket(operation.bucket ?? "") }
      return try write(operation, store: store, request: request, context)
    }
  }

  // MARK: Replies

  /// What an answer needs to know about its request.
  struct AnswerContext {
    var incoming: OSSIncomingRequest
    var requestID: String
    var now: Int64
    var sendsBody: Bool
  }

  /// `x-oss-request-id`, `Date` and `Server`, which every answer carries, and for XML bodies
  /// their content type.
  func commonHeaders(_ requestID: String, now: Int64, xml: Bool) -> [(String, String)] {
    var headers = [
      ("Server", "AliyunOSS"), ("Date", HTTPDate.format(unixSeconds: now)),
      ("x-oss-request-id", requestID),
    ]
    if xml { headers.append(("Content-Type", "application/xml")) }
    return headers
  }

  func xml(_ bytes: [UInt8], _ context: AnswerContext) -> Reply {
    var buffer = ByteBuffer()
    buffer.writeBytes(bytes)
    return Reply(
      status: .ok, headers: commonHeaders(context.requestID, now: context.now, xml: true),
      body: .buffer(buffer), sendsBody: context.sendsBody)
  }

  /// A GetBucketAcl or GetObjectAcl answer.
  func aclXML(_ grant: String) -> [UInt8] {
    var writer = XMLWriter()
    writer.open("AccessControlPolicy")
    writer.open("Owner")
    writer.element("ID", owner.id)
    writer.element("DisplayName", owner.displayName)
    writer.close("Owner")
    writer.open("AccessControlList")
    writer.element("Grant", grant)
    writer.close("AccessControlList")
    writer.close("AccessControlPolicy")
    return writer.bytes
  }

  /// An error answer: the XML `<Error>` body, or for HEAD no body and the same document in
  /// base64 in `x-oss-err`; `x-oss-ec` carries the detailed code.
  func reply(_ failure: OSSFailure, requestID: String, now: Int64, isHEAD: Bool) -> Reply {
    var fields = failure.fields
    if let ec = failure.ec {
      fields["RecommendDoc"] = "https://api.aliyun.com/troubleshoot?q=" + ec
    }
    let body = OSSErrorBody(
      code: failure.code, message: failure.message, requestID: requestID,
      hostID: service.authority, ec: failure.ec, fields: fields)
    var headers = commonHeaders(requestID, now: now, xml: true)
    if let ec = failure.ec { headers.append(("x-oss-ec", ec)) }
    var buffer = ByteBuffer()
    if isHEAD {
      headers.append(("x-oss-err", OSSAnswers.errorHeaderValue(body)))
    } else {
      buffer.writeBytes(OSSAnswers.errorXML(body))
    }
    return Reply(
      status: .kodo(failure.status), headers: headers, body: .buffer(buffer), sendsBody: !isHEAD)
  }

  static func noSuchBucket(_ name: String) -> OSSFailure {
    OSSFailure(
      status: 404, code: "NoSuchBucket", message: "The specified bucket does not exist.",
      ec: "0015-00000101", fields: ["BucketName": name])
  }

  /// The error a fault or `--fail-rate` injects with `status`.
  static func injected(_ status: Int) -> OSSFailure {
    switch status {
    case 503:
      OSSFailure(
        status: 503, code: "ServiceUnavailable", message: "Please reduce your request rate.")
    case 500, 599:
      OSSFailure(
        status: status, code: "InternalError",
        message: "We encountered an internal error. Please try again.")
    case 429, 573:
      OSSFailure(
        status: status, code: "TooManyRequests", message: "Please reduce your request rate.")
    default:
      OSSFailure(status: status, code: "InjectedFault", message: FailRate.message(for: status))
    }
  }
}
