import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

private let vectorEnvironment = [
  "QINIU_ACCESS_KEY": "MY_ACCESS_KEY", "QINIU_SECRET_KEY": "MY_SECRET_KEY",
]

@Suite("kodo token prints exactly what the SDKs produce")
struct TokenCommandTests {
  let kodo = CLIRunner("kodo", environment: vectorEnvironment)

  @Test func qiniuMatchesTheStatVector() async throws {
    let result = try await kodo.run([
      "token", "qiniu", "--date", "20240101T000000Z",
      "https://rs-z0.qiniuapi.com/stat/bXktYnVja2V0OuS4reaWhy_mlofku7YuanBn",
    ])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout == "Qiniu MY_ACCESS_KEY:LfW3K-tB-OOA4tsCh0daWeA4GcA=\n")
    let json = try await kodo.run([
      "--json", "token", "qiniu", "--date", "20240101T000000Z",
      "https://rsf-z0.qiniuapi.com/list?bucket=my-bucket&prefix=photos%2F2024%20summer%2F&delimiter=%2F&limit=1000",
    ])
    #expect(
      json.stdout
        == #"{"authorization":"Qiniu MY_ACCESS_KEY:BpW3YsX-BIfqXHd3LdC1a5I-YUo=","xQiniuDate":"20240101T000000Z"}"#
        + "\n")
  }

  @Test func qboxMatchesTheDocumentExample() async throws {
    let result = try await kodo.run([
      "token", "qbox",
      "http://rs.qiniu.com/move/bmV3ZG9jczpmaW5kX21hbi50eHQ=/bmV3ZG9jczpmaW5kLm1hbi50eHQ=",
    ])
    #expect(result.stdout == "QBox MY_ACCESS_KEY:FXsYh0wKHYPEsIAgdPD9OfjkeEM=\n")
  }

  @Test func uploadMatchesThePythonSDK() async throws {
    let plain = try await kodo.run(["token", "upload", "--deadline", "4102444800", "my-bucket"])
    #expect(
      plain.stdout
        == "MY_ACCESS_KEY:Hs-VIi3-eBko2KHg8GM-X5bkSN4=:eyJzY29wZSI6Im15LWJ1Y2tldCIsImRlYWRsaW5lIjo0MTAyNDQ0ODAwfQ==\n"
    )
    let policy = try await kodo.run([
      "token", "upload", "--deadline", "4102444800", "--policy",
      #"{"insertOnly":1,"fsizeLimit":1024}"#, "my-bucket:a.txt",
    ])
    #expect(
      policy.stdout
        == "MY_ACCESS_KEY:NYxml_FNHk5dBR_Pd28RqYZgrlE=:eyJzY29wZSI6Im15LWJ1Y2tldDphLnR4dCIsImRlYWRsaW5lIjo0MTAyNDQ0ODAwLCJpbnNlcnRPbmx5IjoxLCJmc2l6ZUxpbWl0IjoxMDI0fQ==\n"
    )
    let chinese = try await kodo.run([
      "token", "upload", "--deadline", "4102444800", "my-bucket:中文 key.txt",
    ])
    #expect(
      chinese.stdout
        == "MY_ACCESS_KEY:CL2jFAUmPNP9I99uF9Wvgu1bADc=:eyJzY29wZSI6Im15LWJ1Y2tldDpcdTRlMmRcdTY1ODcga2V5LnR4dCIsImRlYWRsaW5lIjo0MTAyNDQ0ODAwfQ==\n"
    )
  }
}

