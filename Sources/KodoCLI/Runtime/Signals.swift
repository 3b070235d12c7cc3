import Dispatch
import Foundation
import StorageCore
import Synchronization

/// SIGINT/SIGTERM handling: cancel the work, let it say where to resume, and exit promptly.
///
/// The command's work runs in a task that a signal cancels. The command prints its own resume
/// marker when it sees the cancellation; if it has not finished 700 ms later, the
/// handler prints the last marker it was told about and exits.
enum Signals {
  private static let state = Mutex(State())

  struct State {
    var task: Task<Void, any Error>?
    var resumeHint: (@Sendable () -> DisplayText)?
    var signal: Int32 = 0
    var signals: TerminationSignals?
  }

  /// 130 after SIGINT, 143 after SIGTERM.
  static var exitCode: Int32 {
    state.withLock { $0.signal == SIGTERM ? 143 : 130 }
  }

  /// The resume note printed if the work does not stop on its own in time.
  static func setResumeHint(_ hint: DisplayText?) {
    guard let hint else { return setResumeHint(making: nil) }
    setResumeHint(making: { hint })
  }

  /// The resume note, made only when it is printed: for work that would otherwise make a new
  /// note for each file it finishes.
  static func setResumeHint(making make: (@Sendable () -> DisplayText)?) {
    state.withLock { $0.resumeHint = make }
  }

  /// Runs `body` in a task that SIGINT and SIGTERM cancel; ignores SIGPIPE (a closed stdout
  /// shows up as EPIPE instead).
  static func run(_ body: @escaping @Sendable () async throws -> Void) async throws {
    guard Runtime.current.handlesSignals else {
      try await body()
      return
    }
    signal(SIGPIPE, SIG_IGN)
    let task = Task { try await body() }
    state.withLock { $0.task = task }
    let signals = TerminationSignals { handle($0) }
    state.withLock { $0.signals = signals }
    try await task.value
  }

  private static func handle(_ number: Int32) {
    let task = state.withLock { state -> Task<Void, any Error>? in
      state.signal = number
      return state.task
    }
    task?.cancel()
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(700)) {
      let hint = state.withLock { $0.resumeHint }
      if let hint { Diagnostics.note(hint()) }
      TemporaryFiles.removeAll()
      exit(number == SIGTERM ? 143 : 130)
    }
  }
}
