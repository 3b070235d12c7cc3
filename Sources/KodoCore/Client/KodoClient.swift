package import Foundation
public import StorageCore
import Synchronization

/// Kodo's read-only API: buckets, domains, bucket info, listing, stat and downloads.
///
/// Every call signs with the `Qiniu` scheme (and `X-Qiniu-Date`), retries idempotent failures
/// according to `RetryPolicy`, corrects for local clock skew, and throws only `StorageError`.
/// Requests go through StorageCore's `RequestPipeline`; this type supplies Kodo's signing, its
/// hosts and its judgement of answers.
public struct KodoClient: Sendable {
  /// How a client finds hosts, retries, tells time and reports what it does.
  public struct Options: Sendable {
    /// Host overrides; a service given here is never discovered.
    public var hosts: ServiceHosts
    /// uc hosts tried in order for bucket APIs and region queries when `hosts.uc` is not set.
    public var ucHosts: [String]
    /// The retry policy.
    public var retry: RetryPolicy
    /// The clock requests are signed with.
    public var clock: WallClock
    /// Where region answers are cached between runs (`nil`: memory only).
    public var regionCacheDirectory: String?
    /// Receives one event per HTTP attempt and clock-skew findings.
    public var observer: (@Sendable (ClientNotice) -> Void)?

    /// Options with defaults: discovery on Kodo's uc hosts, default retries, system clock.
    public init(
      hosts: ServiceHosts = ServiceHosts(), ucHosts: [String] = RegionQuery.defaultUCHosts,
      retry: RetryPolicy = RetryPolicy(), clock: WallClock = .system,
      regionCacheDirectory: String? = nil, observer: (@Sendable (ClientNotice) -> Void)? = nil
    ) {
      self.hosts = hosts
      self.ucHosts = ucHosts
      self.retry = retry
      self.clock = clock
      self.regionCacheDirectory = regionCacheDirectory
      self.observer = observer
    }
  }

  /// The credentials requests are signed with.
  public let credentials: Credentials
  /// The transport requests go through.
  public var transport: any HTTPTransport { pipeline.transport }
  /// The options.
  public let options: Options
  let pipeline: RequestPipeline
  let regions = RegionCache()

  /// A client for `credentials` over `transport`.
  public init(credentials: Credentials, transport: any HTTPTransport, options: Options = Options())
  {
    self.credentials = credentials
    self.options = options
    self.pipeline = RequestPipeline(
      transport: transport, requestIDHeader: "X-Reqid", retry: options.retry,
      clock: options.clock, observer: options.observer)
  }

  /// The clock corrected for any skew learnt from Kodo's answers: sign private URLs with it.
  public var correctedClock: WallClock { pipeline.correctedClock }
}

/// Region answers shared by copies of one client.
final class RegionCache: Sendable {
  let resolved = Mutex([String: ResolvedRegions]())
}

/// Kodo's services, by their names in `/v4/query` answers.
package enum Service: String, Sendable {
  case uc, rs, rsf, api, up
  /// The accelerated up hosts (`up.acc_domains`), never configured.
  case upAccelerated = "up_acc"
}

/// What a call is about, to word its errors.
struct CallContext {
  var what: String
  var bucket: String?
  var key: String?
}

extension HTTPResponse {
  /// Kodo's request id, `X-Reqid`.
  var requestID: String? { headers["X-Reqid"] }
}

extension KodoClient {
  /// Whether an answer must carry `X-Reqid` (API answers do; CDN downloads need not).
  enum Origin {
    case api, download
  }

  /// How a request proves who sends it.
  enum Authorization: Sendable {
    /// Not at all (region queries, downloads with a signed URL, form uploads whose token is in
    /// the body).
    case none
    /// `X-Qiniu-Date` and the `Qiniu` signature over the request (rs, rsf, uc, api).
    case qiniu
    /// `Authorization: UpToken <token>` (resumable uploads on the up host).
    case upToken(String)
  }

