public import Foundation

/// Runs the built `kodo` (or `kodo-emulator`) binary as a real process, for end-to-end tests.
public struct CLIRunner: Sendable {
  /// What one run produced.
  public struct Result: Sendable, CustomStringConvertible {
    /// The exit status (or 128 + signal number when killed by a signal).
    public var status: Int32
    /// Everything written to stdout.
    public var stdoutBytes: [UInt8]
    /// Everything written to stderr.
    public var stderr: String

    /// A result from its parts.
    public init(status: Int32, stdoutBytes: [UInt8], stderr: String) {
      self.status = status
      self.stdoutBytes = stdoutBytes
      self.stderr = stderr
    }

    /// stdout as UTF-8 text.
    public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    /// stdout split into lines (without the final empty one).
    public var lines: [String] {
      stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    public var description: String {
      "exit \(status)\n--- stdout ---\n\(stdout.prefix(4000))\n--- stderr ---\n\(stderr.prefix(4000))"
    }
  }

  /// The directory holding the built products.
  public static let binDirectory: URL = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    // On Linux the test binary is .build/<config>/<package>PackageTests.xctest.
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("kodo").path),
      directory.path != "/"
    {
      directory = directory.deletingLastPathComponent()
    }
    if directory.path == "/" {
      return Fixtures.repositoryRoot.appendingPathComponent(".build/debug")
    }
    return directory
  }()

  /// The binary's path.
  public let executable: String
  /// The environment every run starts from.
  public var environment: [String: String]

  /// A runner for `name` (`kodo` or `kodo-emulator`) with a clean environment: no credentials,
  /// no config, caches in a temporary directory, `NO_COLOR` unset.
  public init(_ name: String = "kodo", environment: [String: String] = [:]) {
    executable = Self.binDirectory.appendingPathComponent(name).path
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-home-\(UUID())")
      .path
    var base = [
      "PATH": "/usr/bin:/bin", "HOME": home, "XDG_CONFIG_HOME": home + "/config",
      "XDG_CACHE_HOME": home + "/cache", "LANG": "C.UTF-8", "TZ": "UTC",
    ]
    for (name, value) in environment { base[name] = value }
    self.environment = base
  }

  /// Runs with `arguments`, feeding `stdin`, and waits for the exit without blocking a thread.
  public func run(
    _ arguments: [String], stdin: [UInt8]? = nil, environment extra: [String: String] = [:]
  ) async throws -> Result {
    let process = try start(arguments, stdin: stdin, environment: extra)
    return await process.wait()
  }

  /// Runs `script` with `bash -c`, the binary's path in `$KODO`, and waits for the exit.
  public func runShell(_ script: String, seconds: Double = Patience.seconds) async throws -> Result
  {
    let process = try start(
      executable: "/bin/bash", ["-c", script], stdin: nil, environment: ["KODO": executable])
    return await process.wait(seconds: seconds)
  }

  /// Starts a run without waiting (to send signals or read incrementally).
  public func start(
    _ arguments: [String], stdin: [UInt8]? = nil, environment extra: [String: String] = [:]
  ) throws
    -> Running
  {
    try start(executable: executable, arguments, stdin: stdin, environment: extra)
  }

  private func start(
    executable: String, _ arguments: [String], stdin: [UInt8]?, environment extra: [String: String]
  ) throws -> Running {
    var environment = self.environment
    for (name, value) in extra { environment[name] = value }
    let input = try Self.makePipe()
    let out = try Self.makePipe()
    let err = try Self.makePipe()
    let process: SpawnedProcess
    do {
      process = try SpawnedProcess(
        executable: executable, arguments: arguments, environment: environment,
        standardInput: input.read, standardOutput: out.write, standardError: err.write)
    } catch {
      for descriptor in [input.read, input.write, out.read, out.write, err.read, err.write] {
        close(descriptor)
      }
      throw error
    }
    close(input.read)
    close(out.write)
    close(err.write)
    let running = Running(process: process, stdout: out.read, stderr: err.read)
    let writer = input.write
    if let stdin {
      // A thread of its own: the write blocks while the pipe is full (see `Running`).
      Thread {
        stdin.withUnsafeBytes { bytes in
          var done = 0
          while done < bytes.count {
            let count = write(writer, bytes.baseAddress.map { $0 + done }, bytes.count - done)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            done += count
          }
        }
        close(writer)
      }.start()
    } else {
      close(writer)
    }
    return running
  }

  /// A pipe. Every child closes the descriptors it was not given (`SpawnedProcess`), so no
  /// other child holds an end of it.
  private static func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      throw SpawnFailure(description: "cannot make a pipe: " + String(cString: strerror(errno)))
    }
    return (ends[0], ends[1])
  }

  /// A process that was started; collects its output as it arrives.
  ///
  /// Each pipe is read on a thread of its own, never with `DispatchQueue.global()`: on Linux
  /// that queue's threads are the ones Swift concurrency's global executor runs every task on,
  /// and a read blocks for as long as the process lives. A few running processes would then hold
  /// every thread of the pool, and every other test in the process would stall (an in-process
  /// emulator's clients long enough for its request timeout to close their connections).
  public final class Running: @unchecked Sendable {
    // The collected buffers are guarded by `lock`; `process` is only used from the test's task.
    public let process: SpawnedProcess
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []
    private let group = DispatchGroup()

    init(process: SpawnedProcess, stdout: Int32, stderr: Int32) {
      self.process = process
      collect(stdout, isStdout: true)
      collect(stderr, isStdout: false)
    }

    /// Reads `descriptor` to its end, then closes it.
    private func collect(_ descriptor: Int32, isStdout: Bool) {
      group.enter()
      Thread {
        // read(2) itself, retried on EINTR: a signal can reach this thread while a test runs.
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
          let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
          if count < 0 && errno == EINTR { continue }
          if count <= 0 { break }
          self.lock.lock()
          if isStdout {
            self.out.append(contentsOf: buffer[..<count])
          } else {
            self.err.append(contentsOf: buffer[..<count])
          }
          self.lock.unlock()
        }
        close(descriptor)
        self.group.leave()
      }.start()
    }

    /// stdout so far.
    public var stdoutSoFar: String {
      lock.lock()
      defer { lock.unlock() }
      return String(decoding: out, as: UTF8.self)
    }

    /// stderr so far.
    public var stderrSoFar: String {
      lock.lock()
      defer { lock.unlock() }
      return String(decoding: err, as: UTF8.self)
    }

    /// Waits until `condition` holds for stdout so far, or `seconds` pass; returns whether it
    /// held. The polling and its clock run on a thread of their own: a poll from a task could
    /// wait many seconds for a thread of a busy cooperative pool, and the deadline would then
    /// pass while the output had long been there (an emulator "did not start" that had).
    public func waitFor(
      seconds: Double = Patience.seconds, _ condition: @escaping @Sendable (String) -> Bool
    ) async -> Bool {
      await withCheckedContinuation { continuation in
        Thread {
          let end = Date().addingTimeInterval(seconds)
          var held = false
          while Date() < end {
            if condition(self.stdoutSoFar) {
              held = true
              break
            }
            if !self.process.isRunning {
              held = condition(self.stdoutSoFar)
              break
            }
            usleep(10_000)
          }
          continuation.resume(returning: held)
        }.start()
      }
    }

    /// Sends `signal` as soon as `condition` holds, or after `seconds`, watching from
    /// a thread of its own: a task's poll can wait seconds for a thread of a busy pool, and the
    /// work to interrupt would be done by then.
    public func send(
      _ signal: Int32, when condition: @escaping @Sendable () -> Bool,
      seconds: Double = Patience.seconds
    ) async {
      await withCheckedContinuation { continuation in
        Thread {
          let end = Date().addingTimeInterval(seconds)
          while self.process.isRunning && Date() < end && !condition() { usleep(2000) }
          self.send(signal)
          continuation.resume()
        }.start()
      }
    }

    /// Sends `signal` to the process.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the exit (killing the process after `seconds` as a hang guard), polling with
    /// `Task.sleep` so that no thread of the cooperative pool is held: tests that wait for
    /// processes must not starve the tests that wait for continuations.
    public func wait(seconds: Double = Patience.seconds) async -> Result {
      let deadline = Date().addingTimeInterval(seconds)
      while process.isRunning && Date() < deadline {
        try? await Task.sleep(for: .milliseconds(5))
      }
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
      }
      // Both readers end once every writer of the pipes has exited.
      await withCheckedContinuation { continuation in
        group.notify(queue: .global()) { continuation.resume() }
      }
      process.waitUntilExit()
      let status =
        process.terminationReason == .uncaughtSignal
        ? 128 + process.terminationStatus : process.terminationStatus
      let (out, err) = lock.withLock { (self.out, self.err) }
      return Result(status: status, stdoutBytes: out, stderr: String(decoding: err, as: UTF8.self))
    }
  }
}
