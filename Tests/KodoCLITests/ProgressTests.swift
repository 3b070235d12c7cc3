import Foundation
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

@testable import KodoCLI

/// Progress on stderr: `get -r`'s bar (a pure line, drawn only on a terminal) and the plain
/// lines a scan writes when stderr is a file or a pipe.
@Suite("progress lines")
struct ProgressTests {
  typealias Counts = TransferProgress.Counts

  @Test func theTransferLineShowsObjectsBytesRateAndTimeLeft() {
    let half = Counts(
      objectsDone: 5, objectsListed: 10, bytesDone: 5 * 1_048_576, bytesListed: 10 * 1_048_576,
      bytesTransferred: 4 * 1_048_576, listingComplete: true)
    #expect(
      TransferProgress.line(half, elapsed: 2).text
        == "[##########----------]  5/10 objects  5.0 MiB/10.0 MiB  2.0 MiB/s  ETA 3s")
    // While the listing runs the totals are lower bounds, there is no estimate, and the bar
    // does not fill (L17: it looked nearly full).
    var listing = half
    listing.listingComplete = false
    #expect(
      TransferProgress.line(listing, elapsed: 2).text
        == "[listing…            ]  5/≥10 objects  5.0 MiB/≥10.0 MiB  2.0 MiB/s  ETA --")
    // Nothing moved yet: no rate, no estimate, no division by zero.
    #expect(
      TransferProgress.line(Counts(), elapsed: 0).text
        == "[listing…            ]  0/≥0 objects  0 B/≥0 B  0 B/s  ETA --")
    // Kept files count as done but not toward the rate; all done is 0s left.
    let kept = Counts(
      objectsDone: 3, objectsListed: 3, bytesDone: 300, bytesListed: 300, bytesTransferred: 0,
      listingComplete: true)
    #expect(
      TransferProgress.line(kept, elapsed: 1).text
        == "[####################]  3/3 objects  300 B/300 B  0 B/s  ETA 0s")
    // Zero-byte objects fill the bar by count.
    let empty = Counts(objectsDone: 1, objectsListed: 4, listingComplete: true)
    #expect(TransferProgress.line(empty, elapsed: 1).text.hasPrefix("[#####---------------]"))
    // A service's nonsense (negative sizes, more done than listed) never traps.
    let odd = Counts(
      objectsDone: 9, objectsListed: 2, bytesDone: -5, bytesListed: 10, bytesTransferred: -5,
      listingComplete: true)
    #expect(TransferProgress.line(odd, elapsed: 1).text.hasPrefix("[--------------------]"))
  }

  @Test func timeLeftReadsAsPeopleWriteIt() {
    #expect(TransferProgress.duration(0.2) == "1s")
    #expect(TransferProgress.duration(59) == "59s")
    #expect(TransferProgress.duration(75) == "1m15s")
    #expect(TransferProgress.duration(3725) == "1h02m")
    #expect(TransferProgress.duration(1e300) == "99h59m")
  }

  /// Runs `body` with diagnostics collected (stderr is then not a terminal).
  static func collecting(_ body: () -> Void) -> [(DiagnosticLevel, String)] {
    let lines = Mutex<[(DiagnosticLevel, String)]>([])
    var runtime = Runtime(environment: [:])
    runtime.diagnosticsSink = { level, text in lines.withLock { $0.append((level, text.text)) } }
    Runtime.$current.withValue(runtime) { body() }
    return lines.withLock { $0 }
  }

  @Test func aScanWritesPlainLinesWhenStderrIsNotATerminal() {
    let lines = Self.collecting {
      let progress = Progress(mode: .lines(every: .zero))
      progress.add(1000, matched: 3)
      progress.add(500, matched: 0)
      progress.clear()
    }
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.allSatisfy { $0.0 == .note })
    #expect(lines.first?.1.hasPrefix("scanned 1000 keys, matched 3 (") == true, "\(lines)")
    #expect(lines.last?.1.hasPrefix("scanned 1500 keys, matched 3 (") == true, "\(lines)")
    // Not before the interval: a short scan stays silent.
    let quiet = Self.collecting {
      let progress = Progress(mode: .lines(every: .seconds(3600)))
      progress.add(1000, matched: 3)
    }
    #expect(quiet.isEmpty)
    // du and find choose lines when stderr is not a terminal.
    let chosen = Self.collecting {
      guard case .lines(let every) = Progress.forScan().mode else {
        Issue.record("not lines")
        return
      }
      #expect(every == Progress.lineInterval)
    }
    #expect(chosen.isEmpty)
  }
}

/// `get -r`'s bar is drawn on a terminal only.
@Suite("get -r progress bar", .serialized)
struct RecursiveGetProgressTests {
  @Test func theBarIsDrawnOnATerminalAndNotInAPipe() async throws {
    let env = try await CLIEnvironment.get()
    let directory = try RecursiveGetTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let piped = try await env.run(["get", "-r", "logs", directory])
    #expect(piped.status == 0, "\(piped)")
    #expect(!piped.stderr.contains("objects") && !piped.stderr.contains("\r"), "\(piped)")
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
    let again = try RecursiveGetTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: again) }
    // script(1) gives the command a pseudo-terminal; its output is what the terminal got.
    let terminal = try await env.kodo.runShell(
      """
      KODO_CONFIG=\(env.config) script -qec "$KODO get -r logs \(again)" /dev/null
      """)
    #expect(terminal.status == 0, "\(terminal)")
    #expect(
      terminal.stdout.contains("\r\u{1B}[K[listing…            ]  0/≥1 objects"), "\(terminal)")
    #expect(terminal.stdout.contains("2 written"), "\(terminal)")
  }

  /// M11: a single `get` shows the same bar on a terminal (a large download looked hung).
  @Test func aSingleGetShowsTheBarOnATerminal() async throws {
    let env = try await CLIEnvironment.get()
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
    let directory = try RecursiveGetTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let terminal = try await env.kodo.runShell(
      """
      KODO_CONFIG=\(env.config) script -qec "$KODO get logs 2024-06-01/app.log -o \(directory)/a" /dev/null
      """)
    #expect(terminal.status == 0, "\(terminal)")
    #expect(terminal.stdout.contains("0/1 objects"), "\(terminal)")
  }
}
