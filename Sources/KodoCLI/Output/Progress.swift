import StorageCore
import Synchronization

/// "listed 120,000 entries (8,500/s)" redrawn on stderr while a long listing goes to a file or a
/// pipe; told about long runs of empty pages too, so that a listing never looks hung.
final class Progress: Sendable {
  private let enabled: Bool
  private let started = ContinuousClock.now
  private let state = Mutex(State())

  private struct State {
    var count = 0
    var matched = 0
    var lastDraw = ContinuousClock.now
    var drawn = false
  }

  init(enabled: Bool) { self.enabled = enabled }

  func add(_ entries: Int) { add(entries, matched: nil) }

  /// `entries` more keys scanned, `matched` of them kept: "scanned 120000 keys, matched 12
  /// (8500/s)".
  func add(_ entries: Int, matched: Int?) {
    guard enabled else { return }
    let line = state.withLock { state -> DisplayText? in
      state.count += entries
      state.matched += matched ?? 0
      let now = ContinuousClock.now
      guard now - state.lastDraw > .milliseconds(250) else { return nil }
      state.lastDraw = now
      state.drawn = true
      let elapsed = Self.seconds(now - started)
      let rate = elapsed > 0 ? Int(Double(state.count) / elapsed) : 0
      guard matched != nil else { return "listed \(state.count) entries (\(rate)/s)" }
      return "scanned \(state.count) keys, matched \(state.matched) (\(rate)/s)"
    }
    if let line { Diagnostics.progress("\r\u{1B}[K" + line) }
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

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
