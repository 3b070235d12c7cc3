import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import Testing

/// The built `kodo-emulator`, next to the test bundle.
enum EmulatorBinary {
  static let path: String? = {
    let path = CLIRunner.binDirectory.appendingPathComponent("kodo-emulator").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }()
}

/// The `kodo-emulator` binary's fixed contract: the start-up lines, the one error prefix, the
/// exit codes. Every wait is asynchronous: no thread of the cooperative pool is held.
@Suite(.enabled(if: EmulatorBinary.path != nil, "kodo-emulator has not been built"))
struct ExecutableTests {
  private let runner = CLIRunner("kodo-emulator")

  /// Starts the emulator, waits for its start-up output (through the line `last` begins with)
  /// and returns the running process with its lines.
  private func start(
    _ arguments: [String], environment: [String: String] = [:], through last: String = "export "
  ) async throws -> (running: CLIRunner.Running, lines: [String], port: Int) {
    let running = try runner.start(arguments, environment: environment)
    let started = await running.waitFor(seconds: 60) { output in
      output.split(separator: "\n").contains { $0.hasPrefix(last) }
    }
    guard started else {
      running.send(SIGKILL)
      let result = await running.wait()
      throw EmulatorStartFailure(output: result.description)
    }
    let lines = running.stdoutSoFar.split(separator: "\n").map(String.init)
    let first = try #require(lines.first)
    let port = try #require(Int(first.split(separator: ":").last ?? ""))
    return (running, lines, port)
  }

  private func stop(_ running: CLIRunner.Running) async -> CLIRunner.Result {
    running.send(SIGTERM)
    return await running.wait(seconds: 60)
  }

