import StorageCore
import Synchronization

/// The progress of a transfer of files (`get -r`, `get`, `put`, `put -r`, `sync`): objects and
/// bytes done of those listed so far, the transfer rate and, once the listing is complete, the
/// time left.
///
/// On a terminal: "[#######-------------]  12/40 objects  3.1 MiB/10.2 MiB  1.2 MiB/s  ETA 6s",
/// redrawn in place at most four times a second; while the listing still runs the bar reads
/// "listing…" and the totals read "≥". Elsewhere (a log file, a pipe) the same figures without
/// the bar, as a plain `kodo: …` line every `Progress.lineInterval`, so that a long transfer in
/// a script or a cron job says it is alive without filling the log. Objects already there
/// (kept) count as done but not toward the rate.
final class TransferProgress: Sendable {
  /// What the line shows.
  struct Counts: Sendable, Equatable {
    var objectsDone = 0
    var objectsListed = 0
    var bytesDone: Int64 = 0
    var bytesListed: Int64 = 0
    /// Bytes that were downloaded (not kept), for the rate.
    var bytesTransferred: Int64 = 0
    var listingComplete = false
    /// Bytes of the one object in parts under way (an upload's parts held by the service),
    /// counted as done and transferred until the object is finished.
    var bytesUnderWay: Int64 = 0
  }

  let mode: Progress.Mode
  private let now: @Sendable () -> ContinuousClock.Instant
  private let started: ContinuousClock.Instant
  private let state: Mutex<State>

  private struct State {
    var counts = Counts()
    var lastDraw: ContinuousClock.Instant?
    var drawn = false
  }

  /// Progress shown as `mode` says, with the time from `now` (a test's clock).
  init(
    mode: Progress.Mode,
    now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
  ) {
    self.mode = mode
    self.now = now
    let started = now()
    self.started = started
    // Plain lines start one interval after the start; the bar at once.
    var state = State()
    if case .lines = mode { state.lastDraw = started }
    self.state = Mutex(state)
  }

  convenience init(enabled: Bool) { self.init(mode: enabled ? .terminal : .off) }

  /// A transfer's progress: the bar when stderr is a terminal (unless `json` lines also go to
  /// a terminal on stdout), plain lines every `Progress.lineInterval` when stderr is a file or
  /// a pipe and the output is not `--json` (a script reading JSON wants no prose on stderr
  /// but errors), nothing when a browser owns the diagnostics.
  static func forTransfer(json: Bool, output: OutputStream) -> TransferProgress {
    TransferProgress(
      mode: mode(
        stderrIsTerminal: Diagnostics.isTerminal, stdoutIsTerminal: output.isTerminal, json: json,
        sinkOwnsDiagnostics: Runtime.current.diagnosticsSink != nil))
  }

  /// The mode `forTransfer` chooses.
  static func mode(
    stderrIsTerminal: Bool, stdoutIsTerminal: Bool, json: Bool, sinkOwnsDiagnostics: Bool
  ) -> Progress.Mode {
    if sinkOwnsDiagnostics { return .off }
    if stderrIsTerminal { return json && stdoutIsTerminal ? .off : .terminal }
    return json ? .off : .lines(every: Progress.lineInterval)
  }

  /// `count` objects of `bytes` in all were listed.
  func listed(objects count: Int, bytes: Int64) {
    update { counts in counts.listed(objects: count, bytes: bytes) }
  }

  /// One object of `bytes` listed and kept at once (found the same with no work): `listed`
  /// and `finished` in one update.
  func kept(bytes: Int64) {
    update { counts in
      counts.listed(objects: 1, bytes: bytes)
      counts.finished(bytes: bytes, transferred: false)
    }
  }

  /// The listing is complete: the totals are known.
  func listingComplete() { update { $0.listingComplete = true } }

  /// One object is done: `transferred` (downloaded) or kept.
  func finished(bytes: Int64, transferred: Bool) {
    update { counts in counts.finished(bytes: bytes, transferred: transferred) }
  }

  /// The totals are known from the start (a single `get`): `count` objects of `bytes` in all.
  func expecting(objects count: Int, bytes: Int64) {
    update { counts in
      counts.objectsListed = count
      counts.bytesListed = bytes
      counts.listingComplete = true
    }
  }

  /// A single object's download (`get`): `bytes` of it are written so far.
  func transferring(bytes: Int64) {
    update { counts in
      counts.bytesDone = max(0, bytes)
      counts.bytesTransferred = max(0, bytes)
    }
  }

