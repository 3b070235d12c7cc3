import Foundation
import KodoTestSupport
import StorageCore
import Testing

/// Issue 10 §6: what a new user met in `url`, `token`, usage errors and error messages. Each
/// error says what failed and what to do. Run in process.
@Suite("Errors say what to do", .serialized)
struct UsageAndMessageTests {
  let env: CLIEnvironment
  let environment: [String: String]

  init() async throws {
    env = try await CLIEnvironment.get()
    environment = ["KODO_CONFIG": env.config]
  }

  func run(_ arguments: [String], _ extra: [String: String] = [:]) async throws -> CLIRunner.Result
  {
    try await InProcess.run(arguments, environment: environment.merging(extra) { $1 })
  }

  @Test func aDeadlineInThePastIsInvalid() async throws {
    expectFailure(
      try await run(["url", "--deadline", "1767225600", "photos", "a.txt"]), status: 65,
      containing: "is in the past")
    let future = try await run(["url", "--deadline", "4102444800", "photos", "a.txt"])
    #expect(future.status == 0 && future.stdout.contains("e=4102444800"), "\(future)")
  }

  @Test func deadlineAndExpiresTogetherAreAUsageError() async throws {
    expectFailure(
      try await run(["url", "--deadline", "4102444800", "--expires", "1h", "photos", "a.txt"]),
      status: 64, containing: "cannot be combined")
  }

  @Test func aNegativeExpiryIsAnInvalidDuration() async throws {
    expectFailure(
      try await run(["url", "--expires", "-5", "photos", "a.txt"]), status: 65,
      containing: "invalid duration '-5'")
  }

