import Foundation
import KodoCore
import KodoEmulator
import KodoEmulatorCLI
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

/// What `kodo-emulator --synthetic big=1000 --private big` writes once it listens on `port`, for
/// the in-process and the spawned tests alike.
enum StartupLines {
  static func privateSyntheticBig(port: Int) -> [String] {
    [
      "kodo-emulator listening on http://127.0.0.1:\(port)",
      "bucket big: http://127.0.0.1:\(port)/dl/big (1000 objects, synthetic, seed 0, private)",
      "access key: kodo-emulator-access-key",
      "secret key: kodo-emulator-secret-key",
      "export KODO_ENDPOINT=http://127.0.0.1:\(port) QINIU_ACCESS_KEY=kodo-emulator-access-key"
        + " QINIU_SECRET_KEY=kodo-emulator-secret-key",
    ]
  }
}

/// `kodo-emulator`'s flags, start-up lines, errors and exit codes, run in process through
/// `EmulatorMain.run`, as the executable runs it.
struct EmulatorMainTests {
  /// One in-process run: what it wrote, a way to stop it, and its status.
  final class Run: Sendable {
    private let written = Mutex((standardOutput: "", standardError: ""))
    private let started: AsyncStream<Void>
    private let startedContinuation: AsyncStream<Void>.Continuation
    private let stopSignal: AsyncStream<Void>
    private let stopContinuation: AsyncStream<Void>.Continuation

    init() {
      (started, startedContinuation) = AsyncStream.makeStream()
      (stopSignal, stopContinuation) = AsyncStream.makeStream()
    }

    var standardOutput: String { written.withLock { $0.standardOutput } }
    var standardError: String { written.withLock { $0.standardError } }

    var output: EmulatorMain.Output {
      EmulatorMain.Output(
        standardOutput: { text in
          self.written.withLock { $0.standardOutput += text }
          self.startedContinuation.yield()
        },
        standardError: { text in self.written.withLock { $0.standardError += text } })
    }

    /// Returns once something was written to standard output (the start-up lines, in one write).
    func waitForStart() async {
      for await _ in started { return }
    }

    /// Ends `waitForStart` when the run ended without starting.
    func ended() { startedContinuation.finish() }

    func stop() { stopContinuation.finish() }

    func waitForStop() async {
      for await _ in stopSignal {}
    }
  }

  /// Runs the emulator with `arguments` until it has started, hands it to `body`, stops it and
  /// returns its status.
  private func withRunning(
    _ arguments: [String], environment: [String: String] = [:],
    _ body: (Run, [String], Int) async throws -> Void
  ) async throws -> Int32 {
    let run = Run()
    let running = Task {
      let status = await EmulatorMain.run(
        arguments, environment: environment, output: run.output,
        until: { await run.waitForStop() })
      run.ended()
      return status
    }
    await run.waitForStart()
    let lines = run.standardOutput.split(separator: "\n").map(String.init)
    guard let port = Int(lines.first?.split(separator: ":").last ?? "") else {
      Issue.record("\(arguments) did not start: \(run.standardError)")
      run.stop()
      return await running.value
    }
    do {
      try await body(run, lines, port)
    } catch {
      run.stop()
      _ = await running.value
      throw error
    }
    run.stop()
    return await running.value
  }

  /// The status and output of a run that ends by itself (an error, `--help`).
  private func runToEnd(_ arguments: [String], environment: [String: String] = [:]) async
    -> (status: Int32, standardOutput: String, standardError: String)
  {
    let run = Run()
    let status = await EmulatorMain.run(
      arguments, environment: environment, output: run.output,
      until: { Issue.record("\(arguments) started a server") })
    return (status, run.standardOutput, run.standardError)
  }

