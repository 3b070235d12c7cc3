public import Foundation
import Synchronization

/// How a provider judges one answer.
public enum AnswerVerdict: Sendable {
  /// The answer is the result.
  case success
  /// The answer is a failure; `retry` says whether another attempt may help.
  case failure(StorageError, retry: RetryDecision)
  /// The service refused the request because the local clock is off. The pipeline corrects its
  /// clock from `serverTime` (Unix seconds) or the answer's `Date`, and signs and sends once
  /// more; if that cannot help, `error` is final.
  case clockSkew(StorageError, serverTime: Int64?)
}

/// Whether a failed attempt is worth another.
public enum RetryDecision: Sendable {
  /// No: the failure is final.
  case final
  /// Yes, after the usual backoff.
  case retry
  /// Yes, after a longer backoff: the service is limiting the request rate.
  case retryRateLimited
}

/// Whether sending a request twice does the same as sending it once, which decides whether the
/// pipeline may repeat it after a failure.
public enum Idempotency: Sendable, Equatable {
  /// It changes nothing (a read: `GET`, `HEAD`, a listing or a stat, also by `POST`).
  case safe
  /// It changes something, but repeating it changes nothing more (a part upload that replaces
  /// the part of that number, a put of the same bytes, a delete).
  case idempotent
  /// Repeating it may do harm or fail where the first succeeded (Kodo's `mkfile` and multipart
  /// complete, `/batch`, a move): sent again only when the failure says it never left
  /// (``StorageError/neverSent``).
  case unsafe
}

/// One logical request: where it goes, how it is signed, and how its answer is judged.
public struct RequestPlan: Sendable {
  /// `GET`, `HEAD`, `POST`…
  public var method: String
  /// Base URLs (scheme, host, optional port and path) tried in turn, one per attempt.
  public var bases: [String]
  /// Path and query after the base URL, already encoded.
  public var path: String
  /// Header fields to send before signing.
  public var headers: HTTPHeaders
  /// The body. A stream is never sent again once an attempt read a byte of it.
  public var body: RequestBody
  /// Whether the request may be repeated after a failure (default ``Idempotency/idempotent``).
  public var idempotency: Idempotency
  /// What the request is about, for messages: "the listing of bucket \"photos\"".
  public var what: String
  /// Signs a request at the given time (the corrected clock's), or `nil` for none.
  public var sign: (@Sendable (inout HTTPRequest, Date) -> Void)?
  /// Judges an answer.
  public var judge: @Sendable (HTTPResponse) -> AnswerVerdict
  /// How to send (default: the transport's `send`); downloads stream to a descriptor instead.
  public var send: (@Sendable (HTTPRequest) async throws -> HTTPResponse)?
  /// Whether a failure of the network (before a complete answer) may be retried; downloads say
  /// no once bytes were written that cannot be taken back.
  public var mayRetry: (@Sendable (StorageError) -> Bool)?

  /// Whether another attempt may follow one that failed with `error` (the retry gate): never for
  /// a stream an attempt read from; for an ``Idempotency/unsafe`` request only when it never
  /// left; otherwise when the transport's ``mayRetry`` agrees (or, for an answer, always).
  func mayRepeat(after error: StorageError, answered: Bool) -> Bool {
    guard body.canBeSent else { return false }
    if idempotency == .unsafe { return error.neverSent && !answered }
    return answered || (mayRetry?(error) ?? true)
  }
  /// A plan from its parts, with a body in memory.
  public init(
    method: String, bases: [String], path: String, headers: HTTPHeaders = [:],
    body: [UInt8] = [], idempotency: Idempotency = .idempotent, what: String,
    sign: (@Sendable (inout HTTPRequest, Date) -> Void)?,
    judge: @escaping @Sendable (HTTPResponse) -> AnswerVerdict,
    send: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil,
    mayRetry: (@Sendable (StorageError) -> Bool)? = nil
  ) {
    self.init(
      method: method, bases: bases, path: path, headers: headers, body: .bytes(body),
      idempotency: idempotency, what: what, sign: sign, judge: judge, send: send,
      mayRetry: mayRetry)
  }

  /// A plan from its parts.
  public init(
    method: String, bases: [String], path: String, headers: HTTPHeaders = [:],
    body: RequestBody, idempotency: Idempotency = .idempotent, what: String,
    sign: (@Sendable (inout HTTPRequest, Date) -> Void)?,
    judge: @escaping @Sendable (HTTPResponse) -> AnswerVerdict,
    send: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil,
    mayRetry: (@Sendable (StorageError) -> Bool)? = nil
  ) {
    self.method = method
    self.bases = bases
    self.path = path
    self.headers = headers
    self.body = body
    self.idempotency = idempotency
    self.what = what
    self.sign = sign
    self.judge = judge
    self.send = send
    self.mayRetry = mayRetry
  }
}

