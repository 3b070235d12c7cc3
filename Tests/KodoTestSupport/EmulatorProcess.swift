public import Foundation
import Synchronization

/// A `kodo-emulator` process started through its command line, as users start it.
public final class EmulatorProcess: @unchecked Sendable {
  // Immutable after init, except the process, which only `stop` touches.
  /// `http://127.0.0.1:PORT`.
  public let baseURL: String
  /// The access key the emulator accepts.
  public let accessKey: String
  /// The secret key the emulator accepts.
  public let secretKey: String
  private let running: CLIRunner.Running

  /// Starts `kodo-emulator` with `arguments` (credentials added) and waits for its start-up line.
  public init(
    _ arguments: [String], accessKey: String = "test-access-key",
    secretKey: String = "test-secret-key-\(UUID().uuidString)"
  ) async throws {
    self.accessKey = accessKey
    self.secretKey = secretKey
    let runner = CLIRunner("kodo-emulator")
    running = try runner.start(
      ["--host", "127.0.0.1", "--port", "0", "--access-key", accessKey, "--secret-key", secretKey]
        + arguments)
    let prefix = "kodo-emulator listening on "
    guard await running.waitFor({ $0.contains("\n") && $0.hasPrefix(prefix) }),
      let first = running.stdoutSoFar.split(separator: "\n").first
    else {
      running.send(SIGKILL)
      let result = await running.wait()
      throw EmulatorStartFailure(output: result.description)
    }
    baseURL = String(first.dropFirst(prefix.count))
    EmulatorReaper.register(running.process.processIdentifier)
  }

  /// Everything the emulator printed on stdout so far.
  public var output: String { running.stdoutSoFar }

  /// The download base URL the emulator gives `bucket`.
  public func downloadDomain(_ bucket: String) -> String { baseURL + "/dl/" + bucket }

  /// A config file whose hosts all point at the emulator (so no discovery happens).
  public func configFile(bucket: String? = nil, extra: String = "") throws -> String {
    try writeTestConfig(
      baseURL: baseURL, accessKey: accessKey, secretKey: secretKey,
      extra: (bucket.map { "\"bucket\":\(Self.jsonString($0))," } ?? "") + extra)
  }

  /// Stops the emulator (SIGTERM) and waits.
  public func stop() {
    if running.process.isRunning { running.send(SIGTERM) }
    // Reaped in the background (killed after 10 s if it ignores SIGTERM): nobody waits here.
    let running = self.running
    Task.detached { _ = await running.wait(seconds: 10) }
    EmulatorReaper.unregister(running.process.processIdentifier)
  }

  deinit { stop() }
}

/// Stops, when the test process exits, the emulators that are still running: those held in
/// `static` properties (shared by a suite) are never deinitialised, and would otherwise outlive
/// the test run.
enum EmulatorReaper {
  private static let running = Mutex(Set<pid_t>())
  private static let installed = Mutex(false)

  static func register(_ pid: pid_t) {
    running.withLock { _ = $0.insert(pid) }
    let first = installed.withLock { done -> Bool in
      defer { done = true }
      return !done
    }
    if first { atexit { EmulatorReaper.stopAll() } }
  }

  static func unregister(_ pid: pid_t) {
    running.withLock { _ = $0.remove(pid) }
  }

  private static func stopAll() {
    for pid in running.withLock({ $0 }) { kill(pid, SIGTERM) }
  }
}

/// The emulator did not print its start-up line.
public struct EmulatorStartFailure: Error, CustomStringConvertible {
  public var output: String
  public init(output: String) { self.output = output }
  public var description: String { "kodo-emulator did not start:\n\(output)" }
}