  @Test func aKeyThatLooksLikeAnOptionIsExplained() async throws {
    let result = try await run(["stat", "photos", "-x"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("goes after '--'"), "\(result.stderr)")
    let quoted = try await run(["stat", "photos", "--", "-x"])
    expectFailure(quoted, status: 66, containing: #"no such key "-x""#)
  }

  @Test func aMistypedOptionWithAValueKeepsItsSuggestion() async throws {
    let result = try await run(["url", "--domian", "http://x", "photos", "a.txt"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("Did you mean '--domain'?"), "\(result.stderr)")
  }

  @Test(arguments: [["lss", "photos"], ["lss"], ["--json", "lss"]])
  func anUnknownCommandIsNamedWithTheNearestOne(_ arguments: [String]) async throws {
    let result = try await run(arguments)
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix("kodo: error: unknown command 'lss'; did you mean 'ls'?"),
      "\(result.stderr)")
  }

  @Test func tokenRefusesHeadersItWouldNotSign() async throws {
    let result = try await run([
      "token", "qiniu", "--header", "Foo: bar", "https://rs.example.com/stat/x",
    ])
    #expect(result.status == 64)
    #expect(result.stderr.contains("only X-Qiniu-* headers"), "\(result.stderr)")
    let signed = try await run([
      "token", "qiniu", "--header", "X-Qiniu-Foo: bar", "https://rs.example.com/stat/x",
    ])
    #expect(signed.status == 0, "\(signed)")
  }

  @Test func notFoundErrorsSayWhatToDo() async throws {
    expectFailure(
      try await run(["ls", "nosuchbucket"]), status: 66, containing: "kodo buckets lists yours")
    expectFailure(
      try await run(["stat", "photos", "2024/"]), status: 66,
      containing: "names a folder: list it with kodo ls photos/2024/")
    expectFailure(
      try await run(["stat", "photos/a.txt"]), status: 66,
      containing: "give them as two arguments: photos a.txt")
  }

  @Test func environmentValuesAreNamedInErrors() async throws {
    let missing = "/nonexistent-\(UUID()).json"
    expectFailure(
      try await InProcess.run(["buckets"], environment: ["KODO_CONFIG": missing]), status: 78,
      containing: "(from KODO_CONFIG)")
    expectFailure(
      try await run(["buckets"], ["KODO_PROFILE": "nope"]), status: 78,
      containing: "(from KODO_PROFILE)")
    expectFailure(
      try await InProcess.run(["buckets"], environment: ["QINIU_ACCESS_KEY": "ak"]), status: 78,
      containing: "(QINIU_ACCESS_KEY) but no secret key")
    expectFailure(
      try await InProcess.run(
        ["buckets"],
        environment: [
          "QINIU_ACCESS_KEY": "ak", "QINIU_SECRET_KEY": "sk", "KODO_ENDPOINT": "ftp://x",
        ]),
      status: 78, containing: "KODO_ENDPOINT must be a base URL")
  }

  @Test func anInvalidEndpointNeverShowsItsPassword() async throws {
    let fromEnvironment = try await InProcess.run(
      ["buckets"],
      environment: [
        "QINIU_ACCESS_KEY": "ak", "QINIU_SECRET_KEY": "sk", "KODO_ENDPOINT": "ftp://user:s3cret@x",
      ])
    expectFailure(fromEnvironment, status: 78, containing: "KODO_ENDPOINT must be a base URL")
    #expect(fromEnvironment.stderr.contains("ftp://<redacted>@x"), "\(fromEnvironment)")
    // No scheme at all: what comes before the @ may still be user:password.
    let config = try writeTestConfig(baseURL: "user:s3cret@example.com:9000")
    let fromFile = try await InProcess.run(["buckets"], environment: ["KODO_CONFIG": config])
    expectFailure(fromFile, status: 78, containing: "must be a base URL")
    #expect(fromFile.stderr.contains("<redacted>@example.com:9000"), "\(fromFile)")
    for result in [fromEnvironment, fromFile] {
      #expect(!result.stderr.contains("s3cret"), "\(result)")
    }
  }

  @Test func missingCredentialsShowTheKeysInline() async throws {
    let result = try await InProcess.run(["buckets"])
    expectFailure(result, status: 78, containing: #"{"accessKey": "#)
    #expect(!result.stderr.contains("config.example.json"))
  }

  @Test func aConfigJSONErrorNamesLineAndColumn() async throws {
    let path = try temporaryDirectory() + "/config.json"
    _ = FileManager.default.createFile(
      atPath: path, contents: Data("{\n  \"accessKey\": \"a\",\n  \"secretKey\" \"s\"\n}\n".utf8),
      attributes: [.posixPermissions: 0o600])
    expectFailure(
      try await InProcess.run(["buckets", "--config", path]), status: 78,
      containing: "at line 3, column 15")
  }

  @Test func oneEndpointVariablePointsKodoAtTheEmulator() async throws {
    let result = try await InProcess.run(
      ["buckets"],
      environment: [
        "QINIU_ACCESS_KEY": env.emulator.accessKey, "QINIU_SECRET_KEY": env.emulator.secretKey,
        "KODO_ENDPOINT": env.emulator.baseURL,
      ])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("photos"))
  }

  @Test func profileNamesAreEscapedInErrors() async throws {
    let result = try await run(["buckets", "--profile", "\u{1B}[2Jevil"])
    expectFailure(result, status: 78, containing: "\\u{1B}[2Jevil")
  }

  @Test func jsonErrorsAreAlsoOneJSONLine() async throws {
    let result = try await run(["stat", "--json", "photos", "nope.txt"])
    #expect(result.status == 66)
    let line = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("{") })
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(object["type"] as? String == "error")
    #expect(object["exit"] as? Int == 66)
    #expect((object["message"] as? String)?.contains("nope.txt") == true)
    #expect((object["requestId"] as? String)?.isEmpty == false)
  }

  /// A 502 page from a proxy in front of Kodo (no X-Reqid) is retried, then reported as a
  /// temporary failure that names the proxy.
  @Test func aProxysErrorPageIsATemporaryFailure() async throws {
    let script: ScriptedHTTPServer.Script = { _ in
      .respond(
        ScriptedHTTPServer.Response(
          status: 502, headers: ["Content-Type": "text/html"],
          body: Array("<html>502 Bad Gateway</html>".utf8)))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try writeTestConfig(baseURL: server.baseURL)
      let result = try await InProcess.run(
        ["buckets", "--retries", "2"], environment: ["KODO_CONFIG": config])
      expectFailure(result, status: 75, containing: "proxy")
      // A proxy's page is a temporary failure: the request was sent again before giving up.
      #expect(server.requests.count == 2, "\(server.requests.map(\.head))")
    }
  }
}