  @Test func startsServesAndStopsWithStatusZero() async throws {
    let status = try await withRunning([
      "--synthetic", "big=1000", "--private", "big", "--port", "0",
    ]) { run, lines, port in
      #expect(lines == StartupLines.privateSyntheticBig(port: port))
      let result = try await RawHTTPClient.send(
        RawHTTPRequest(target: "/v4/query?bucket=big", headers: [("Host", "127.0.0.1:\(port)")]),
        port: port)
      #expect(result.response?.status == 200)
      #expect(run.standardError.isEmpty)
    }
    #expect(status == 0)
  }

  @Test func theOSSStartUpLinesNameTheProtocolAndItsVariables() async throws {
    let status = try await withRunning([
      "--protocol", "oss", "--region", "cn-shanghai", "--bucket", "scratch",
    ]) { _, lines, port in
      #expect(lines.contains("protocol: oss, region cn-shanghai, path style"))
      #expect(
        lines.last
          == "export KODO_PROVIDER=oss OSS_ENDPOINT=http://127.0.0.1:\(port) OSS_REGION=cn-shanghai"
          + " OSS_ACCESS_KEY_ID=kodo-emulator-access-key"
          + " OSS_ACCESS_KEY_SECRET=kodo-emulator-secret-key")
    }
    #expect(status == 0)
  }

  @Test func aGivenSecretKeyIsNeverPrintedAndIsTheOneChecked() async throws {
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
      let status = try await withRunning(
        ["--access-key", "my ak", "--synthetic", "photos=1"] + way.arguments,
        environment: way.environment
      ) { run, lines, port in
        #expect(!run.standardOutput.contains(secret))
        #expect(lines.contains("secret key: " + way.shown))
        #expect(
          Array(lines.suffix(2)) == [
            "export KODO_ENDPOINT=http://127.0.0.1:\(port) QINIU_ACCESS_KEY='my ak'",
            "# and QINIU_SECRET_KEY: the secret key you gave the emulator",
          ])
        // The key it was given is the one it checks.
        for (secretKey, expected) in [(secret, 200), ("wrong", 401)] {
          let host = "127.0.0.1:\(port)"
          let signable = SignableRequest(
            method: "GET", url: "/buckets", host: host, contentType: nil,
            headers: [("Host", host)], body: [])
          let authorization = RequestSigning.qboxAuthorization(
            for: signable, credentials: Credentials(accessKey: "my ak", secretKey: secretKey))
          let result = try await RawHTTPClient.send(
            RawHTTPRequest(
              target: "/buckets", headers: [("Host", host), ("Authorization", authorization)]),
            port: port)
          #expect(result.response?.status == expected, "\(way.shown)")
        }
      }
      #expect(status == 0)
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
        (
          ["--port", "70000"], [:], 64,
          "kodo-emulator: error: --port must be between 0 and 65535, not 70000."
        ),
        (
          ["--protocol", "s3"], [:], 64,
          "kodo-emulator: error: --protocol must be kodo or oss, not 's3'."
        ),
      ]
    for item in cases {
      let result = await runToEnd(item.arguments, environment: item.environment)
      #expect(result.status == item.status, "\(item.arguments): \(result)")
      #expect(result.standardError.split(separator: "\n").first.map(String.init) == item.line)
      #expect(!result.standardError.contains("Error:"))
      #expect(result.standardOutput.isEmpty)
    }
  }

  @Test func helpAndVersionGoToStandardOutputWithStatusZero() async {
    let help = await runToEnd(["--help"])
    #expect(help.status == 0)
    #expect(help.standardOutput.hasPrefix("OVERVIEW: A local Kodo- or OSS-compatible server"))
    #expect(help.standardOutput.contains("--writable <NAME>"))
    #expect(help.standardError.isEmpty)
    let version = await runToEnd(["--version"])
    #expect(version.status == 0)
    #expect(version.standardOutput == KodoVersion.current + "\n")
  }

  @Test func aBusyPortIsOneReadableLine() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let result = await runToEnd(["--port", String(emulator.port)])
      #expect(result.status == 69)
      #expect(
        result.standardError
          == "kodo-emulator: error: cannot listen on 127.0.0.1:\(emulator.port): "
          + "address already in use\n")
    }
  }
}