@Suite("Exit codes and error lines", .serialized)
struct ExitCodeTests {
  func expectError(
    _ result: CLIRunner.Result, status: Int32, containing text: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
    let lines = result.stderr.split(separator: "\n")
    #expect(
      lines.filter { $0.hasPrefix("kodo: error: ") }.count == 1, "\(result.stderr)",
      sourceLocation: sourceLocation)
    if let text {
      #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
    }
    #expect(result.stdout.isEmpty || status == 0, sourceLocation: sourceLocation)
  }

  @Test func usageErrorsAre64() async throws {
    let env = try await CLIEnvironment.get()
    await expectError(try env.run(["ls", "--bogus"]), status: 64)
    await expectError(try env.run(["ls", "--page-size", "0", "photos"]), status: 64)
    await expectError(try env.run(["ls", "--page-size", "1001", "photos"]), status: 64)
    await expectError(try env.run(["stat"]), status: 64)
    await expectError(try env.run(["frobnicate"]), status: 64)
    await expectError(try env.run(["ls", "--parallel", "4", "photos"]), status: 64)
  }

  @Test func badInputIs65() async throws {
    let env = try await CLIEnvironment.get()
    await expectError(
      try env.run(["url", "--expires", "soon", "photos", "a.txt"]), status: 65,
      containing: "invalid duration")
    await expectError(
      try env.run(["token", "upload", "--policy", "{not json", "my-bucket"]), status: 65,
      containing: "--policy")
    await expectError(
      try env.run(["ls", "bad bucket!"]), status: 65, containing: "invalid bucket name")
    await expectError(try env.run(["stat", "photos", ""]), status: 65, containing: "empty")
  }

  @Test func notFoundIs66WithTheRequestID() async throws {
    let env = try await CLIEnvironment.get()
    await expectError(
      try env.run(["stat", "photos", "no/such/key"]), status: 66, containing: "request id")
    await expectError(
      try env.run(["ls", "nosuchbucket"]), status: 66, containing: "no such bucket")
  }

  @Test func unreachableIs69() async throws {
    let config = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-\(UUID()).json"
    ).path
    let text =
      #"{"accessKey":"a","secretKey":"b","hosts":{"uc":"http://127.0.0.1:9","rs":"http://127.0.0.1:9","rsf":"http://127.0.0.1:9"}}"#
    _ = FileManager.default.createFile(
      atPath: config, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    let result = try await CLIRunner().run(["ls", "--retries", "2", "--config", config, "b"])
    expectError(result, status: 69, containing: "127.0.0.1:9")
  }

  @Test func badCredentialsAre77() async throws {
    let env = try await CLIEnvironment.get()
    let result = try await env.run(["buckets"], environment: ["QINIU_SECRET_KEY": "wrong-secret"])
    expectError(
      result, status: 77, containing: #"check "accessKey" in the config file and QINIU_SECRET_KEY"#)
  }

  @Test func configurationProblemsAre78() async throws {
    await expectError(try CLIRunner().run(["buckets"]), status: 78, containing: "QINIU_ACCESS_KEY")
    await expectError(
      try CLIRunner().run(["buckets", "--config", "/nonexistent.json"]), status: 78,
      containing: "/nonexistent.json")
    let config = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-\(UUID()).json"
    ).path
    _ = FileManager.default.createFile(
      atPath: config, contents: Data(#"{"acessKey":"x"}"#.utf8),
      attributes: [.posixPermissions: 0o600])
    await expectError(
      try CLIRunner().run(["buckets", "--config", config]), status: 78,
      containing: #"unknown key "acessKey""#)
  }
}

@Suite("Signals and pipes", .serialized)
struct SignalTests {
  @Test func sigintDuringAListingExits130WithAResumeMarker() async throws {
    // 200 pages 300 ms apart: a minute for the interrupt to arrive mid-listing, however late a
    // busy machine lets the test see the first lines.
    let slow = try await EmulatorProcess(["--synthetic", "slow=20000", "--latency-ms", "300"])
    let config = try slow.configFile()
    let running = try CLIRunner("kodo", environment: ["KODO_CONFIG": config]).start([
      "ls", "-r", "--page-size", "100", "slow",
    ])
    await #expect(running.waitFor { $0.split(separator: "\n").count >= 200 })
    running.send(SIGINT)
    let result = await running.wait()
    #expect(result.status == 130, "\(result.stderr)")
    #expect(result.stderr.contains("--marker "), "\(result.stderr)")
    // Resuming from the marker completes the set exactly.
    let marker = try #require(
      result.stderr.components(separatedBy: "--marker ").last?.trimmingCharacters(
        in: .whitespacesAndNewlines))
    let firstPart = result.lines
    let rest = try await CLIRunner("kodo", environment: ["KODO_CONFIG": config]).run([
      "ls", "-r", "--page-size", "1000", "--marker", marker, "slow",
    ])
    #expect(firstPart.count + rest.lines.count == 20000)
    #expect(firstPart.count % 100 == 0, "only whole pages are printed")
  }
}
