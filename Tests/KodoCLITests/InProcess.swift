import Foundation
import KodoCLI
import KodoTestSupport

/// Runs `kodo` commands in this process through `Kodo.run(arguments:runtime:)`: stdout and
/// stderr go to temporary files of their own, the environment is the test's, and no signal
/// handler is installed.
enum InProcess {
  /// The environment every run starts from: no credentials, no config, caches in a temporary
  /// directory.
  static func baseEnvironment() -> [String: String] {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-home-\(UUID())"
    ).path
    return [
      "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_CACHE_HOME": home + "/cache",
      "TMPDIR": FileManager.default.temporaryDirectory.path,
    ]
  }

  /// Runs `arguments`; `stdout` names a file to write stdout to, opened with `flags` (default: a
  /// new temporary file); a shell completion waits up to `completionDeadline` for the service.
  static func run(
    _ arguments: [String], environment: [String: String] = [:], stdin: [UInt8] = [],
    stdout: String? = nil, stdoutFlags: Int32 = O_WRONLY | O_CREAT | O_TRUNC,
    completionDeadline: Duration = Patience.bound
  ) async throws -> CLIRunner.Result {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-inprocess-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let outPath = stdout ?? directory + "/stdout"
    let errPath = directory + "/stderr"
    let inPath = directory + "/stdin"
    _ = FileManager.default.createFile(atPath: inPath, contents: Data(stdin))
    let out = open(outPath, stdoutFlags | O_CLOEXEC, 0o644)
    let err = open(errPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    let input = open(inPath, O_RDONLY | O_CLOEXEC)
    guard out >= 0, err >= 0, input >= 0 else {
      throw EmulatorStartFailure(output: "cannot open the in-process run's files")
    }
    var merged = baseEnvironment()
    for (name, value) in environment { merged[name] = value }
    var runtime = Runtime(
      environment: merged, standardOutput: out, standardError: err, standardInput: input)
    // stderr is read whole by the tests: no periodic progress line, however slow the machine.
    runtime.progressLineInterval = .seconds(24 * 3600)
    // What a completion lists is checked whole: no 2 s deadline on a loaded machine.
    runtime.completionDeadline = completionDeadline
    let status = await Kodo.run(arguments: arguments, runtime: runtime)
    close(out)
    close(err)
    close(input)
    let stdoutBytes =
      stdout == nil ? Array(FileManager.default.contents(atPath: outPath) ?? Data()) : []
    let stderr = String(
      decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    return CLIRunner.Result(status: status, stdoutBytes: stdoutBytes, stderr: stderr)
  }
}
