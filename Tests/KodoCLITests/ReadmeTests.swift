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