  /// The one object in parts under way (an upload) has `bytes` of it on the service so far;
  /// `finished` ends it.
  func underWay(bytes: Int64) { update { $0.bytesUnderWay = max(0, bytes) } }

  /// Erases the bar (before other diagnostics, and at the end).
  func clear() {
    guard case .terminal = mode else { return }
    let drawn = state.withLock { state -> Bool in
      defer { state.drawn = false }
      return state.drawn
    }
    if drawn { Diagnostics.progress("\r\u{1B}[K") }
  }

  private func update(_ change: (inout Counts) -> Void) {
    let interval: Duration
    let terminal: Bool
    switch mode {
    case .off: return
    case .terminal: (interval, terminal) = (.milliseconds(250), true)
    case .lines(let every): (interval, terminal) = (every, false)
    }
    let line = state.withLock { state -> DisplayText? in
      change(&state.counts)
      let now = self.now()
      if let last = state.lastDraw, now - last < interval { return nil }
      state.lastDraw = now
      state.drawn = terminal
      var shown = state.counts
      shown.bytesDone = shown.bytesDone.addingClamped(shown.bytesUnderWay)
      shown.bytesTransferred = shown.bytesTransferred.addingClamped(shown.bytesUnderWay)
      return Self.line(shown, elapsed: Progress.seconds(now - started), bar: terminal)
    }
    guard let line else { return }
    if terminal {
      Diagnostics.progress("\r\u{1B}[K" + line)
    } else {
      Diagnostics.note(line)
    }
  }

  /// The progress line for `counts` after `elapsed` seconds, with the bar or without.
  static func line(_ counts: Counts, elapsed: Double, bar drawsBar: Bool = true) -> DisplayText {
    let atLeast = counts.listingComplete ? "" : "≥"
    let width = 20
    var filled = 0
    if counts.bytesListed > 0 {
      filled = Int(Double(width) * min(1, Double(counts.bytesDone) / Double(counts.bytesListed)))
    } else if counts.objectsListed > 0 {
      filled = width * min(counts.objectsDone, counts.objectsListed) / counts.objectsListed
    }
    filled = max(0, min(width, filled))
    // While the listing runs, what is done of what was listed so far says nothing of the whole:
    // a bar nearly full then would mislead (L17).
    let bar =
      counts.listingComplete
      ? String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
      : "listing…" + String(repeating: " ", count: width - 8)
    var text = drawsBar ? "[" + bar + "]  " : ""
    text +=
      "\(counts.objectsDone)/\(atLeast)\(counts.objectsListed) objects  "
      + ByteSize.text(counts.bytesDone, wholeFrom100: true) + "/" + atLeast
      + ByteSize.text(counts.bytesListed, wholeFrom100: true)
    let rate = elapsed > 0 ? Double(counts.bytesTransferred) / elapsed : 0
    text += "  " + ByteSize.text(Int64(min(rate, 1e18)), wholeFrom100: true) + "/s"
    let remaining = counts.bytesListed - counts.bytesDone
    if counts.listingComplete, rate >= 1, remaining >= 0 {
      text += "  ETA " + duration(Double(remaining) / rate)
    } else if counts.listingComplete && remaining <= 0 {
      text += "  ETA 0s"
    } else {
      text += "  ETA --"
    }
    return DisplayText(escaping: text)
  }

  /// `75` → `1m15s`, `3725` → `1h02m`.
  static func duration(_ seconds: Double) -> String {
    let whole = Int(min(seconds.rounded(.up), 359_999))
    if whole < 60 { return "\(whole)s" }
    if whole < 3600 { return "\(whole / 60)m\(twoDigits(whole % 60))s" }
    return "\(whole / 3600)h\(twoDigits(whole % 3600 / 60))m"
  }

  private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension TransferProgress.Counts {
  fileprivate mutating func listed(objects count: Int, bytes: Int64) {
    objectsListed += count
    bytesListed = bytesListed.addingClamped(bytes)
  }

  fileprivate mutating func finished(bytes: Int64, transferred: Bool) {
    objectsDone += 1
    bytesUnderWay = 0
    bytesDone = bytesDone.addingClamped(bytes)
    if transferred { bytesTransferred = bytesTransferred.addingClamped(bytes) }
  }
}

extension Int64 {
  /// `self + other`, held at `Int64.max` rather than trapping.
  fileprivate func addingClamped(_ other: Int64) -> Int64 {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other > 0 ? .max : .min) : sum
  }
}
