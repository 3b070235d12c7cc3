import ArgumentParser
import Foundation
import KodoEmulator
import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kodo-emulator` from its arguments to its exit status: parses the flags, starts an
/// `EmulatorServer`, writes where it listens, and serves until told to stop. The executable is
/// `main()`; tests call `run` in process.
public enum EmulatorMain {
  /// Where the emulator writes: its start-up lines, and `kodo-emulator: error: …` lines.
  public struct Output: Sendable {
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void

    public init(
      standardOutput: @escaping @Sendable (String) -> Void,
      standardError: @escaping @Sendable (String) -> Void
    ) {
      self.standardOutput = standardOutput
      self.standardError = standardError
    }
  }

  /// Runs `kodo-emulator ARGUMENTS`: returns its exit status once `stop` returns (0) or at once
  /// when the flags are wrong (64), a directory or key file cannot be read (66) or the port
  /// cannot be bound (69). Every error is one `kodo-emulator: error: …` line on standard error;
  /// `--help` and `--version` go to standard output (0).
  public static func run(
    _ arguments: [String], environment: [String: String], output: Output,
    until stop: @Sendable () async -> Void
  ) async -> Int32 {
    let command: EmulatorCommand
    let configuration: EmulatorConfiguration
    do {
      command = try EmulatorCommand.parse(arguments)
      try command.validateCredentials(environment: environment)
      configuration = try command.configuration(environment: environment)
    } catch let failure as SecretKeySource.Failure {
      output.standardError(line(failure.message))
      return failure.status
    } catch {
      let code = EmulatorCommand.exitCode(for: error)
      guard code != .success else {  // --help, --version
        output.standardOutput(EmulatorCommand.fullMessage(for: error) + "\n")
        return 0
      }
      output.standardError(
        line(EmulatorCommand.message(for: error) + "\nSee 'kodo-emulator --help'."))
      return code.rawValue
    }
    let server: EmulatorServer
    do {
      server = try await EmulatorServer.start(configuration)
    } catch {
      output.standardError(line("\(error)"))
      return EmulatorCommand.status(for: error)
    }
    let source = command.secretKeySource(environment: environment)
    let lines = StartupOutput.lines(server: server, secretKeySource: source)
    output.standardOutput(lines.joined(separator: "\n") + "\n")
    await stop()
    do {
      try await server.shutdown()
    } catch {
      output.standardError(line("could not stop cleanly: \(error)"))
      return 70
    }
    return 0
  }

  /// The executable: the process's arguments and environment, standard output and error, and
  /// SIGINT or SIGTERM to stop; exits with `run`'s status.
  public static func main() async -> Never {
    signal(SIGPIPE, SIG_IGN)
    #if canImport(Glibc)
      // Buffers of 256 KiB and more (request bodies on their way to the spool, spool and digest
      // reads of a megabyte) are mapped, and unmapped when freed. By default glibc raises this
      // threshold after the first such buffer is freed and then keeps freed megabytes in each
      // thread's arena: a 1 GiB OSS multipart upload (8 MiB parts) peaked 64 MiB above idle
      // that way (debug build), 16 MiB with the threshold fixed.
      // `mallopt` is in malloc.h, which the Glibc module does not import; -3 is its
      // M_MMAP_THRESHOLD.
      if let symbol = dlsym(nil, "mallopt") {
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(-3, 256 << 10)
      }
    #endif
    // From here on SIGINT and SIGTERM stop the server cleanly instead of killing the process.
    let signals = TerminationSignals()
    let output = Output(
      standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
      standardError: { FileHandle.standardError.write(Data($0.utf8)) })
    let status = await run(
      Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
      output: output, until: { _ = await signals.wait() })
    exit(status)
  }

  private static func line(_ message: String) -> String {
    "kodo-emulator: error: " + message + "\n"
  }
}
