import Foundation
public import StorageCore

/// What a run of `kodo` talks to outside itself: the environment and the standard descriptors.
///
/// The process's own for the `kodo` executable; tests run commands in process with descriptors
/// of their own (pipes, files) and an environment of their own. Commands read it through
/// `Runtime.current`, never from the process directly.
public struct Runtime: Sendable {
  /// The environment variables.
  public var environment: [String: String]
  /// Where data goes (stdout).
  public var standardOutput: Int32
  /// Where diagnostics go (stderr).
  public var standardError: Int32
  /// Where `--stdin` input comes from.
  public var standardInput: Int32
  /// Whether SIGINT and SIGTERM cancel the command (the executable) or are left alone (tests).
  public var handlesSignals: Bool
  /// Receives diagnostics instead of `standardError` when set (a full-screen browser that owns
  /// the terminal shows them on its status line).
  public var diagnosticsSink: (@Sendable (DiagnosticLevel, DisplayText) -> Void)?
  /// How often a long scan or transfer writes a plain progress line when stderr is not a
  /// terminal (10 s). Tests that read stderr whole set it beyond their length, so a run slowed
  /// by a loaded machine does not gain a progress line.
  public var progressLineInterval: Duration = .seconds(10)
  /// How long a shell completion may wait for the service before it answers nothing (2 s).
  /// Tests that check what a completion lists set it longer, so that a loaded machine does not
  /// empty the list.
  public var completionDeadline: Duration = .seconds(2)

  /// A runtime from its parts.
  public init(
    environment: [String: String], standardOutput: Int32 = 1, standardError: Int32 = 2,
    standardInput: Int32 = 0, handlesSignals: Bool = false,
    diagnosticsSink: (@Sendable (DiagnosticLevel, DisplayText) -> Void)? = nil
  ) {
    self.environment = environment
    self.standardOutput = standardOutput
    self.standardError = standardError
    self.standardInput = standardInput
    self.handlesSignals = handlesSignals
    self.diagnosticsSink = diagnosticsSink
  }

  /// The process's environment and descriptors, with signal handling.
  public static var process: Runtime {
    Runtime(environment: ProcessInfo.processInfo.environment, handlesSignals: true)
  }

  /// The runtime of the command running on this task.
  @TaskLocal public static var current = Runtime.process

  /// Whether `descriptor` is a terminal.
  static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
}

/// How much a diagnostic matters.
public enum DiagnosticLevel: Sendable {
  /// `kodo: error: …`
  case error
  /// `kodo: warning: …`
  case warning
  /// `kodo: …`: resume markers, choices made, request lines with `-v`.
  case note
}
