import Foundation
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

@testable import KodoCLI

/// A transfer's progress when stderr is not a terminal: a plain line every 10 s of a clock the
/// test moves (no sleeps), and which mode each kind of output gets.
@Suite("transfer progress lines")
struct TransferProgressLinesTests {
  /// A clock that moves only when told.
  final class TestClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
  }

  /// What a progress of plain lines on a clock of its own writes while `body` drives both.
  static func linesWritten(_ body: (TransferProgress, TestClock) -> Void)
    -> [(DiagnosticLevel, String)]
  {
    let clock = TestClock()
    return ProgressTests.collecting {
      body(TransferProgress(mode: .lines(every: Progress.lineInterval), now: { clock.now }), clock)
    }
  }

  @Test func aPlainLineComesAfterTenSecondsAndNotBefore() {
    let clock = TestClock()
    let lines = ProgressTests.collecting {
      let progress = TransferProgress(
        mode: .lines(every: Progress.lineInterval), now: { clock.now })
      progress.listed(objects: 3, bytes: 3 << 20)
      progress.finished(bytes: 1 << 20, transferred: true)
      clock.advance(.seconds(9))
      progress.underWay(bytes: 512 << 10)
      #expect(progress.mode == .lines(every: .seconds(10)))
    }
    #expect(lines.isEmpty, "\(lines)")
    let clock2 = TestClock()
    let later = ProgressTests.collecting {
      let progress = TransferProgress(
        mode: .lines(every: Progress.lineInterval), now: { clock2.now })
      progress.listed(objects: 3, bytes: 3 << 20)
      progress.finished(bytes: 1 << 20, transferred: true)
      clock2.advance(.seconds(10))
      // The object in parts under way counts toward the bytes done.
      progress.underWay(bytes: 1 << 20)
      // Not again within the next 10 s.
      clock2.advance(.seconds(5))
      progress.finished(bytes: 1 << 20, transferred: true)
      clock2.advance(.seconds(5))
      progress.listingComplete()
      progress.clear()
    }
    #expect(later.count == 2, "\(later)")
    #expect(later.allSatisfy { $0.0 == .note }, "\(later)")
    #expect(
      later.first?.1 == "1/≥3 objects  2.0 MiB/≥3.0 MiB  205 KiB/s  ETA --", "\(later)")
    #expect(later.last?.1 == "2/3 objects  2.0 MiB/3.0 MiB  102 KiB/s  ETA 10s", "\(later)")
    #expect(!later.contains { $0.1.contains("[") || $0.1.contains("\r") }, "\(later)")
  }

  /// An object kept with no work counts as listed and done, as `listed` then `finished` do.
  @Test func aKeptObjectIsListedAndDone() {
    let lines = Self.linesWritten { progress, clock in
      progress.listed(objects: 1, bytes: 2 << 20)
      progress.underWay(bytes: 1 << 20)
      progress.kept(bytes: 1 << 20)
      progress.kept(bytes: 1 << 20)
      clock.advance(.seconds(10))
      progress.listingComplete()
    }
    #expect(lines.map(\.1) == ["2/3 objects  2.0 MiB/4.0 MiB  0 B/s  ETA --"], "\(lines)")
  }

  @Test func eachOutputGetsItsMode() {
    typealias P = TransferProgress
    // stderr a terminal: the bar, unless JSON lines go to the same terminal.
    #expect(
      P.mode(
        stderrIsTerminal: true, stdoutIsTerminal: true, json: false, sinkOwnsDiagnostics: false)
        == .terminal)
    #expect(
      P.mode(
        stderrIsTerminal: true, stdoutIsTerminal: false, json: true, sinkOwnsDiagnostics: false)
        == .terminal)
    #expect(
      P.mode(stderrIsTerminal: true, stdoutIsTerminal: true, json: true, sinkOwnsDiagnostics: false)
        == .off)
    // stderr a file or a pipe: plain lines, not with --json.
    #expect(
      P.mode(
        stderrIsTerminal: false, stdoutIsTerminal: false, json: false, sinkOwnsDiagnostics: false)
        == .lines(every: .seconds(10)))
    #expect(
      P.mode(
        stderrIsTerminal: false, stdoutIsTerminal: false, json: true, sinkOwnsDiagnostics: false)
        == .off)
    // A browser owns the diagnostics: nothing.
    #expect(
      P.mode(
        stderrIsTerminal: false, stdoutIsTerminal: true, json: false, sinkOwnsDiagnostics: true)
        == .off)
  }
}
