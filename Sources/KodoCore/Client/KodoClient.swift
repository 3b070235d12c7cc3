import Foundation
public import StorageCore
import Synchronization

/// Kodo's read-only API: buckets, domains, bucket info, listing, stat and downloads.
///
/// Every call signs with the `Qiniu` scheme (and `X-Qiniu-Date`), retries idempotent failures
/// according to `RetryPolicy`, corrects for local clock skew, and throws only `StorageError`.
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
  public let transport: any HTTPTransport
  /// The options.
  public let options: Options
  let state: ClientState

  /// A client for `credentials` over `transport`.
  public init(credentials: Credentials, transport: any HTTPTransport, options: Options = Options())
  {
    self.credentials = credentials
    self.transport = transport
    self.options = options
    self.state = ClientState()
  }

  /// The clock corrected for any skew learnt from Kodo's answers: sign private URLs with it.
  public var correctedClock: WallClock {
    let offset = state.skew.withLock { $0.offset }
    return offset == 0 ? options.clock : options.clock.offset(by: TimeInterval(offset))
  }
}

/// Mutable state shared by copies of one client.
final class ClientState: Sendable {
  struct Skew {
    var offset: Int64 = 0
    var reported = false
  }
  let skew = Mutex(Skew())
  let regions = Mutex([String: ResolvedRegions]())
}

/// Kodo's services.
enum Service: String {
  case uc, rs, rsf, api
}

/// What a call is about, to word its errors.
struct CallContext {
  var what: String
  var bucket: String?
  var key: String?
}

extension KodoClient {
  /// Whether an answer must carry `X-Reqid` (API answers do; CDN downloads need not).
  enum Origin {
    case api, download
  }

  /// Sends a request built for each candidate base URL, retrying per the policy.
  ///
  /// - Parameters:
  ///   - method: the HTTP method.
  ///   - bases: base URLs (scheme and host) tried in turn, one per attempt, wrapping around.
  ///   - path: path and query after the base URL.
  ///   - signed: whether to add `X-Qiniu-Date` and the `Qiniu` Authorization.
  ///   - context: what the call is about, for error messages.
  ///   - origin: `.api` answers must carry `X-Reqid`; `.download` answers need not.
  ///   - body: the request body.
  ///   - send: how to send (defaults to the transport's `send`).
  /// - Returns: the first 2xx response and the base URL that gave it.
  /// - Throws: `StorageError` for a final failure or when retries are exhausted.
  func perform(
    method: String, bases: [String], path: String, signed: Bool, context: CallContext,
    origin: Origin = .api, body: [UInt8] = [],
    send: ((HTTPRequest) async throws -> HTTPResponse)? = nil
  ) async throws(StorageError) -> (response: HTTPResponse, base: String) {
    precondition(!bases.isEmpty, "perform needs at least one base URL")
    let policy = options.retry
    var lastError: StorageError?
    var skewRetried = false
    var attempt = 0
    while attempt < policy.maxAttempts {
      attempt += 1
      if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
      let base = trimmedBase(bases[(attempt - 1) % bases.count])
      let request = buildRequest(method: method, url: base + path, signed: signed, body: body)
      let started = ContinuousClock.now
      var response: HTTPResponse?
      var failure: StorageError
      var rateLimited = false
      do {
        let sent = try await (send ?? transport.send)(request)
        response = sent
        let skewChanged = learnSkew(from: sent)
        if origin == .api && sent.requestID == nil {
          failure = StorageError(
            .protocolError,
            "the answer to \(context.what) did not come from Kodo (no X-Reqid header, HTTP \(sent.status)); a proxy may be intercepting requests",
            status: sent.status)
        } else if (200..<300).contains(sent.status) {
          report(
            request, response: sent, started: started, attempt: attempt, error: nil,
            willRetry: false)
          return (sent, base)
        } else {
          failure = Self.error(for: sent, context: context)
          if sent.status == 403, failure.serverMessage?.contains("too skewed") == true,
            !skewRetried,
            skewChanged || learnSkew(from: sent, force: true)
          {
            skewRetried = true
            report(
              request, response: sent, started: started, attempt: attempt, error: failure,
              willRetry: true)
            attempt -= 1
            continue
          }
          guard RetryPolicy.isRetryable(status: sent.status) else {
            report(
              request, response: sent, started: started, attempt: attempt, error: failure,
              willRetry: false)
            throw failure
          }
          rateLimited = sent.status == 573
        }
      } catch let error as StorageError {
        if response != nil { throw error }
        failure = error
        guard error.kind == .temporary || error.kind == .unavailable else {
          report(
            request, response: nil, started: started, attempt: attempt, error: error,
            willRetry: false)
          throw error
        }
      } catch let error as DownloadFailure {
        report(
          request, response: nil, started: started, attempt: attempt, error: error.error,
          willRetry: false)
        throw error.error
      } catch {
        throw StorageError(.protocolError, "\(context.what) failed: \(error)")
      }
      lastError = failure
      let willRetry = attempt < policy.maxAttempts
      report(
        request, response: response, started: started, attempt: attempt, error: failure,
        willRetry: willRetry)
      if willRetry {
        do {
          try await policy.sleep(policy.delay(afterAttempt: attempt, rateLimited: rateLimited))
        } catch {
          throw StorageError(.cancelled, "cancelled")
        }
      }
    }
    throw Self.exhausted(lastError, attempts: attempt, context: context)
  }