  @Test func printsTheListeningLineFirstThenAnExportLineAndExitsZeroOnSIGTERM() async throws {
    let (running, lines, port) = try await start([
      "--synthetic", "big=1000", "--private", "big", "--port", "0",
    ])
    #expect(lines.first == "kodo-emulator listening on http://127.0.0.1:\(port)")
    #expect(
      lines == [
        "kodo-emulator listening on http://127.0.0.1:\(port)",
        "bucket big: http://127.0.0.1:\(port)/dl/big (1000 objects, synthetic, seed 0, private)",
        "access key: kodo-emulator-access-key",
        "secret key: kodo-emulator-secret-key",
        "export KODO_ENDPOINT=http://127.0.0.1:\(port) QINIU_ACCESS_KEY=kodo-emulator-access-key"
          + " QINIU_SECRET_KEY=kodo-emulator-secret-key",
      ])
    // It serves at once.
    let result = try await RawHTTPClient.send(
      RawHTTPRequest(target: "/v4/query?bucket=big", headers: [("Host", "127.0.0.1:\(port)")]),
      port: port)
    #expect(result.response?.status == 200)
    let stopped = await stop(running)
    #expect(stopped.status == 0, "\(stopped)")
  }

  @Test func theExportLinePointsKodoAtTheEmulator() async throws {
    let (running, lines, _) = try await start(["--synthetic", "photos=3"])
    defer { if running.process.isRunning { running.send(SIGKILL) } }
    let export = try #require(lines.last)
    var environment = [String: String]()
    for assignment in export.dropFirst("export ".count).split(separator: " ") {
      let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
      environment[parts[0]] = parts[1]
    }
    #expect(Set(environment.keys) == ["KODO_ENDPOINT", "QINIU_ACCESS_KEY", "QINIU_SECRET_KEY"])
    let kodo = try await CLIRunner("kodo").run(["buckets"], environment: environment)
    #expect(kodo.status == 0, "\(kodo)")
    #expect(kodo.stdout.contains("photos"))
    #expect(await stop(running).status == 0)
  }

  @Test func aGivenSecretKeyIsNeverPrinted() async throws {
    let secret = "s3cret-\(UUID().uuidString)"
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sk-\(UUID())").path
    try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    let ways: [(arguments: [String], environment: [String: String], shown: String)] = [
      (["--secret-key", secret], [:], "(as given with --secret-key)"),
      (["--secret-key-file", file], [:], "(as read from --secret-key-file)"),
      ([], ["KODO_EMULATOR_SECRET_KEY": secret], "(from KODO_EMULATOR_SECRET_KEY)"),
    ]
    for way in ways {
      let (running, lines, port) = try await start(
        ["--access-key", "my ak", "--synthetic", "photos=1"] + way.arguments,
        environment: way.environment, through: "# and")
      #expect(!running.stdoutSoFar.contains(secret))
      #expect(lines.contains("secret key: " + way.shown))
      #expect(
        Array(lines.suffix(2)) == [
          "export KODO_ENDPOINT=http://127.0.0.1:\(port) QINIU_ACCESS_KEY='my ak'",
          "# and QINIU_SECRET_KEY: the secret key you gave the emulator",
        ])
      // The key it was given is the one it checks.
      let kodo = try await CLIRunner("kodo").run(
        ["buckets"],
        environment: [
          "KODO_ENDPOINT": "http://127.0.0.1:\(port)", "QINIU_ACCESS_KEY": "my ak",
          "QINIU_SECRET_KEY": secret,
        ])
      #expect(kodo.status == 0, "\(way.shown): \(kodo)")
      let stopped = await stop(running)
      #expect(stopped.status == 0)
      #expect(!stopped.stderr.contains(secret))
    }
  }

  @Test func everyErrorIsOneLineWithTheSamePrefix() async throws {
    let cases: [(arguments: [String], environment: [String: String], status: Int32, line: String)] =
      [
        (["--bogus"], [:], 64, "kodo-emulator: error: Unknown option '--bogus'"),
        (
          ["--bucket", "mem", "--writable", "mem"], [:], 64,
          "kodo-emulator: error: --writable mem: no directory bucket 'mem'; define it with "
            + "--bucket mem=DIR."
        ),
        (
          ["--synthetic", "s=many"], [:], 64,
          "kodo-emulator: error: --synthetic s=many: COUNT must be a whole number between 0 and "
            + "1000000000."
        ),
        (
          ["--private", "ghost"], [:], 64,
          "kodo-emulator: error: --private ghost: no bucket 'ghost'; define it with --bucket or "
            + "--synthetic."
        ),
        (
          ["--fail-rate", "2"], [:], 64,
          "kodo-emulator: error: --fail-rate must be between 0 and 1, not 2.0."
        ),
        (
          ["--access-key", "only"], [:], 64,
          "kodo-emulator: error: Give --access-key with a secret key (--secret-key, "
            + "--secret-key-file or KODO_EMULATOR_SECRET_KEY), or neither."
        ),
        (
          ["--bucket", "bad/name=/tmp"], [:], 64,
          "kodo-emulator: error: --bucket bad/name=/tmp: a bucket name is 1-63 characters of "
            + "a-z A-Z 0-9 - _."
        ),
        (
          ["--latency-ms", "9223372036854775807"], [:], 64,
          "kodo-emulator: error: --latency-ms must be between 0 and 3600000."
        ),
        (
          [], ["KODO_EMULATOR_SECRET_KEY": "x"], 64,
          "kodo-emulator: error: A secret key comes from KODO_EMULATOR_SECRET_KEY: give "
            + "--access-key with it (or unset KODO_EMULATOR_SECRET_KEY)."
        ),
        (
          ["--access-key", "a", "--secret-key", "b", "--secret-key-file", "/tmp/x"], [:], 64,
          "kodo-emulator: error: Give --secret-key or --secret-key-file, not both."
        ),
        (
          ["--access-key", "a", "--secret-key-file", "/nonexistent/kodo-sk"], [:], 66,
          "kodo-emulator: error: --secret-key-file: cannot read /nonexistent/kodo-sk"
        ),
        (
          ["--bucket", "b=/nonexistent/kodo-emulator"], [:], 66,
          "kodo-emulator: error: no such directory: /nonexistent/kodo-emulator"
        ),
      ]
    for item in cases {
      let result = try await runner.run(item.arguments, environment: item.environment)
      #expect(result.status == item.status, "\(item.arguments): \(result)")
      #expect(result.stderr.split(separator: "\n").first.map(String.init) == item.line)
      #expect(!result.stderr.contains("Error:"))
      #expect(result.stdout.isEmpty)
    }
  }

  @Test func aBusyPortIsOneReadableLine() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let result = try await runner.run(["--port", String(emulator.port)])
      #expect(result.status == 69)
      #expect(
        result.stderr
          == "kodo-emulator: error: cannot listen on 127.0.0.1:\(emulator.port): "
          + "address already in use\n")
    }
  }
}
