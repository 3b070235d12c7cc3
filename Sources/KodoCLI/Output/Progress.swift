import StorageCore
import Synchronization

/// "listed 120,000 entries (8,500/s)" redrawn on stderr while a long listing goes to a file or a
/// pipe; told about long runs of empty pages too, so that a listing never looks hung.
///
/// On a terminal the line is redrawn in place; elsewhere (a log file, a pipe) a plain
/// `kodo: scanned …` line is written every `interval`, so a long scan in a script or a cron job
/// says it is alive without filling the log.
final class Progress: Sendable {
  /// How progress is shown.
  enum Mode: Sendable, Equatable {
    /// Not at all.
    case off
    /// One line redrawn in place with `\r` (stderr is a terminal).
    case terminal
    /// A plain line every `interval` (stderr is a file or a pipe).
    case lines(every: Duration)
  }

  /// How often a scan writes a plain progress line when stderr is not a terminal: the
  /// runtime's (10 s for the executable).
  static var lineInterval: Duration { Runtime.current.progressLineInterval }

  let mode: Mode
  private let started = ContinuousClock.now
  private let state = Mutex(State())

  private struct State {
    var count = 0
    var matched = 0
    var lastDraw = ContinuousClock.now
    var drawn = false
  }

  init(mode: Mode) { self.mode = mode }

  convenience init(enabled: Bool) { self.init(mode: enabled ? .terminal : .off) }

  /// Redrawn on a terminal, plain lines elsewhere (for scans that run long: `du`, `find`).
  static func forScan() -> Progress {
    Progress(mode: Diagnostics.isTerminal ? .terminal : .lines(every: lineInterval))
  }

  func add(_ entries: Int) { add(entries, matched: nil) }

  /// `entries` more keys scanned, `matched` of them kept: "scanned 120000 keys, matched 12
  /// (8500/s)".
  func add(_ entries: Int, matched: Int?) {
    let interval: Duration
    switch mode {
    case .off: return
    case .terminal: interval = .milliseconds(250)
    case .lines(let every): interval = every
    }
    let line = state.withLock { state -> DisplayText? in
      state.count += entries
      state.matched += matched ?? 0
      let now = ContinuousClock.now
      guard now - state.lastDraw >= interval else { return nil }
      state.lastDraw = now
      if case .terminal = mode { state.drawn = true }
      let elapsed = Self.seconds(now - started)
      let rate = elapsed > 0 ? Int(Double(state.count) / elapsed) : 0
      guard matched != nil else { return "listed \(state.count) entries (\(rate)/s)" }
      return "scanned \(state.count) keys, matched \(state.matched) (\(rate)/s)"
    }
    guard let line else { return }
    if case .terminal = mode {
      Diagnostics.progress("\r\u{1B}[K" + line)
    } else {
      Diagnostics.note(line)
    }
  }

  /// A run of `count` empty pages so far: shown every 100 pages, on a terminal or not.
  func emptyPages(_ count: Int) {
    guard count % 100 == 0 else { return }
    clear()
    Diagnostics.note("\(count) pages in a row brought no entry; still listing")
  }

  func clear() {
    let drawn = state.withLock { state -> Bool in
      defer { state.drawn = false }
      return state.drawn
    }
    if drawn { Diagnostics.progress("\r\u{1B}[K") }
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
