import Foundation
import KodoTestSupport
import StorageCore
import Testing

/// The README's examples and promises hold.
@Suite("The README")
struct ReadmeTests {
  static func readme() throws -> String {
    try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
  }

  /// The lines of the README that run `kodo url … --deadline …`.
  static func deadlineCommands() throws -> [String] {
    try readme().split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("kodo url") && $0.contains("--deadline")
    }
  }

  @Test func noExampleUsesADeadlineThatHasPassed() throws {
    let commands = try Self.deadlineCommands()
    #expect(!commands.isEmpty)
    let now = Int64(Date().timeIntervalSince1970)
    for command in commands {
      let words = command.split(separator: " ")
      guard let index = words.firstIndex(of: "--deadline"), index + 1 < words.count else {
        Issue.record("no value after --deadline: \(command)")
        continue
      }
      if let literal = Int64(words[index + 1]) {
        #expect(literal > now + 365 * 86400, "a fixed deadline soon passes: \(command)")
      }
    }
  }

  @Test func theDeadlineExampleRuns() async throws {
    let env = try await CLIEnvironment.get()
    for command in try Self.deadlineCommands() {
      let line = String(command.prefix { $0 != "#" })
      let runner = CLIRunner("kodo", environment: ["KODO_CONFIG": env.config])
      let result = try await runner.runShell(#""$KODO""# + line.dropFirst("kodo".count))
      #expect(result.status == 0, "\(command): \(result)")
      #expect(result.stdout.contains("token="), "\(result)")
    }
  }

  /// Issue 19 H7, M8, M15, P4: every shell block of the README runs as written against
  /// emulators started as the README starts them on `demo/buckets`: each command exits as the
  /// README says, prints what the README shows (ports, times and signatures aside), and each
  /// emulator prints the lines the README shows, the `export` line the README pastes included.
  @Test func theShellBlocksRunAsWrittenAgainstTheDemoBuckets() async throws {
    let steps = ReadmeSessions.steps(ReadmeSessions.blocks(try Self.readme()))
    let emulators = steps.filter { $0.kind == .emulator }
    #expect(emulators.count == 2, "a Kodo and an OSS emulator: \(emulators.map(\.line))")
    #expect(steps.filter { $0.expected != nil && $0.kind == .command }.count > 10)
    let runner = CLIRunner(
      "kodo", environment: ["PATH": CLIRunner.binDirectory.path + ":/usr/bin:/bin"])
    let script = ReadmeSessions.script(steps, root: Fixtures.repositoryRoot.path)
    let run = try await runner.runShell(script)
    let results = ReadmeSessions.results(run.stdout, count: steps.count)
    #expect(results.count == steps.count, "\(run)")
    for (step, result) in zip(steps, results) {
      let printed = result.output.joined(separator: "\n")
      #expect(result.status == 0, "\(step.line)\nexit \(result.status)\n\(printed)")
      guard let expected = step.expected else { continue }
      let got = result.output.map(ReadmeSessions.normalized)
      let want = expected.map(ReadmeSessions.normalized)
      #expect(got == want, "\(step.line)\n--- printed ---\n\(printed)")
    }
    // The `export` lines the README pastes are the ones the emulators print.
    let printedExports = zip(steps, results).filter { $0.0.kind == .emulator }.map {
      $0.1.output.first { $0.hasPrefix("export ") } ?? ""
    }
    for step in steps where step.line.hasPrefix("export ") {
      guard let index = ReadmeSessions.emulator(for: step.line, among: steps),
        index < printedExports.count
      else {
        Issue.record("no emulator for \(step.line)")
        continue
      }
      #expect(
        ReadmeSessions.normalized(step.line) == ReadmeSessions.normalized(printedExports[index]))
    }
  }

  /// docs/emulator.md's start-up samples are what the emulator prints (issue 19 P4).
  @Test func theEmulatorDocsStartUpSamplesAreWhatItPrints() async throws {
    let text = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/emulator.md"),
      encoding: .utf8)
    // Only the emulators: the other examples name a fixed port or need an SDK. A fixed port
    // could be taken on a test machine: port 0 stands for it.
    let steps = ReadmeSessions.steps(ReadmeSessions.blocks(text)).filter { $0.kind == .emulator }
      .map { step -> ReadmeSessions.Step in
        var step = step
        step.line = step.line.replacingOccurrences(of: "--port 9000", with: "--port 0")
        return step
      }
    #expect(steps.count == 2, "\(steps.map(\.line))")
    let runner = CLIRunner(
      "kodo", environment: ["PATH": CLIRunner.binDirectory.path + ":/usr/bin:/bin"])
    let script = ReadmeSessions.script(steps, root: Fixtures.repositoryRoot.path)
    let run = try await runner.runShell(script)
    let results = ReadmeSessions.results(run.stdout, count: steps.count)
    #expect(results.count == steps.count, "\(run)")
    for (step, result) in zip(steps, results) {
      #expect(result.status == 0, "\(step.line)\n\(result.output.joined(separator: "\n"))")
      #expect(
        result.output.map(ReadmeSessions.normalized)
          == (step.expected ?? []).map(ReadmeSessions.normalized), "\(step.line)")
    }
  }

  /// Issue 19 M7: `url` signs offline and never asks whether a key exists, so the README does not
  /// promise a not-found exit for it.
  @Test func urlIsNotSaidToReportMissingKeys() throws {
    let text = try Self.readme().replacingOccurrences(of: "\n", with: " ")
    #expect(!text.contains("`stat` and `url` take several keys after the bucket; a missing key"))
    #expect(text.contains("`url` signs offline"))
  }

  @Test func theTimeoutsItStatesAreTheDefaults() throws {
    let text = try Self.readme().replacingOccurrences(of: "\n", with: " ")
    let defaults = CurlTransport.Configuration()
    #expect(defaults.requestTimeout == .seconds(120) && defaults.idleTimeout == .seconds(30))
    #expect(text.contains("an overall deadline of SECONDS from connecting to the last byte"))
    #expect(text.contains("default 120"))
    #expect(text.contains("after SECONDS without progress, default 30"))
    #expect(!text.contains("makes no progress, default 30"))
  }
}
