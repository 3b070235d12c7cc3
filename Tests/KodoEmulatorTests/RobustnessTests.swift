import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// Bad input never crashes the server: it answers 400 (with `X-Reqid`) and keeps serving.
@Suite struct RobustnessTests {
  private func sendRaw(_ emulator: EmulatorHarness, _ bytes: [UInt8]) async throws -> RawHTTPResult
  {
    try await RawHTTPClient.withConnection(port: emulator.port) { connection in
      try await connection.send(bytes)
      return try await connection.readResponse(timeout: Patience.bound)
    }
  }

  @Test func malformedRequestsGet400() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let host = "Host: \(emulator.hostHeader)\r\n"
      let inputs: [[UInt8]] = [
        Array("HELLO\r\n\r\n".utf8),
        Array("GET /buckets HTTP/9.9\r\n\r\n".utf8),
        Array("GET /list?bucket=public HTTP/1.1\r\nBad Header\r\n\r\n".utf8),
        Array("GET /dl/public/".utf8) + [0xFF, 0xFE] + Array(" HTTP/1.1\r\n\(host)\r\n".utf8),
        Array("GET /dl/public/".utf8) + [0xC3, 0x28] + Array(" HTTP/1.1\r\n\(host)\r\n".utf8),
        Array("POST /buckets HTTP/1.1\r\n\(host)Content-Length: x\r\n\r\n".utf8),
      ]
      for input in inputs {
        let result = try await sendRaw(emulator, input)
        let response = try #require(result.response, "\(String(decoding: input, as: UTF8.self))")
        #expect(response.status == 400, "\(String(decoding: input, as: UTF8.self))")
        #expect(response.header("X-Reqid") != nil)
      }
      #expect(try await emulator.get("/buckets").status == 200)
    }
  }

  @Test func hugeHeadersGet400() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let huge = String(repeating: "x", count: 90_000)
      let request = emulator.request("GET", "/buckets", headers: [("X-Padding", huge)])
      let result = try await emulator.send(request)
      if let response = result.response {
        #expect(response.status == 400)
        #expect(response.header("X-Reqid") != nil)
      } else {
        // The server may close before the client finished sending; it must not answer 200.
        guard case .closed = result else {
          Issue.record("unexpected \(result.summary)")
          return
        }
      }
      #expect(try await emulator.get("/buckets").status == 200)
    }
  }

  @Test func rawNonASCIIInTargetsIsRejected() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let target = "/dl/public/中文/文件.txt"
      let result = try await sendRaw(
        emulator, Array("GET \(target) HTTP/1.1\r\nHost: \(emulator.hostHeader)\r\n\r\n".utf8))
      let response = try #require(result.response)
      // The HTTP parser accepts only ASCII targets: keys travel percent-encoded.
      #expect(response.status == 400)
      #expect(response.errorMessage == "malformed request")
    }
  }

  @Test func oddTargetsAreHandled() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let targets = [
        "/stat/", "/stat", "/dl/", "/dl", "//buckets", "/list?&&&=&bucket=public", "/list?bucket",
        "/_emulator/", "/stat/" + String(repeating: "A", count: 5_000), "*",
        "http://\(emulator.hostHeader)/buckets",
      ]
      for target in targets {
        let result = try await emulator.send(emulator.request("GET", target))
        let response = try #require(result.response, "\(target)")
        #expect(response.status >= 200 && response.status < 700, "\(target)")
        #expect(response.header("X-Reqid") != nil, "\(target)")
      }
      // An absolute-form target is the same request as its path.
      let absolute = try await emulator.get("http://\(emulator.hostHeader)/buckets")
      #expect(absolute.status == 200)
    }
  }

  @Test func connectionCloseIsHonoured() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      var request = emulator.request("GET", "/buckets")
      request.headers.append(("Connection", "close"))
      let outcome = try await RawHTTPClient.withConnection(port: emulator.port) { connection in
        try await connection.send(request)
        let first = try await connection.readResponse()
        let second = try await connection.readResponse(timeout: Patience.bound)
        return (first.response?.header("Connection"), second.summary)
      }
      #expect(outcome.0 == "close")
      #expect(outcome.1 == "closed")
    }
  }

  @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let targets = ["/buckets", "/v2/domains?tbl=public", "/v2/domains?tbl=secret"]
      let bodies = try await RawHTTPClient.withConnection(port: emulator.port) { connection in
        try await connection.send(targets.flatMap { emulator.request("GET", $0).bytes })
        var bodies = [String]()
        for _ in targets {
          bodies.append(try #require(try await connection.readResponse().response).text)
        }
        return bodies
      }
      #expect(bodies[0] == "[\"public\",\"secret\"]")
      #expect(bodies[1].hasSuffix("/dl/public\"]"))
      #expect(bodies[2].hasSuffix("/dl/secret\"]"))
    }
  }

  @Test func invalidConfigurationsAreRejected() async throws {
    let cases: [(EmulatorConfiguration, EmulatorError)] = [
      (EmulatorConfiguration(buckets: [.objects("bad/name", [])]), .invalidBucketName("bad/name")),
      (EmulatorConfiguration(buckets: [.objects("", [])]), .invalidBucketName("")),
      (
        EmulatorConfiguration(buckets: [.objects("a", []), .synthetic("a", count: 1)]),
        .duplicateBucket("a")
      ),
      (EmulatorConfiguration(privateBuckets: ["ghost"]), .unknownPrivateBucket("ghost")),
      (
        EmulatorConfiguration(
          buckets: [.objects("a", [EmulatorObject(key: "k"), EmulatorObject(key: "k")])]),
        .duplicateKey("k")
      ),
      (
        EmulatorConfiguration(buckets: [.directory("d", path: "/nonexistent/kodo-emulator")]),
        .directoryNotFound("/nonexistent/kodo-emulator")
      ),
      (
        EmulatorConfiguration(failRate: 2),
        .invalidConfiguration("the fail rate must be between 0 and 1")
      ),
      (
        EmulatorConfiguration(port: 70_000),
        .invalidConfiguration("port 70000 is outside 0...65535")
      ),
    ]
    for (configuration, expected) in cases {
      await #expect(throws: expected) {
        let server = try await EmulatorServer.start(configuration)
        try await server.shutdown()
      }
    }
  }

  @Test func aBusyPortIsReported() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      var configuration = SampleObjects.configuration()
      configuration.port = emulator.port
      await #expect {
        let server = try await EmulatorServer.start(configuration)
        try await server.shutdown()
      } throws: { error in
        guard case .bindFailed = error as? EmulatorError else { return false }
        return true
      }
    }
  }
}
