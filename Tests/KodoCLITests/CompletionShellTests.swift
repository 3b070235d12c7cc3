import Foundation
import KodoTestSupport
import Testing

@testable import KodoCLI

/// The generated completion scripts sourced in the real bash, zsh and fish, completing keys and
/// local folder names made to run commands when a shell expands them: every candidate must reach
/// the shell as the literal it is, and nothing may run. bash, zsh, fish and tmux are required
/// (`make deps` installs them): without them these fail.
@Suite("completion through real shells", .serialized)
struct CompletionShellTests {
  /// File names that a shell would expand, run or split, each with what would show it ran.
  static let hostile = [
    "$(touch pwned-1)", "`touch pwned-2`", "$((6*7))", "${HOME}", "~root", "{a,b}x", "it's",
    "a:b", #"back\slash"#, "sp ace", "semi;touch pwned-3", "star*", "dq\"q", "<lt>|&",
  ]
  static let hostileFolder = "folder $(touch pwned-4)"

  final class Fixture: Sendable {
    static let shared = Task { try await Fixture() }
    let emulator: EmulatorProcess
    let environment: [String: String]
    let kodo = CLIRunner("kodo").executable

    private init() async throws {
      let root = FileManager.default.temporaryDirectory.appendingPathComponent(
        "kodo-complete-shells-\(UUID())"
      ).path
      var files: [String: [UInt8]] = [:]
      for name in CompletionShellTests.hostile { files[name] = Array("x".utf8) }
      files[CompletionShellTests.hostileFolder + "/inner.txt"] = Array("y".utf8)
      try CLIEnvironment.writeTree(root: root, [("hostile", files)])
      emulator = try await EmulatorProcess(["--bucket", "hostile=\(root)/hostile"])
      var environment = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
        .environment
      environment["PATH"] = CLIRunner.binDirectory.path + ":/usr/bin:/bin"
      environment["TERM"] = "xterm-256color"
      self.environment = environment
    }
  }