  /// Sends a Kodo request through the pipeline: built for each candidate base URL, signed when
  /// `signed`, judged by Kodo's rules.
  ///
  /// - Parameters:
  ///   - method: the HTTP method.
  ///   - bases: base URLs (scheme and host) tried in turn, one per attempt, wrapping around.
  ///   - path: path and query after the base URL.
  ///   - signed: whether to add `X-Qiniu-Date` and the `Qiniu` Authorization.
  ///   - context: what the call is about, for error messages.
  ///   - origin: `.api` answers must carry `X-Reqid`, and only their skew refusals may correct
  ///     the signing clock; `.download` answers (CDN domains, often plain HTTP) need not, and
  ///     never move the clock.
  ///   - body: the request body.
  ///   - send: how to send (defaults to the transport's `send`).
  ///   - mayRetry: whether a network failure may be retried (downloads decide).
  /// - Returns: the first 2xx response and the base URL that gave it.
  /// - Throws: `StorageError` for a final failure or when retries are exhausted.
  func perform(
    method: String, bases: [String], path: String, signed: Bool, context: CallContext,
    origin: Origin = .api, body: [UInt8] = [],
    send: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil,
    mayRetry: (@Sendable (StorageError) -> Bool)? = nil
  ) async throws(StorageError) -> (response: HTTPResponse, base: String) {
    try await perform(
      method: method, bases: bases, path: path, authorization: signed ? .qiniu : .none,
      context: context, origin: origin, body: .bytes(body), send: send, mayRetry: mayRetry)
  }

  /// Sends a Kodo request through the pipeline with `headers`, authorized by `authorization`.
  ///
  /// `idempotency` says whether the pipeline may repeat it: a move, a copy, a batch or a
  /// multipart complete is `.unsafe`, sent again only when the failure says it never left.
  func perform(
    method: String, bases: [String], path: String, headers: HTTPHeaders = [:],
    authorization: Authorization, context: CallContext, origin: Origin = .api,
    body: RequestBody = .empty, idempotency: Idempotency = .idempotent,
    send: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil,
    mayRetry: (@Sendable (StorageError) -> Bool)? = nil
  ) async throws(StorageError) -> (response: HTTPResponse, base: String) {
    let credentials = self.credentials
    var signer: (@Sendable (inout HTTPRequest, Date) -> Void)?
    switch authorization {
    case .none: break
    case .qiniu:
      signer = { request, now in Self.sign(&request, at: now, credentials: credentials) }
    case .upToken(let token):
      signer = { request, _ in request.headers.set("Authorization", "UpToken " + token) }
    }
    let plan = RequestPlan(
      method: method, bases: bases, path: path, headers: headers, body: body,
      idempotency: idempotency, what: context.what, sign: signer,
      judge: { response in Self.judge(response, context: context, origin: origin) },
      send: send, mayRetry: mayRetry, mayCorrectClock: origin == .api)
    return try await pipeline.perform(plan)
  }

  /// Adds `Host`, the form `Content-Type`, `X-Qiniu-Date` and the `Qiniu` Authorization.
  package static func sign(_ request: inout HTTPRequest, at now: Date, credentials: Credentials) {
    let parts = URLParts(request.url)
    request.headers.add("Host", parts.authority)
    request.headers.add("Content-Type", RequestSigning.formContentType)
    request.headers.add("X-Qiniu-Date", RequestSigning.qiniuDate(now))
    let signable = SignableRequest(
      method: request.method, url: request.url, host: parts.authority,
      contentType: RequestSigning.formContentType,
      headers: request.headers.fields.map { ($0.name, $0.value) },
      body: request.body.inMemoryBytes ?? [])
    request.headers.add(
      "Authorization", RequestSigning.qiniuAuthorization(for: signable, credentials: credentials))
  }

  /// The 5xx statuses Kodo answers when another attempt cannot help, as Qiniu's SDKs agree:
  /// 501, 509 and 579 (the upload worked but its callback failed).
  static let finalServerErrors = [501, 509, 579]

  /// Whether Kodo's `status` is worth another attempt: 5xx, but not `finalServerErrors`.
  static func isRetryable(status: Int) -> Bool {
    RetryPolicy.isRetryable(status: status, except: finalServerErrors)
  }

