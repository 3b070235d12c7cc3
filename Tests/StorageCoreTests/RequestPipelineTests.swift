import Foundation
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

/// The request pipeline on its own, with a neutral judgement: the signer, the skew corrector and
/// the retrier, and the provider-chosen retryable statuses.
@Suite("Request pipeline")
struct RequestPipelineTests {
  /// 2024-01-01T00:00:00Z, the local clock; the service's answers say two hours later.
  static let local: Int64 = 1_704_067_200
  static let serviceDate = "Mon, 01 Jan 2024 02:00:00 GMT"

  /// Success for 2xx; a clock-skew verdict for 403; 503 retryable; anything else final.
  static func judge(_ response: HTTPResponse) -> AnswerVerdict {
    let error = StorageError(.rejected, "HTTP \(response.status)", status: response.status)
    switch response.status {
    case 200..<300: return .success
    case 403: return .clockSkew(StorageError(.unauthorized, "clock"), serverTime: nil)
    case 503: return .failure(error, retry: .retry)
    default: return .failure(error, retry: .final)
    }
  }

  static func answer(_ status: Int) -> StubTransport.Answer {
    .response(HTTPResponse(status: status, headers: ["Date": serviceDate], body: []))
  }

  /// The attempts a pipeline reported: their numbers and whether another followed.
  final class Notices: Sendable {
    private let events = Mutex<[RequestEvent]>([])

    func record(_ notice: ClientNotice) {
      guard case .request(let event) = notice else { return }
      events.withLock { $0.append(event) }
    }

    var attempts: [Int] { events.withLock { $0.map(\.attempt) } }
    var willRetry: [Bool] { events.withLock { $0.map(\.willRetry) } }
  }

  /// A pipeline over `stub` with `attempts` attempts and no waiting, recording its notices.
  static func pipeline(_ stub: StubTransport, attempts: Int, notices: Notices) -> RequestPipeline {
    RequestPipeline(
      transport: stub, requestIDHeader: "X-Request-Id",
      retry: RetryPolicy(maxAttempts: attempts, sleep: { _ in }),
      clock: .fixed(unixSeconds: local), observer: notices.record)
  }

  /// A plan over `bases` that signs each request with the time it is signed at.
  static func plan(bases: [String] = ["http://a"], mayCorrectClock: Bool = true) -> RequestPlan {
    RequestPlan(
      method: "GET", bases: bases, path: "/x", what: "the test request",
      sign: { request, now in
        request.headers.add("X-Signed-At", String(Int64(now.timeIntervalSince1970)))
      },
      judge: judge, mayCorrectClock: mayCorrectClock)
  }

