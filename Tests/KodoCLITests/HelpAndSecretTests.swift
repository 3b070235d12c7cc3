import Foundation
import KodoTestSupport
import Testing

@Suite("Help text does not drift unnoticed")
struct HelpGoldenTests {
  static let commands: [[String]] = [
    [], ["buckets"], ["ls"], ["stat"], ["url"], ["cat"], ["get"], ["domains"], ["token"],
    ["token", "qbox"], ["token", "qiniu"], ["token", "upload"], ["du"], ["find"], ["browse"],
    ["put"], ["rm"], ["mv"], ["cp"], ["sync"], ["set"], ["restore"],
  ]

  @Test(arguments: commands)
  func helpMatchesTheGoldenFile(_ command: [String]) async throws {
    let result = try await CLIRunner("kodo", environment: ["COLUMNS": "100"]).run(
      command + ["--help"])
    #expect(result.status == 0)
    let name = (["kodo"] + command).joined(separator: "-") + ".txt"
    let golden = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/help/" + name)
    if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
      try FileManager.default.createDirectory(
        at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
      try result.stdout.write(to: golden, atomically: true, encoding: .utf8)
    }
    let expected = try String(contentsOf: golden, encoding: .utf8)
    #expect(
      result.stdout == expected, "help of \(name) changed; rerun with RECORD_SNAPSHOTS=1 to accept")
    if !command.isEmpty && command != ["token"] {
      #expect(result.stdout.contains("kodo "), "every command's help shows an example")
    }
  }

  /// ArgumentParser adds "(default: X)" to an option with a default value: a help text that
  /// says it too shows the default twice.
  @Test(arguments: commands)
  func noOptionStatesItsDefaultTwice(_ command: [String]) async throws {
    let result = try await CLIRunner("kodo", environment: ["COLUMNS": "100"]).run(
      command + ["--help"])
    #expect(result.status == 0)
    // One entry per option: its first line starts with "  -", continuation lines are indented
    // further.
    var entries: [String] = []
    for line in result.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("  -") || line.hasPrefix("  <") {
        entries.append(String(line))
      } else if line.hasPrefix("    "), !entries.isEmpty {
        entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
      } else if !line.hasPrefix("  ") {
        entries.append("")
      }
    }
    for entry in entries {
      let count = entry.lowercased().components(separatedBy: "default").count - 1
      #expect(count <= 1, "\((["kodo"] + command).joined(separator: " ")): \(entry)")
    }
  }

  @Test func versionAndCompletions() async throws {
    let version = try await CLIRunner().run(["--version"])
    #expect(
      version.status == 0
        && version.stdout.range(of: #"^kodo \d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
    for shell in ["bash", "zsh", "fish"] {
      let script = try await CLIRunner().run(["--generate-completion-script", shell])
      #expect(script.status == 0 && script.stdout.contains("ls"), "\(shell)")
    }
  }
}

@Suite("The secret key never reaches any output", .serialized)
struct SecretTests {
  @Test func noCommandPrintsTheSecretKey() async throws {
    let env = try await CLIEnvironment.get()
    let secret = env.emulator.secretKey
    let runs: [[String]] = [
      ["buckets"], ["ls", "photos"], ["ls", "-r", "--limit", "2", "photos"],
      ["stat", "photos", "a.txt"],
      ["stat", "photos", "missing"], ["url", "logs", "2024-06-01/app.log"],
      ["cat", "logs", "2024-06-01/app.log"],
      ["domains", "photos"], ["token", "qbox", "http://x.example/a"],
      ["token", "qiniu", "http://x.example/a"],
      ["token", "upload", "photos"], ["ls", "nosuchbucket"],
      ["url", "--expires", "bad", "photos", "a"],
    ]
    for arguments in runs {
      for verbose in [false, true] {
        let result = try await env.run(arguments + (verbose ? ["-v"] : []))
        #expect(
          !result.stdout.contains(secret) && !result.stderr.contains(secret),
          "\(arguments) leaked the secret key")
        if verbose && !arguments.contains("token") && !arguments.contains("bad") {
          #expect(
            result.stderr.contains("Authorization: Qiniu \(env.emulator.accessKey):<redacted>")
              || !result.stderr.contains("Authorization"), "\(arguments)")
          #expect(result.stderr.contains(" -> "), "verbose prints request lines for \(arguments)")
        }
      }
    }
    // With a wrong secret, the error must not echo either secret.
    let wrong = try await env.run(
      ["buckets", "-v"], environment: ["QINIU_SECRET_KEY": "WRONG-SECRET-VALUE"])
    #expect(wrong.status == 77)
    #expect(!wrong.stderr.contains("WRONG-SECRET-VALUE") && !wrong.stderr.contains(secret))
  }
}
