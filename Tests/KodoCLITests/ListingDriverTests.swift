import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

/// `ls`, `find` and `du` share one listing driver (`RecursiveScan`): a listing that fails after
/// its first page stops the same way in each, with whole pages written, the note that says where
/// to resume (where resuming is possible), and a resumed run that lists exactly the rest.
@Suite("One listing driver: ls, find and du stop and resume alike")
struct ListingDriverTests {
  static let keys = (0..<7).map { "d/\($0)" }

  /// The first list request is answered normally, every later one fails with 503.
  static func failAfterFirstPage(_ emulator: EmulatorHarness) {
    // A no-op fault (a clock off by 0 s) takes the first request, so the 503s start at the second.
    emulator.server.scheduleFault(
      EmulatorFault(endpoint: .list, mode: .skewedDate(seconds: 0), count: 1))
    emulator.server.scheduleFault(EmulatorFault(endpoint: .list, mode: .status(503), count: 100))
  }

  /// The marker of the stderr note `the listing stopped; resume with: … --marker M`, unquoted.
  static func resumeMarker(_ stderr: String, command: String) -> String? {
    guard
      let line = stderr.split(separator: "\n").first(where: {
        $0.contains("the listing stopped; resume with: ") && $0.contains("kodo " + command + " ")
      }),
      let range = line.range(of: " --marker ", options: .backwards)
    else { return nil }
    let quoted = String(line[range.upperBound...])
    guard quoted.hasPrefix("'") else { return quoted }
    return String(quoted.dropFirst().dropLast()).replacingOccurrences(of: "'\\''", with: "'")
  }

  /// The NUL-separated records of `-0` output.
  static func records(_ result: CLIRunner.Result) -> [String] {
    result.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
  }

  @Test(arguments: RemoveTests.wires, [["ls", "-r", "-0"], ["find", "-0"]])
  func aFailureAfterTheFirstPageSaysWhereToResume(
    _ wire: EmulatorProtocol, _ command: [String]
  ) async throws {
    try await MoveRecursiveTests.with(wire, keys: Self.keys) { emulator, environment in
      let arguments = command + ["--retries", "1", "--page-size", "3", "bkt"]
      Self.failAfterFirstPage(emulator)
      let failed = try await InProcess.run(arguments, environment: environment)
      _ = emulator.server.clearFaults()
      expectFailure(failed, status: 75, stdoutEmpty: false)
      #expect(Self.records(failed) == Array(Self.keys.prefix(3)), "\(failed)")
      let marker = try #require(Self.resumeMarker(failed.stderr, command: command[0]), "\(failed)")
      let resumed = try await InProcess.run(
        arguments + ["--marker", marker], environment: environment)
      #expect(resumed.status == 0, "\(resumed)")
      #expect(Self.records(resumed) == Array(Self.keys.dropFirst(3)), "\(resumed)")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func duStopsWithoutANoteItCannotHonour(_ wire: EmulatorProtocol) async throws {
    try await MoveRecursiveTests.with(wire, keys: Self.keys) { emulator, environment in
      Self.failAfterFirstPage(emulator)
      let failed = try await InProcess.run(
        ["du", "--retries", "1", "--page-size", "3", "bkt"], environment: environment)
      _ = emulator.server.clearFaults()
      expectFailure(failed, status: 75)
      #expect(!failed.stderr.contains("resume with"), "\(failed)")
    }
  }

  /// A `--parallel` listing cannot be resumed with a marker: `ls` says so, `find` and `du` stop
  /// with the error alone.
  @Test(arguments: RemoveTests.wires, [["ls", "-r"], ["find"], ["du"]])
  func aParallelListingThatFailsSaysItCannotBeResumed(
    _ wire: EmulatorProtocol, _ command: [String]
  ) async throws {
    try await MoveRecursiveTests.with(wire, keys: Self.keys) { emulator, environment in
      Self.failAfterFirstPage(emulator)
      let failed = try await InProcess.run(
        command + ["--retries", "1", "--page-size", "3", "--parallel", "2", "bkt"],
        environment: environment)
      _ = emulator.server.clearFaults()
      expectFailure(failed, status: 75, stdoutEmpty: command[0] != "ls")
      let note = "the listing stopped; a --parallel listing cannot be resumed with a marker"
      #expect(failed.stderr.contains(note) == (command[0] == "ls"), "\(failed)")
      #expect(!failed.stderr.contains("--marker"), "\(failed)")
    }
  }
}
