/// When and how long to wait before trying a failed request again.
///
/// The policy says how often and how long; which answers are worth another attempt is the
/// provider's judgement (`AnswerVerdict`), usually 5xx statuses except the ones its service uses
/// for failures that another attempt cannot mend (`isRetryable(status:except:)`). Network errors,
/// timeouts and dropped connections are retried; a rate-limited answer waits longer. Whether the
/// request may be repeated at all is the plan's (`RequestPlan.idempotency` and its body): an
/// unsafe request is repeated only when it never left, a stream body never once read.
public struct RetryPolicy: Sendable {
  /// How many times a request is sent at most (1 = no retries).
  public var maxAttempts: Int
  /// The backoff before the second attempt; it doubles each time.
  public var baseDelay: Duration
  /// The longest single backoff.
  public var maxDelay: Duration
  /// How much longer the backoff is after a rate-limited answer.
  public var rateLimitFactor: Int
  /// How the client waits (tests make it instant); throws when the task is cancelled.
  public var sleep: @Sendable (Duration) async throws -> Void

  /// A policy; the defaults suit the real service (5 attempts, 0.25 s doubling, capped at 8 s).
  public init(
    maxAttempts: Int = 5, baseDelay: Duration = .milliseconds(250),
    maxDelay: Duration = .seconds(8),
    rateLimitFactor: Int = 4,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    self.maxAttempts = max(1, maxAttempts)
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.rateLimitFactor = max(1, rateLimitFactor)
    self.sleep = sleep
  }

  /// Whether an HTTP status is worth another attempt: a 5xx status, but none of `final`, the
  /// server errors the provider's service answers when another attempt cannot help (such as
  /// 501 Not Implemented).
  public static func isRetryable(status: Int, except final: [Int]) -> Bool {
    (500...599).contains(status) && !final.contains(status)
  }

  /// The backoff after failed attempt `attempt` (1-based): exponential, capped, with "equal
  /// jitter" (half fixed, half random) so many clients do not retry in step.
  public func delay(afterAttempt attempt: Int, rateLimited: Bool) -> Duration {
    var delay = baseDelay
    for _ in 1..<max(1, attempt) where delay < maxDelay { delay *= 2 }
    if rateLimited { delay *= rateLimitFactor }
    let cap = rateLimited ? maxDelay * rateLimitFactor : maxDelay
    if delay > cap { delay = cap }
    let half = delay / 2
    return half + half * Double.random(in: 0...1)
  }
}