  /// The final error after the last attempt failed with a retryable failure.
  static func exhausted(_ last: StorageError?, attempts: Int, context: CallContext) -> StorageError
  {
    guard var error = last else {
      return StorageError(.temporary, "\(context.what) failed")
    }
    let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
    switch error.kind {
    case .unavailable:
      error.message += " (gave up after \(tries))"
    case .protocolError:
      error.message += " (gave up after \(tries))"
    default:
      error.kind = .temporary
      error.message =
        "\(context.what) kept failing, gave up after \(tries): \(error.message); try again later"
    }
    return error
  }

  func buildRequest(method: String, url: String, signed: Bool, body: [UInt8]) -> HTTPRequest {
    var request = HTTPRequest(method: method, url: url, body: body)
    guard signed else { return request }
    let parts = URLParts(url)
    request.headers.add("Host", parts.authority)
    request.headers.add("Content-Type", RequestSigning.formContentType)
    request.headers.add("X-Qiniu-Date", RequestSigning.qiniuDate(correctedClock.now()))
    let signable = SignableRequest(
      method: method, url: url, host: parts.authority, contentType: RequestSigning.formContentType,
      headers: request.headers.fields.map { ($0.name, $0.value) }, body: body)
    request.headers.add(
      "Authorization", RequestSigning.qiniuAuthorization(for: signable, credentials: credentials))
    return request
  }

  private func report(
    _ request: HTTPRequest, response: HTTPResponse?, started: ContinuousClock.Instant, attempt: Int,
    error: StorageError?, willRetry: Bool
  ) {
    guard let observer = options.observer else { return }
    var headers = request.headers
    if let authorization = headers["Authorization"] {
      headers.set("Authorization", RequestEvent.redactAuthorization(authorization))
    }
    observer(
      .request(
        RequestEvent(
          method: request.method, url: request.url, headers: headers, status: response?.status,
          requestID: response?.requestID, duration: ContinuousClock.now - started, attempt: attempt,
          error: error, willRetry: willRetry)))
  }

  /// Compares Kodo's `Date` header with the local clock; past a minute's difference, signs with
  /// the corrected time from now on. Returns whether the offset changed.
  @discardableResult
  func learnSkew(from response: HTTPResponse, force: Bool = false) -> Bool {
    guard let dateHeader = response.headers["Date"], let serverDate = HTTPDate.parse(dateHeader)
    else {
      return false
    }
    let local = Int64(options.clock.now().timeIntervalSince1970.rounded())
    let offset = serverDate - local
    var notify = false
    let changed = state.skew.withLock { skew -> Bool in
      guard abs(offset) > 60 || (force && offset != skew.offset) else { return false }
      guard abs(offset - skew.offset) > 5 else { return false }
      skew.offset = offset
      if !skew.reported {
        skew.reported = true
        notify = true
      }
      return true
    }
    if notify { options.observer?(.clockSkew(seconds: offset)) }
    return changed
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
    func make(_ kind: StorageError.Kind, _ message: String) -> StorageError {
      StorageError(
        kind, message, status: status, serverMessage: serverMessage, requestID: requestID)
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
      return make(.notFound, "no such bucket \(bucket) (\(said))")
    case 404:
      return make(.notFound, "\(context.what): not found (\(said))")
    case 401:
      return make(
        .unauthorized,
        "Kodo refused the credentials for \(context.what) (\(said)); check accessKey and secretKey")
    case 403:
      if serverMessage?.contains("too skewed") == true {
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
        .invalidInput,
        "Kodo rejected the marker for \(context.what) (\(said)); list again without --marker")
    case 400:
      return make(.invalidInput, "Kodo rejected \(context.what) as invalid (\(said))")
    case 573:
      return make(.temporary, "Kodo is rate-limiting \(context.what) (\(said))")
    default:
      if RetryPolicy.isRetryable(status: status) {
        return make(.temporary, "Kodo failed to answer \(context.what) (\(said))")
      }
      return make(.rejected, "Kodo rejected \(context.what) (\(said))")
    }
  }
}