  @Test func aSkewedClockIsCorrectedOnceWithoutUsingAnAttempt() async throws {
    let stub = StubTransport(answers: [Self.answer(403), Self.answer(503), Self.answer(200)])
    let notices = Notices()
    // Two attempts are enough: the re-signed request does not count against them.
    let (response, _) = try await Self.pipeline(stub, attempts: 2, notices: notices)
      .perform(Self.plan())
    #expect(response.status == 200)
    #expect(
      stub.requests.map { $0.headers["X-Signed-At"] }
        == ["\(Self.local)", "\(Self.local + 7200)", "\(Self.local + 7200)"])
    #expect(notices.attempts == [1, 1, 2])
    #expect(notices.willRetry == [true, true, false])
  }

  @Test func aSecondSkewAnswerIsFinal() async {
    let stub = StubTransport(answers: [Self.answer(403)])
    let notices = Notices()
    await #expect(throws: StorageError(.unauthorized, "clock")) {
      _ = try await Self.pipeline(stub, attempts: 5, notices: notices).perform(Self.plan())
    }
    #expect(stub.requests.count == 2)
    #expect(notices.willRetry == [true, false])
  }

  // Issue 19 M-1: every answer's `Date` moved the clock, a download's or a CDN's too.
  @Test func onlyARefusalFromAnAPIHostMovesTheClock() async throws {
    let notices = Notices()
    let far = StubTransport(answers: [Self.answer(200)])
    let pipeline = Self.pipeline(far, attempts: 2, notices: notices)
    _ = try await pipeline.perform(Self.plan())
    #expect(pipeline.correctedClock.unixSeconds == Self.local)
    let download = StubTransport(answers: [Self.answer(403)])
    let elsewhere = Self.pipeline(download, attempts: 5, notices: notices)
    await #expect(throws: StorageError(.unauthorized, "clock")) {
      _ = try await elsewhere.perform(Self.plan(mayCorrectClock: false))
    }
    #expect(download.requests.count == 1)
    #expect(elsewhere.correctedClock.unixSeconds == Self.local)
  }

  @Test func aRefusalFurtherOffThanTheLimitIsFinal() async throws {
    let years = StubTransport(answers: [
      .response(
        HTTPResponse(status: 403, headers: ["Date": "Fri, 31 Dec 9999 23:59:59 GMT"], body: []))
    ])
    let pipeline = Self.pipeline(years, attempts: 5, notices: Notices())
    let caught = await #expect(throws: StorageError.self) {
      _ = try await pipeline.perform(Self.plan())
    }
    #expect(caught?.message.contains("more than the 24 hours kodo corrects for") == true)
    #expect(years.requests.count == 1)
    #expect(pipeline.correctedClock.unixSeconds == Self.local)
    #expect(RequestPipeline.maximumClockCorrection == 86_400)
  }

  @Test func retriesRotateTheBasesAndGiveUpAfterTheLastAttempt() async {
    let stub = StubTransport(answers: [.failure(StorageError(.temporary, "dropped"))])
    let notices = Notices()
    let pipeline = Self.pipeline(stub, attempts: 3, notices: notices)
    let caught = await #expect(throws: StorageError.self) {
      _ = try await pipeline.perform(Self.plan(bases: ["http://a/", "http://b"]))
    }
    #expect(caught?.kind == .temporary)
    #expect(caught?.message.contains("gave up after 3 attempts") == true)
    #expect(stub.requests.map(\.url) == ["http://a/x", "http://b/x", "http://a/x"])
    #expect(notices.willRetry == [true, true, false])
  }

  @Test func aFinalAnswerIsNotRetried() async {
    let stub = StubTransport(answers: [Self.answer(404), Self.answer(200)])
    let notices = Notices()
    await #expect(throws: StorageError.self) {
      _ = try await Self.pipeline(stub, attempts: 5, notices: notices).perform(Self.plan())
    }
    #expect(stub.requests.count == 1)
  }

  @Test func theRetryableServerErrorsAreTheProvidersChoice() {
    #expect(RetryPolicy.isRetryable(status: 503, except: []))
    #expect(!RetryPolicy.isRetryable(status: 501, except: [501]))
    #expect(RetryPolicy.isRetryable(status: 509, except: [501]))
    #expect(!RetryPolicy.isRetryable(status: 509, except: [501, 509, 579]))
    #expect(!RetryPolicy.isRetryable(status: 404, except: []))
    #expect(!RetryPolicy.isRetryable(status: 612, except: []))
  }

  @Test func rateLimitingBacksOffLonger() {
    let policy = RetryPolicy(
      baseDelay: .milliseconds(100), maxDelay: .seconds(10), rateLimitFactor: 4)
    for attempt in 1...3 {
      let normal = policy.delay(afterAttempt: attempt, rateLimited: false)
      let limited = policy.delay(afterAttempt: attempt, rateLimited: true)
      let base = Duration.milliseconds(100) * (1 << (attempt - 1))
      #expect(normal >= base / 2 && normal <= base)
      #expect(limited >= base * 2 && limited <= base * 4)
    }
    #expect(policy.delay(afterAttempt: 30, rateLimited: false) <= .seconds(10))
  }
}