  /// Kodo's rules for an answer: API answers must carry `X-Reqid` (else something else, such as
  /// a proxy, answered); a 403 about skew is a clock problem; 5xx (but 501, 509, 579) and 573
  /// are worth another attempt.
  static func judge(_ response: HTTPResponse, context: CallContext, origin: Origin)
    -> AnswerVerdict
  {
    let status = response.status
    if origin == .api && response.requestID == nil {
      if Self.isRetryable(status: status) || status == 429 {
        return .failure(
          StorageError(
            .temporary,
            "something other than Kodo answered \(context.what) with HTTP \(status) (no X-Reqid header): a proxy or load balancer in front of Kodo may be failing",
            status: status),
          retry: .retry)
      }
      return .failure(
        StorageError(
          .protocolError,
          "the answer to \(context.what) did not come from Kodo (no X-Reqid header, HTTP \(status)); a proxy may be intercepting requests",
          status: status),
        retry: .retry)
    }
    if (200..<300).contains(status) { return .success }
    let failure = error(for: response, context: context)
    if status == 403, failure.serverMessage.map({ WireText.contains($0, "too skewed") }) == true {
      return .clockSkew(failure, serverTime: nil)
    }
    if status == 573 { return .failure(failure, retry: .retryRateLimited) }
    return .failure(failure, retry: Self.isRetryable(status: status) ? .retry : .final)
  }

  /// Maps a non-2xx answer to the error a person can act on.
  static func error(for response: HTTPResponse, context: CallContext) -> StorageError {
    let status = response.status
    let serverMessage = Decode.errorMessage(response.body)
    let requestID = response.requestID
    let said: String
    if let serverMessage {
      said = "\(status) \(DisplayText.escaped(serverMessage))"
    } else if response.body.isEmpty {
      said = "HTTP \(status)"
    } else {
      said = "HTTP \(status) with a non-JSON body"
    }
    func make(_ kind: StorageError.Kind, _ message: String, hint: StorageError.Hint? = nil)
      -> StorageError
    {
      StorageError(
        kind, message, status: status, serverMessage: serverMessage, requestID: requestID,
        hint: hint)
    }
    let bucket = context.bucket.map { DisplayText.quoted($0) } ?? "the bucket"
    switch status {
    case 612:
      if let key = context.key {
        return make(
          .notFound, "no such key \(DisplayText.quoted(key)) in bucket \(bucket) (\(said))")
      }
      return make(.notFound, "\(context.what): not found (\(said))")
    case 631:
      return make(
        .notFound, "no such bucket \(bucket) (\(said))",
        hint: context.bucket.map { .noSuchBucket($0) })
    case 404:
      return make(.notFound, "\(context.what): not found (\(said))")
    case 401:
      return make(
        .unauthorized, "Kodo refused the credentials for \(context.what) (\(said))",
        hint: .checkCredentials(service: "Kodo", credential: .both))
    case 403:
      if serverMessage.map({ WireText.contains($0, "too skewed") }) == true {
        return make(
          .unauthorized,
          "Kodo refused \(context.what) because the local clock is wrong (\(said)); correct the system time"
        )
      }
      return make(.unauthorized, "Kodo denied access to \(context.what) (\(said))")
    case 419:
      return make(.unauthorized, "the account is frozen (\(said))")
    case 640:
      return make(
        .invalidInput, "Kodo rejected the marker for \(context.what) (\(said))",
        hint: .restartListing)
    case 400:
      return make(.invalidInput, "Kodo rejected \(context.what) as invalid (\(said))")
    case 614:
      return make(.exists, "\(context.what): the destination already exists (\(said))")
    case 608:
      return make(
        .preconditionFailed, "\(context.what): the object changed since it was read (\(said))")
    case 573:
      return make(.temporary, "Kodo is rate-limiting \(context.what) (\(said))")
    default:
      if Self.isRetryable(status: status) {
        return make(.temporary, "Kodo failed to answer \(context.what) (\(said))")
      }
      return make(.rejected, "Kodo rejected \(context.what) (\(said))")
    }
  }
}
