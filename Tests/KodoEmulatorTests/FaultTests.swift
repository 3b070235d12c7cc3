import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoEmulator

@Suite struct FaultTests {
  private func schedule(_ emulator: EmulatorHarness, _ json: String) async throws -> RawHTTPResponse
  {
    try await emulator.response(
      to: emulator.request(
        "POST", "/_emulator/faults", signing: .none, contentType: "application/json",
        body: Array(json.utf8)))
  }

  private let listTarget = "/list?bucket=public&limit=2"

  @Test func statusFaultsApplyToTheNextMatchingRequests() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let scheduled = try await schedule(
        emulator, "{\"endpoint\":\"list\",\"mode\":\"status\",\"status\":503,\"count\":2}")
      #expect(scheduled.status == 200)
      #expect(
        scheduled.text
          == "{\"pending\":[{\"endpoint\":\"list\",\"mode\":\"status\",\"status\":503,\"count\":2}]}"
      )
      // Other endpoints are not affected.
      #expect(try await emulator.get("/buckets").status == 200)
      for _ in 0..<2 {
        let failed = try await emulator.get(listTarget)
        #expect(failed.status == 503)
        #expect(failed.text == "{\"error\":\"service unavailable\"}")
        #expect(failed.header("X-Reqid") != nil)
        #expect(failed.header("Content-Type") == "application/json")
      }
      #expect(try await emulator.get(listTarget).status == 200)
      #expect(emulator.server.stats.faults == 2)

      _ = try await schedule(
        emulator, "{\"endpoint\":\"*\",\"mode\":\"status\",\"status\":599,\"error\":\"boom\"}")
      let custom = try await emulator.get("/v4/query?bucket=public", signing: .none)
      #expect(custom.status == 599)
      #expect(custom.text == "{\"error\":\"boom\"}")
      _ = try await schedule(
        emulator, "{\"endpoint\":\"stat\",\"mode\":\"status\",\"status\":612,\"body\":\"{}\"}")
      let raw = try await emulator.get(EmulatorHarness.statTarget(bucket: "public", key: "a.txt"))
      #expect(raw.status == 612)
      #expect(raw.text == "{}")
    }
  }

  @Test func brokenDeliveries() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let normal = try await emulator.get(listTarget)

      _ = try await schedule(emulator, "{\"endpoint\":\"list\",\"mode\":\"drop\"}")
      let dropped = try await emulator.send(emulator.request("GET", listTarget))
      guard case .closed(let nothing) = dropped else {
        Issue.record("expected a dropped connection, got \(dropped.summary)")
        return
      }
      #expect(nothing.isEmpty)

      _ = try await schedule(emulator, "{\"endpoint\":\"list\",\"mode\":\"html\"}")
      let html = try await emulator.get(listTarget)
      #expect(html.status == 502)
      #expect(html.header("Content-Type") == "text/html")
      #expect(html.text.hasPrefix("<html>"))
      #expect((try? html.json()) == nil)

      _ = try await schedule(emulator, "{\"endpoint\":\"list\",\"mode\":\"truncated\"}")
      let truncated = try await emulator.get(listTarget)
      #expect(truncated.status == 200)
      #expect(truncated.body == Array(normal.body.prefix(normal.body.count / 2)))
      #expect(truncated.header("Content-Length") == String(normal.body.count / 2))
      #expect((try? truncated.json()) == nil)

      _ = try await schedule(emulator, "{\"endpoint\":\"list\",\"mode\":\"short-body\"}")
      let short = try await emulator.send(emulator.request("GET", listTarget))
      guard case .closed(let partial) = short else {
        Issue.record("expected a short body, got \(short.summary)")
        return
      }
      let text = String(decoding: partial, as: UTF8.self)
      #expect(text.hasPrefix("HTTP/1.1 200 OK"))
      #expect(text.contains("Content-Length: \(normal.body.count)"))
      #expect(
        text.hasSuffix(String(decoding: normal.body.prefix(normal.body.count / 2), as: UTF8.self)))

      _ = try await schedule(emulator, "{\"endpoint\":\"list\",\"mode\":\"no-reqid\"}")
      let anonymous = try await emulator.get(listTarget)
      #expect(anonymous.status == 200)
      #expect(anonymous.header("X-Reqid") == nil)
      #expect(anonymous.body == normal.body)
    }
  }

  /// `corrupt-body`: the normal answer, same length, its first byte inverted; once.
  @Test func aCorruptBodyDiffersInItsFirstByteOnly() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let target = "/dl/public/a.txt"
      let normal = try await emulator.get(target, signing: .none)
      #expect(normal.status == 200 && !normal.body.isEmpty)
      _ = try await schedule(emulator, "{\"endpoint\":\"download\",\"mode\":\"corrupt-body\"}")
      let corrupt = try await emulator.get(target, signing: .none)
      #expect(corrupt.status == 200)
      #expect(corrupt.body.count == normal.body.count)
      #expect(corrupt.body.first == normal.body.first.map { ~$0 })
      #expect(corrupt.body.dropFirst() == normal.body.dropFirst())
      #expect(try await emulator.get(target, signing: .none).body == normal.body)
    }
  }

  @Test func hangsAndStallsKeepTheConnectionOpenWithoutAnAnswer() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      _ = try await schedule(emulator, "{\"endpoint\":\"stat\",\"mode\":\"hang\"}")
      let statTarget = EmulatorHarness.statTarget(bucket: "public", key: "a.txt")
      let hung = try await emulator.send(
        emulator.request("GET", statTarget), timeout: .milliseconds(300))
      guard case .timedOut(let nothing) = hung else {
        Issue.record("expected no answer, got \(hung.summary)")
        return
      }
      #expect(nothing.isEmpty)

      _ = try await schedule(
        emulator, "{\"endpoint\":\"download\",\"mode\":\"stall-after-headers\"}")
      let stalled = try await emulator.send(
        // Generous: on a loaded machine the head can take longer than 300 ms to arrive.
        emulator.request("GET", "/dl/public/a.txt", signing: .none), timeout: .seconds(3))
      guard case .timedOut(let head) = stalled else {
        Issue.record("expected a stall, got \(stalled.summary)")
        return
      }
      let text = String(decoding: head, as: UTF8.self)
      #expect(text.hasPrefix("HTTP/1.1 200 OK"))
      #expect(text.hasSuffix("\r\n\r\n"))
      // The server keeps answering everyone else.
      #expect(try await emulator.get(statTarget).status == 200)
    }
  }

  @Test func controlEndpoints() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      _ = try await emulator.get("/buckets")
      _ = try await emulator.get(listTarget)
      _ = try await emulator.get("/v4/query?bucket=public", signing: .none)
      _ = try await emulator.download("/dl/public/a.txt")
      let stats = try await emulator.get("/_emulator/stats", signing: .none).json()
      #expect(stats["total"]?.int64Value == 4)
      #expect(stats["buckets"]?.int64Value == 1)
      #expect(stats["list"]?.int64Value == 1)
      #expect(stats["query"]?.int64Value == 1)
      #expect(stats["download"]?.int64Value == 1)
      #expect(stats["stat"]?.int64Value == 0)
      #expect(stats["control"]?.int64Value == 1)
      #expect(stats["connections"]?.int64Value == 5)
      #expect(emulator.server.stats.total == 4)

      let reset = try await emulator.response(
        to: emulator.request("DELETE", "/_emulator/stats", signing: .none))
      #expect(try reset.json()["total"]?.int64Value == 0)
      #expect(emulator.server.stats.list == 0)

      _ = try await schedule(emulator, "{\"mode\":\"drop\",\"count\":3}")
      emulator.server.scheduleFault(EmulatorFault(endpoint: .stat, mode: .noReqid))
      let pending = try await emulator.get("/_emulator/faults", signing: .none).json()
      #expect(pending["pending"]?.arrayValue?.count == 2)
      #expect(emulator.server.pendingFaults.map(\.mode) == [.drop, .noReqid])
      let cleared = try await emulator.response(
        to: emulator.request("DELETE", "/_emulator/faults", signing: .none))
      #expect(cleared.text == "{\"cleared\":4}")
      #expect(emulator.server.pendingFaults.isEmpty)
      #expect(try await emulator.get(listTarget).status == 200)

      for bad in [
        "not json", "[]", "{\"mode\":\"explode\"}", "{\"endpoint\":\"nowhere\",\"mode\":\"drop\"}",
        "{\"mode\":\"status\",\"status\":42}", "{\"mode\":\"drop\",\"count\":0}", "{}",
        "{\"mode\":\"drop\",\"extra\":1}",
      ] {
        let response = try await schedule(emulator, bad)
        #expect(response.status == 400, "\(bad)")
        #expect(response.errorMessage != nil, "\(bad)")
      }
      #expect(try await emulator.get("/_emulator/nothing", signing: .none).status == 404)
      let wrongMethod = try await emulator.response(
        to: emulator.request("PUT", "/_emulator/stats", signing: .none))
      #expect(wrongMethod.status == 405)
    }
  }

  @Test func programmaticFaultsMatchTheControlAPI() throws {
    #expect(
      try EmulatorFault.parse(
        json: "{\"endpoint\":\"list\",\"mode\":\"status\",\"status\":503,\"count\":2}")
        == EmulatorFault(endpoint: .list, mode: .status(503), count: 2))
    #expect(
      try EmulatorFault.parse(json: "{\"mode\":\"short-body\"}")
        == EmulatorFault(endpoint: .any, mode: .shortBody))
    #expect(
      try EmulatorFault.parse(json: "{\"mode\":\"status\",\"error\":\"x\"}").mode
        == .status(503, body: "{\"error\":\"x\"}"))
  }

  /// Sends `count` list requests one after another (each on a new connection) and records what
  /// happened to each.
  private func outcomes(seed: UInt64, rate: Double, count: Int) async throws -> [String] {
    var configuration = SampleObjects.configuration()
    configuration.seed = seed
    configuration.failRate = rate
    return try await EmulatorHarness.with(configuration) { emulator in
      var outcomes = [String]()
      for _ in 0..<count {
        let result = try await emulator.send(emulator.request("GET", listTarget))
        if let response = result.response {
          #expect(response.header("X-Reqid") != nil)
          outcomes.append("\(response.status)")
        } else {
          outcomes.append(result.summary)
        }
      }
      // Region queries and control requests are never failed.
      for _ in 0..<10 {
        #expect(try await emulator.get("/v4/query?bucket=public", signing: .none).status == 200)
      }
      return outcomes
    }
  }

  @Test func failRateIsReproducibleForASeed() async throws {
    let first = try await outcomes(seed: 42, rate: 0.5, count: 60)
    let again = try await outcomes(seed: 42, rate: 0.5, count: 60)
    let other = try await outcomes(seed: 43, rate: 0.5, count: 60)
    #expect(first == again)
    #expect(first != other)
    #expect(Set(first).isSubset(of: ["200", "503", "599", "573", "closed"]))
    #expect(Set(first) == ["200", "503", "599", "573", "closed"])
    let none = try await outcomes(seed: 42, rate: 0, count: 10)
    #expect(none == Array(repeating: "200", count: 10))
    let all = try await outcomes(seed: 42, rate: 1, count: 10)
    #expect(!all.contains("200"))
  }

  @Test func latencyDelaysAPIResponses() async throws {
    var configuration = SampleObjects.configuration()
    configuration.latencyMilliseconds = 150
    try await EmulatorHarness.with(configuration) { emulator in
      let start = ContinuousClock.now
      let response = try await emulator.get("/buckets")
      let elapsed = ContinuousClock.now - start
      #expect(response.status == 200)
      // A lower bound only: the answer cannot come before the delay.
      #expect(elapsed >= .milliseconds(150))
    }
  }

  @Test func downloadLatencyDelaysDownloadsOnly() async throws {
    var configuration = SampleObjects.configuration()
    configuration.downloadLatencyMilliseconds = 150
    try await EmulatorHarness.with(configuration) { emulator in
      let start = ContinuousClock.now
      let response = try await emulator.download("/dl/public/x/full.jpg")
      let elapsed = ContinuousClock.now - start
      #expect(response.status == 200)
      // A lower bound only: the answer cannot come before the delay.
      #expect(elapsed >= .milliseconds(150))
    }
    // Which requests wait for which setting.
    var both = SampleObjects.configuration()
    both.latencyMilliseconds = 7
    both.downloadLatencyMilliseconds = 11
    #expect(Route(path: "/dl/public/x/full.jpg").delayMilliseconds(both) == 11)
    #expect(Route(path: "/buckets").delayMilliseconds(both) == 7)
    #expect(Route(path: "/_emulator/stats").delayMilliseconds(both) == 0)
  }
}
