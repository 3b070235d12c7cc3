import Foundation
import KodoTestSupport
import Testing

@testable import KodoCLI

/// Shell completion: profiles, buckets and keys from the service, through ArgumentParser's
/// `---completion` protocol (what the generated scripts run).
@Suite("shell completion against kodo-emulator", .serialized)
struct CompletionTests {
  /// ArgumentParser's request: `---completion SUBCOMMAND… -- ARGUMENT INDEX CURSOR WORD…`,
  /// completing the last of `words` with the cursor at its end.
  static func request(_ subcommands: [String], _ argument: String, _ words: [String]) -> [String] {
    ["---completion"] + subcommands + [
      "--", argument, "\(words.count - 1)", "\(words.last?.utf8.count ?? 0)",
    ]
      + words
  }

  static func inProcess(
    _ subcommands: [String], _ argument: String, _ words: [String],
    environment: [String: String] = [:]
  ) async throws -> CLIRunner.Result {
    let env = try await CLIEnvironment.get()
    var merged = ["KODO_CONFIG": env.config]
    for (name, value) in environment { merged[name] = value }
    return try await InProcess.run(
      request(subcommands, argument, words), environment: merged)
  }

  @Test func bucketsThenFoldersAndKeysUnderTheTypedPrefix() async throws {
    let all = try await Self.inProcess(["ls"], "positional@0", ["kodo", "ls", ""])
    #expect(all.status == 0, "\(all)")
    #expect(all.stderr.isEmpty, "\(all)")
    #expect(all.lines == ["big/", "logs/", "photos/"])
    let some = try await Self.inProcess(["find"], "positional@0", ["kodo", "find", "ph"])
    #expect(some.lines == ["photos/"], "\(some)")
    // One level under the prefix: the folder, then the objects (as the served files are).
    let level = try await Self.inProcess(["du"], "positional@0", ["kodo", "du", "photos/2024/"])
    #expect(level.lines == ["photos/2024/summer trip/", "photos/2024/x.txt"], "\(level)")
    let root = try await Self.inProcess(["ls"], "positional@0", ["kodo", "ls", "photos/"])
    let expected = Set(
      CLIEnvironment.photos.keys.map { key -> String in
        guard let slash = key.firstIndex(of: "/") else { return "photos/" + key }
        return "photos/" + key[...slash]
      })
    #expect(Set(root.lines) == expected, "\(root)")
    // A key a shell cannot take as one line is left out, the others kept.
    let odd = try await Self.inProcess(["ls"], "positional@0", ["kodo", "ls", "photos/odd/"])
    #expect(odd.lines == ["photos/odd/plus+percent%.txt"], "\(odd)")
  }

  @Test func keysAfterTheBucketAndTheConfiguredBucketsKeysFirst() async throws {
    let keys = try await Self.inProcess(
      ["stat"], "positional@0", ["kodo", "stat", "logs", "2024-06-0"])
    #expect(keys.lines == ["2024-06-01/", "2024-06-02/"], "\(keys)")
    let nested = try await Self.inProcess(
      ["cat"], "positional@0", ["kodo", "cat", "logs", "2024-06-01/"])
    #expect(nested.lines == ["2024-06-01/app.log"], "\(nested)")
    // The first word is a bucket, or a key in the configured bucket (photos).
    let first = try await Self.inProcess(["url"], "positional@0", ["kodo", "url", "b"])
    #expect(first.lines == ["big", "big/", "b.json"], "\(first)")
    // Options already typed are read: --json before the bucket changes nothing.
    let typed = try await Self.inProcess(
      ["get"], "positional@0", ["kodo", "--json", "get", "photos", "a"])
    #expect(typed.lines == ["a.txt"], "\(typed)")
  }

  @Test func syncCompletesEitherSideThenTheOther() async throws {
    let source = try await Self.inProcess(["sync"], "positional@0", ["kodo", "sync", "lo"])
    #expect(source.lines.contains("logs/"), "\(source)")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-complete-\(UUID())"
    ).path
    try FileManager.default.createDirectory(
      atPath: directory + "/site", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let local = try await Self.inProcess(
      ["sync"], "positional@0", ["kodo", "sync", directory + "/s"])
    #expect(local.lines == [directory + "/site/"], "\(local)")
    let remote = try await Self.inProcess(
      ["sync"], "positional@0", ["kodo", "sync", directory + "/site", "lo"])
    #expect(remote.lines == ["logs/"], "\(remote)")
    let back = try await Self.inProcess(
      ["sync"], "positional@0", ["kodo", "sync", "logs/", directory + "/s"])
    #expect(back.lines == [directory + "/site/"], "\(back)")
  }

