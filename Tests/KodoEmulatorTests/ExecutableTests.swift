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

/// The `kodo-emulator` binary where the process is the point: its start-up lines on a pipe, a clean
/// exit on SIGTERM, and an export line `kodo` can use. The flags, errors and exit codes are tested
/// in process (`EmulatorMainTests`). Every wait is asynchronous: no thread of the cooperative pool
/// is held.
@Suite(.enabled(if: EmulatorBinary.path != nil, "kodo-emulator has not been built"))
struct ExecutableTests {
  private let runner = CLIRunner("kodo-emulator")

  /// Starts the emulator, waits for its start-up output (through the line `last` begins with)
  /// and returns the running process with its lines.
  private func start(
    _ arguments: [String], environment: [String: String] = [:], through last: String = "export "
  ) async throws -> (running: CLIRunner.Running, lines: [String], port: Int) {
    let running = try runner.start(arguments, environment: environment)
    let started = await running.waitFor { output in
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
    return await running.wait()
  }

  @Test func printsTheListeningLineFirstThenAnExportLineAndExitsZeroOnSIGTERM() async throws {
    let (running, lines, port) = try await start([
      "--synthetic", "big=1000", "--private", "big", "--port", "0",
    ])
    #expect(lines.first == "kodo-emulator listening on http://127.0.0.1:\(port)")
    #expect(lines == StartupLines.privateSyntheticBig(port: port))
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
}
