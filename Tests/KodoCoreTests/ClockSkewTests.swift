import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

/// Issue 19 §2, M-1: only a skew refusal from one of Kodo's API hosts moves the signing clock, and
/// by at most a day. A download's or a CDN's `Date`, or any answer that does not refuse the
/// request, leaves it alone, so no answer can make the links kodo signs live for years.
@Suite("Only Kodo's skew refusals move the signing clock, within a day")
struct ClockSkewTests {
  /// Two hours after the vectors' clock, and the last second of year 9999.
  static let twoHoursLater = "Mon, 01 Jan 2024 02:00:00 GMT"
  static let endOfTime = "Fri, 31 Dec 9999 23:59:59 GMT"
  static let local: Int64 = 1_704_067_200

  static func response(_ status: Int, _ body: String, date: String) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Date": date, "Content-Type": "application/json"],
      body: Array(body.utf8))
  }

  @Test(arguments: [twoHoursLater, endOfTime])
  func aDownloadAnswerNeverMovesTheClock(_ date: String) async throws {
    let skewed = Self.response(403, #"{"error":"request time too skewed"}"#, date: date)
    let stub = StubTransport(answers: [
      .response(Self.response(200, "x", date: date)), .response(skewed),
    ])
    let kodo = client(stub)
    let descriptor = open("/dev/null", O_WRONLY | O_CLOEXEC)
    defer { close(descriptor) }
    _ = try await kodo.download(
      url: "http://cdn.example/a.txt?e=1&token=t", to: DownloadWriter(descriptor: descriptor))
    #expect(kodo.correctedClock.unixSeconds == Self.local)
    // A CDN that says "too skewed" is refused like any other 403, once.
    let error = await kodoError {
      _ = try await kodo.download(
        url: "http://cdn.example/b.txt", to: DownloadWriter(descriptor: descriptor))
    }
    #expect(error?.kind == .unauthorized)
    #expect(stub.requests.count == 2)
    #expect(kodo.correctedClock.unixSeconds == Self.local)
    #expect(kodo.deadline(expiresIn: 3_600) == Self.local + 3_600)
  }

  @Test func anAPIAnswerThatDoesNotRefuseTheRequestLeavesTheClockAlone() async throws {
    var answer = HTTPResponse.json(200, #"["a"]"#, date: Self.twoHoursLater)
    answer.headers.set("Date", Self.endOfTime)
    let stub = StubTransport(answers: [.response(answer)])
    let kodo = client(stub)
    #expect(try await kodo.bucketNames().map(\.name) == ["a"])
    #expect(kodo.correctedClock.unixSeconds == Self.local)
  }

  @Test func aRefusalWhoseTimeIsMoreThanADayAwayIsFinal() async throws {
    let skewed = HTTPResponse.json(
      403, #"{"error":"request time too skewed"}"#, date: Self.endOfTime)
    let stub = StubTransport(answers: [.response(skewed), .response(.json(200, #"["a"]"#))])
    let kodo = client(stub)
    let error = await kodoError { _ = try await kodo.bucketNames() }
    #expect(error?.kind == .unauthorized)
    #expect(error?.message.contains("more than the 24 hours kodo corrects for") == true)
    #expect(stub.requests.count == 1)
    #expect(kodo.correctedClock.unixSeconds == Self.local)
    // Within a day, the same refusal corrects the clock.
    let dayAhead = "Mon, 01 Jan 2024 23:59:00 GMT"
    let near = StubTransport(answers: [
      .response(.json(403, #"{"error":"request time too skewed"}"#, date: dayAhead)),
      .response(.json(200, #"["a"]"#)),
    ])
    let corrected = client(near)
    #expect(try await corrected.bucketNames().map(\.name) == ["a"])
    #expect(corrected.correctedClock.unixSeconds == Self.local + 86_340)
  }
}