  /// A new empty directory to complete in, holding a folder whose name is a command.
  static func workingDirectory() throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-complete-cwd-\(UUID())"
    ).path
    try FileManager.default.createDirectory(
      atPath: directory + "/$(touch pwned-5)", withIntermediateDirectories: true)
    return directory
  }

  /// Nothing named `pwned-…` was created in `directory`.
  static func expectNothingRan(in directory: String, _ comment: String) throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(!names.contains { $0.hasPrefix("pwned-") }, "\(names) \(comment)")
  }

  static var expectedKeys: Set<String> {
    Set(hostile.map { "hostile/" + $0 } + ["hostile/" + hostileFolder + "/"])
  }

  /// Runs `script` in `shell` with the fixture's environment, in `directory`.
  static func run(_ shell: String, _ arguments: [String], _ script: String, in directory: String)
    async throws -> CLIRunner.Result
  {
    let fixture = try await Fixture.shared.value
    let path = directory + "/driver"
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    var runner = CLIRunner("kodo", environment: fixture.environment)
    runner.environment["DRIVER"] = path
    runner.environment["WORK"] = directory
    return try await runner.runShell(
      "cd \"$WORK\" && exec \(shell) \(arguments.joined(separator: " ")) \"$DRIVER\"")
  }

  @Test func bashTakesEveryCandidateLiterallyAndRunsNothing() async throws {
    let directory = try Self.workingDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // `compopt` only works inside a completion that readline started: recorded instead.
    let result = try await Self.run(
      "/bin/bash", ["--norc", "--noprofile"],
      """
      source <(kodo --generate-completion-script bash) || exit 9
      function=$(complete -p kodo | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')
      compopt() { printf 'compopt %s\\n' "$*"; }
      ask() {
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        "$function" kodo "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\\n' "${COMPREPLY[@]}"
        printf '%s\\n' ----
      }
      ask kodo ls hostile/
      ask kodo stat hostile it
      ask kodo get -r hostile/ ''
      ask kodo ls hostile/fold
      """, in: directory)
    #expect(result.status == 0, "\(result)")
    let answers = result.stdout.components(separatedBy: "----\n")
    #expect(answers.count == 5, "\(result)")
    guard answers.count == 5 else { return }
    #expect(Set(answers[0].split(separator: "\n").map(String.init)) == Self.expectedKeys)
    #expect(answers[1] == "it's\n", "\(result)")
    #expect(answers[2] == "compopt -o nospace\n$(touch pwned-5)/\n", "\(result)")
    // A unique folder takes no space after it, so the next Tab goes one level down.
    #expect(
      answers[3] == "compopt -o nospace\nhostile/\(Self.hostileFolder)/\n", "\(result)")
    try Self.expectNothingRan(in: directory, "\(result)")
  }

  /// A shell in tmux (fish and zsh complete only in their interactive line editors) with the
  /// generated script loaded, in a directory holding a folder whose name is a command.
  static func interactive(_ shell: String, load: String) async throws -> TmuxSession {
    let fixture = try await Fixture.shared.value
    var environment = fixture.environment
    environment["PS1"] = "$ "
    let session = try await TmuxSession(
      command: shell, environment: environment, width: 200, height: 40)
    try FileManager.default.createDirectory(
      atPath: session.directory + "/$(touch pwned-5)", withIntermediateDirectories: true)
    try await session.type(load + " && echo READY\n")
    let seen = try await session.waitFor { $0.contains("\nREADY") }
    #expect(seen.holds, "\(seen.screen)")
    return session
  }

  /// Types `line`, presses Tab, and waits for `expected` on the screen.
  static func complete(_ session: TmuxSession, _ line: String, showing expected: [String])
    async throws -> String
  {
    try await session.keys("C-u")
    try await session.type(line)
    try await session.keys("Tab")
    let seen = try await session.waitFor { screen in expected.allSatisfy { screen.contains($0) } }
    #expect(seen.holds, "\(line): \(expected) \(seen.screen)")
    return seen.screen
  }

  @Test func fishListsAndInsertsEveryCandidateLiterallyAndRunsNothing() async throws {
    let session = try await Self.interactive(
      "fish --no-config", load: "kodo --generate-completion-script fish | source")
    let listed = try await Self.complete(session, "kodo ls hostile/", showing: ["$((6*7))"])
    for name in Self.hostile {
      #expect(listed.contains(name), "\(name) \(listed)")
    }
    _ = try await Self.complete(session, "kodo stat hostile it", showing: [#"hostile it\'s"#])
    _ = try await Self.complete(session, "kodo stat hostile a:", showing: ["hostile a:b"])
    let local = try await Self.complete(
      session, "kodo get -r hostile/ ", showing: [#"\$\(touch\ pwned-5\)/"#])
    try Self.expectNothingRan(in: session.directory, local)
    await session.close()
  }

  @Test func zshListsAndInsertsEveryCandidateLiterallyAndRunsNothing() async throws {
    let session = try await Self.interactive(
      "zsh -f -i",
      load:
        "autoload -Uz compinit && compinit -u && source <(kodo --generate-completion-script zsh)"
    )
    let listed = try await Self.complete(
      session, "kodo ls hostile/", showing: ["$((6*7))", "<lt>|&"])
    for name in Self.hostile {
      #expect(listed.contains(name), "\(name) \(listed)")
    }
    // `_describe` reads NAME:DESCRIPTION: the `:` must arrive escaped.
    _ = try await Self.complete(session, "kodo stat hostile a:", showing: ["hostile a:b\n"])
    _ = try await Self.complete(
      session, "kodo stat hostile it", showing: [#"hostile it\'s"# + "\n"])
    // A completed folder takes no space, and the next Tab goes one level down through the
    // quoting zsh inserted.
    _ = try await Self.complete(session, "kodo ls hostile/fold", showing: [#"pwned-4\)/"#])
    try await session.keys("Tab")
    try await session.type("X")
    let deeper = try await session.waitFor { $0.contains("X") }
    #expect(
      deeper.screen.contains(#"$ kodo ls hostile/folder\ \$\(touch\ pwned-4\)/inner.txt X"#),
      "\(deeper.screen)")
    let local = try await Self.complete(
      session, "kodo get -r hostile/ ", showing: [#"\$\(touch\ pwned-5\)/"#])
    try Self.expectNothingRan(in: session.directory, local)
    await session.close()
  }

  /// bash's readline: a completed folder takes no space, and the next Tab goes one level down
  /// through the quoting readline inserted.
  @Test func bashLeavesNoSpaceAfterACompletedFolderAndGoesOn() async throws {
    let session = try await Self.interactive(
      "bash --norc --noprofile -i", load: "source <(kodo --generate-completion-script bash)")
    _ = try await Self.complete(
      session, "kodo ls hostile/fold", showing: [#"$ kodo ls hostile/folder\ $\(touch\ pwned-4)/"#])
    try await session.keys("Tab")
    try await session.type("X")
    let seen = try await session.waitFor { $0.contains("X") }
    #expect(
      seen.screen.contains(#"$ kodo ls hostile/folder\ $\(touch\ pwned-4)/inner.txt X"#),
      "\(seen.screen)")
    try Self.expectNothingRan(in: session.directory, seen.screen)
    await session.close()
  }

  /// Every way of asking for a script gives kodo's (with its additions).
  @Test func theScriptIsTheSameHoweverItIsAskedFor() async throws {
    let named = try await InProcess.run(["--generate-completion-script", "bash"])
    let equals = try await InProcess.run(["--generate-completion-script=bash"])
    let detected = try await InProcess.run(
      ["--generate-completion-script"], environment: ["SHELL": "/bin/bash"])
    #expect(named.stdout.contains("_kodo_folders"), "\(named)")
    #expect(equals.stdout == named.stdout && detected.stdout == named.stdout)
  }

  /// `--profile <Tab>` with the config file from the environment (no `--config` typed): the
  /// profiles, not ArgumentParser's internal banner.
  @Test func profilesCompleteFromTheDefaultConfigFile() async throws {
    let directory = try Self.workingDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let config = directory + "/c.json"
    try Data(#"{"accessKey":"a","secretKey":"b","profiles":{"prod":{},"staging":{}}}"#.utf8)
      .write(to: URL(fileURLWithPath: config))
    let result = try await CLIRunner("kodo", environment: ["KODO_CONFIG": config]).run(
      CompletionTests.request([], "--profile", ["kodo", "--profile", ""]))
    #expect(result.status == 0, "\(result)")
    #expect(result.stderr.isEmpty, "\(result)")
    #expect(result.lines == ["prod", "staging"], "\(result)")
  }
}