/// Sends requests through a transport, in three steps: a signer signs each attempt with the
/// clock corrected for any skew learnt from the service (`sendSigned`); a skew corrector sends
/// that attempt once more, signed again, when the service says the clock is off
/// (`sendCorrectingSkew`); a retrier repeats attempts that the provider's judgement and the retry
/// policy allow, rotating through the base URLs (`perform`). Every attempt is reported to an
/// observer. The one request path of the package; providers supply only the signing and the
/// judgement.
public final class RequestPipeline: Sendable {
  /// The transport requests go through.
  public let transport: any HTTPTransport
  /// The retry policy.
  public let retry: RetryPolicy
  /// The local clock.
  public let clock: WallClock
  /// Receives one event per attempt and clock-skew findings.
  public let observer: (@Sendable (ClientNotice) -> Void)?
  /// The answer header that carries the service's request id (`X-Reqid`, `x-oss-request-id`).
  public let requestIDHeader: String
  private let skew = Mutex(Skew())

  private struct Skew {
    var offset: Int64 = 0
    var reported = false
  }

  /// A pipeline over `transport` for a service whose answers name their request id in
  /// `requestIDHeader`.
  public init(
    transport: any HTTPTransport, requestIDHeader: String, retry: RetryPolicy = RetryPolicy(),
    clock: WallClock = .system, observer: (@Sendable (ClientNotice) -> Void)? = nil
  ) {
    self.transport = transport
    self.requestIDHeader = requestIDHeader
    self.retry = retry
    self.clock = clock
    self.observer = observer
  }

  /// The clock corrected for any skew learnt from the service's answers.
  public var correctedClock: WallClock {
    let offset = skew.withLock { $0.offset }
    return offset == 0 ? clock : clock.offset(by: TimeInterval(offset))
  }

  /// Sends `plan` until an attempt succeeds, a failure is final, or the attempts run out.
  ///
  /// The retrier: each attempt goes to the next base URL, through the skew corrector
  /// (`sendCorrectingSkew`); a retryable failure waits out the policy's backoff before the next.
  ///
  /// - Returns: the successful answer and the base URL that gave it.
  /// - Throws: `StorageError`: the final failure, or, after the last attempt, the last
  ///   retryable one reworded to say that retries were exhausted.
  public func perform(_ plan: RequestPlan) async throws(StorageError) -> (
    response: HTTPResponse, base: String
  ) {
    precondition(!plan.bases.isEmpty, "a request plan needs at least one base URL")
    var skewCorrected = false
    var lastError: StorageError?
    for attempt in 1...retry.maxAttempts {
      let base = Self.trimmedBase(plan.bases[(attempt - 1) % plan.bases.count])
      let failure: RetryableFailure
      switch try await sendCorrectingSkew(
        plan, base: base, attempt: attempt, corrected: &skewCorrected)
      {
      case .success(let response): return (response, base)
      case .retryable(let retryable): failure = retryable
      }
      lastError = failure.error
      let willRetry = attempt < retry.maxAttempts
      report(
        failure.request, failure.response, failure.started, attempt, failure.error,
        willRetry: willRetry)
      if willRetry {
        do {
          try await retry.sleep(
            retry.delay(afterAttempt: attempt, rateLimited: failure.rateLimited))
        } catch {
          throw StorageError(.cancelled, "cancelled")
        }
      }
    }
    throw Self.exhausted(lastError, attempts: retry.maxAttempts, what: plan.what)
  }

  /// A failed attempt that another may mend, with what its report needs.
  private struct RetryableFailure {
    var request: HTTPRequest
    var response: HTTPResponse?
    var started: ContinuousClock.Instant
    var error: StorageError
    var rateLimited: Bool
  }

  /// What one attempt came to, for the retrier. Final failures are thrown.
  private enum AttemptOutcome {
    case success(HTTPResponse)
    case retryable(RetryableFailure)
  }

  /// What one signed sending came to, for the skew corrector.
  private enum SendOutcome {
    case decided(AttemptOutcome)
    /// The service said the clock is off; `learnt` is whether its answer already moved the
    /// clock's correction.
    case clockSkew(
      StorageError, serverTime: Int64?, response: HTTPResponse, learnt: Bool,
      report: (request: HTTPRequest, started: ContinuousClock.Instant))
  }

  /// The skew corrector: one signed attempt; when the service says the local clock is off and
  /// its answer corrects the clock, the same attempt once more, signed with the corrected time
  /// (once per request: `corrected` remembers it). The re-sent attempt keeps its number: it does
  /// not count against the retries.
  private func sendCorrectingSkew(
    _ plan: RequestPlan, base: String, attempt: Int, corrected: inout Bool
  ) async throws(StorageError) -> AttemptOutcome {
    while true {
      switch try await sendSigned(plan, base: base, attempt: attempt) {
      case .decided(let outcome):
        return outcome
      case .clockSkew(let error, let serverTime, let response, let learnt, let sent):
        if !corrected && plan.body.canBeSent
          && (learnt || learnSkew(from: response, serverTime: serverTime))
        {
          corrected = true
          report(sent.request, response, sent.started, attempt, error, willRetry: true)
          continue
        }
        report(sent.request, response, sent.started, attempt, error, willRetry: false)
        throw error
      }
    }
  }