  @Test func rmMvAndCpCompleteBucketsAndKeys() async throws {
    let keys = try await Self.inProcess(
      ["rm"], "positional@0", ["kodo", "rm", "logs", "2024-06-0"])
    #expect(keys.lines == ["2024-06-01/", "2024-06-02/"], "\(keys)")
    let folder = try await Self.inProcess(
      ["rm"], "positional@0", ["kodo", "rm", "-r", "logs/2024-06-01/"])
    #expect(folder.lines == ["logs/2024-06-01/app.log"], "\(folder)")
    for verb in ["mv", "cp"] {
      let source = try await Self.inProcess([verb], "positional@0", ["kodo", verb, "lo"])
      #expect(source.lines == ["logs/"], "\(verb): \(source)")
      let destination = try await Self.inProcess(
        [verb], "positional@0", ["kodo", verb, "logs/2024-06-01/app.log", "logs/2024-06-0"])
      #expect(destination.lines == ["logs/2024-06-01/", "logs/2024-06-02/"], "\(destination)")
      let none = try await Self.inProcess(
        [verb], "positional@0", ["kodo", verb, "logs/a", "logs/b", "lo"])
      #expect(none.lines.isEmpty, "\(none)")
    }
  }

  @Test func getRecursiveCompletesAPathThenALocalDirectory() async throws {
    let source = try await Self.inProcess(["get"], "positional@0", ["kodo", "get", "-r", "lo"])
    #expect(source.lines == ["logs/"], "\(source)")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-complete-\(UUID())"
    ).path
    try FileManager.default.createDirectory(
      atPath: directory + "/out one", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: directory + "/other", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: directory + "/only-a-file", contents: Data())
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let local = try await Self.inProcess(
      ["get"], "positional@0", ["kodo", "get", "-r", "logs/", directory + "/o"])
    #expect(local.lines == [directory + "/other/", directory + "/out one/"], "\(local)")
  }

  @Test func profilesFromTheConfigFileTheLineNames() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-complete-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let config = directory + "/c.json"
    try Data(
      #"{"accessKey":"a","secretKey":"b","profiles":{"staging":{},"prod":{},"stage2":{}}}"#.utf8
    ).write(to: URL(fileURLWithPath: config))
    let all = try await Self.inProcess(
      [], "--profile", ["kodo", "--config", config, "--profile", ""])
    #expect(all.lines == ["prod", "stage2", "staging"], "\(all)")
    let some = try await Self.inProcess(
      ["ls"], "--profile", ["kodo", "ls", "--config", config, "--profile", "sta"])
    #expect(some.lines == ["stage2", "staging"], "\(some)")
  }

  @Test func anyFailureAnswersNothing() async throws {
    // Nothing listens on the port: no candidates, no error, exit 0.
    let unreachable = try await Self.inProcess(
      ["ls"], "positional@0", ["kodo", "ls", "ph"],
      environment: ["KODO_ENDPOINT": "http://127.0.0.1:9"])
    #expect(unreachable.status == 0, "\(unreachable)")
    #expect(unreachable.stdoutBytes.isEmpty, "\(unreachable)")
    #expect(unreachable.stderr.isEmpty, "\(unreachable)")
    // A config file that does not exist, a bucket that does not, a profile that does not.
    let cases: [[String]] = [
      ["kodo", "ls", "--config", "/nonexistent/kodo.json", "ph"],
      ["kodo", "ls", "nosuchbucket/"],
      ["kodo", "ls", "--profile", "nope", "ph"],
      ["kodo", "ls", "--limit", "x", "ph"],
    ]
    for words in cases {
      let result = try await Self.inProcess(["ls"], "positional@0", words)
      #expect(result.status == 0, "\(words) \(result)")
      #expect(result.stdoutBytes.isEmpty && result.stderr.isEmpty, "\(words) \(result)")
    }
  }

  @Test func theRealBinaryAnswersTheProtocolAndTheScriptsAreGenerated() async throws {
    let env = try await CLIEnvironment.get()
    let result = try await env.run(
      Self.request(["ls"], "positional@0", ["kodo", "ls", "photos/2024/"]))
    #expect(result.status == 0, "\(result)")
    #expect(result.lines == ["photos/2024/summer trip/", "photos/2024/x.txt"], "\(result)")
    for shell in ["bash", "zsh", "fish"] {
      let script = try await env.run(["--generate-completion-script", shell])
      #expect(script.status == 0, "\(shell) \(script)")
      #expect(script.stdout.contains("---completion ls -- positional@0"), "\(shell)")
      #expect(script.stdout.contains("--profile"), "\(shell)")
    }
  }

  @Test func bashCompletesThroughTheGeneratedScript() async throws {
    guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return }
    let env = try await CLIEnvironment.get()
    let result = try await env.kodo.runShell(
      """
      export KODO_CONFIG=\(env.config)
      source <("$KODO" --generate-completion-script bash)
      COMP_WORDS=("$KODO" ls photos/2024/)
      COMP_CWORD=2
      COMP_LINE="${COMP_WORDS[*]}"
      COMP_POINT=${#COMP_LINE}
      _kodo
      printf '%s\\n' "${COMPREPLY[@]}"
      """)
    #expect(result.status == 0, "\(result)")
    // bash's -W splits words at blanks, so the folder with a space comes in two pieces; the
    // key without one is whole.
    #expect(result.lines.contains("photos/2024/x.txt"), "\(result)")
  }
}