  /// Signs `plan` for `base` with the corrected clock, sends it once, and judges the answer.
  /// Reports and throws a final failure; leaves reporting a retryable one to the retrier.
  private func sendSigned(_ plan: RequestPlan, base: String, attempt: Int)
    async throws(StorageError) -> SendOutcome
  {
    if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
    guard plan.body.canBeSent else {
      throw StorageError(
        .invalidInput,
        "\(plan.what) cannot be sent again: its body is a stream that was already read")
    }
    var request = HTTPRequest(
      method: plan.method, url: base + plan.path, headers: plan.headers, body: plan.body)
    plan.sign?(&request, correctedClock.now())
    let started = ContinuousClock.now
    let response: HTTPResponse
    do {
      response = try await (plan.send ?? transport.send)(request)
    } catch let error as StorageError {
      let retryable =
        (error.kind == .temporary || error.kind == .unavailable)
        && plan.mayRepeat(after: error, answered: false)
      guard retryable else {
        report(request, nil, started, attempt, error, willRetry: false)
        throw error
      }
      return .decided(
        .retryable(
          RetryableFailure(
            request: request, response: nil, started: started, error: error, rateLimited: false)))
    } catch {
      throw StorageError(.protocolError, "\(plan.what) failed: \(error)")
    }
    let learnt = learnSkew(from: response)
    func retryable(_ error: StorageError, rateLimited: Bool) throws(StorageError) -> SendOutcome {
      guard plan.mayRepeat(after: error, answered: true) else {
        report(request, response, started, attempt, error, willRetry: false)
        throw error
      }
      return .decided(
        .retryable(
          RetryableFailure(
            request: request, response: response, started: started, error: error,
            rateLimited: rateLimited)))
    }
    switch plan.judge(response) {
    case .success:
      report(request, response, started, attempt, nil, willRetry: false)
      return .decided(.success(response))
    case .clockSkew(let error, let serverTime):
      return .clockSkew(
        error, serverTime: serverTime, response: response, learnt: learnt,
        report: (request, started))
    case .failure(let error, .final):
      report(request, response, started, attempt, error, willRetry: false)
      throw error
    case .failure(let error, .retry):
      return try retryable(error, rateLimited: false)
    case .failure(let error, .retryRateLimited):
      return try retryable(error, rateLimited: true)
    }
  }

  /// The final error after the last attempt failed with a retryable failure.
  static func exhausted(_ last: StorageError?, attempts: Int, what: String) -> StorageError {
    guard var error = last else {
      return StorageError(.temporary, "\(what) failed")
    }
    let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
    switch error.kind {
    case .unavailable, .protocolError:
      error.message += " (gave up after \(tries))"
    default:
      error.kind = .temporary
      error.message =
        "\(what) kept failing, gave up after \(tries): \(error.message); try again later"
    }
    return error
  }

  /// Compares the service's time (`serverTime`, else the answer's `Date`) with the local clock;
  /// past a minute's difference (or any difference, when the service said the clock is off),
  /// signs with the corrected time from now on. Returns whether the offset changed.
  @discardableResult
  public func learnSkew(from response: HTTPResponse, serverTime: Int64? = nil) -> Bool {
    learnSkew(from: response, serverTime: serverTime, force: serverTime != nil)
  }

  private func learnSkew(from response: HTTPResponse, serverTime: Int64?, force: Bool) -> Bool {
    guard
      let server = serverTime
        ?? response.headers["Date"].flatMap({ HTTPDate.parse($0) })
    else {
      return false
    }
    let local = Int64(clock.now().timeIntervalSince1970.rounded())
    let (offset, overflow) = server.subtractingReportingOverflow(local)
    guard !overflow else { return false }
    var notify = false
    let changed = skew.withLock { skew -> Bool in
      guard abs(offset) > 60 || (force && offset != skew.offset) else { return false }
      guard abs(offset - skew.offset) > 5 else { return false }
      skew.offset = offset
      if !skew.reported {
        skew.reported = true
        notify = true
      }
      return true
    }
    if notify { observer?(.clockSkew(seconds: offset)) }
    return changed
  }

  private func learnSkew(from response: HTTPResponse) -> Bool {
    learnSkew(from: response, serverTime: nil, force: false)
  }

  private func report(
    _ request: HTTPRequest, _ response: HTTPResponse?, _ started: ContinuousClock.Instant,
    _ attempt: Int, _ error: StorageError?, willRetry: Bool
  ) {
    guard let observer else { return }
    var headers = request.headers
    if let authorization = headers["Authorization"] {
      headers.set("Authorization", RequestEvent.redactAuthorization(authorization))
    }
    observer(
      .request(
        RequestEvent(
          method: request.method, url: RequestEvent.redactedURL(request.url), headers: headers,
          status: response?.status,
          requestID: response?.headers[requestIDHeader], duration: ContinuousClock.now - started,
          attempt: attempt, error: error, willRetry: willRetry)))
  }

  /// A base URL without trailing slashes, so a path can follow.
  package static func trimmedBase(_ base: String) -> String {
    String(KeySegments.droppingTrailingSlashes(base))
  }
}
