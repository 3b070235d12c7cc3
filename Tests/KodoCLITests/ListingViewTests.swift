import Foundation
import KodoTestSupport
import Testing

@testable import KodoCLI

/// Issue 10 §6, the listing: names after the last `/` of the prefix, every folder first across
/// pages, honest partial totals, resume commands that keep their options. Run in process.
@Suite("ls as a new user expects it", .serialized)
struct ListingViewTests {
  let env: CLIEnvironment
  let environment: [String: String]

  init() async throws {
    env = try await CLIEnvironment.get()
    environment = ["KODO_CONFIG": env.config]
  }

  /// The names at the end of the text lines.
  static func names(_ result: CLIRunner.Result) -> [String] {
    result.lines.map { line in
      String(
        line.dropFirst(line.hasPrefix("       DIR") ? 32 : 0).split(separator: " ", maxSplits: 4)
          .last ?? "")
    }
  }

  @Test(arguments: [
    ("photos/2024", ["DIR", "2024/"]), ("photos/od", ["DIR", "odd/"]),
    ("photos/a", ["a.txt"]), ("photos/2024/summer", ["DIR", "summer trip/"]),
  ])
  func namesFollowTheLastSlashOfThePrefix(_ target: String, _ expected: [String]) async throws {
    let result = try await InProcess.run(["ls", target], environment: environment)
    #expect(result.status == 0, "\(result)")
    #expect(result.lines.count == 1, "\(result)")
    let line = try #require(result.lines.first)
    #expect(line.hasSuffix("  " + (expected.last ?? "")), "\(line)")
    #expect(line.hasPrefix(" ") && line.contains("DIR") == (expected.first == "DIR"))
  }

  @Test func everyFolderComesBeforeAnyObjectAcrossPages() async throws {
    let text = try await InProcess.run(
      ["ls", "--page-size", "2", "photos"], environment: environment)
    #expect(text.status == 0, "\(text)")
    let kinds = text.lines.map { $0.contains(" DIR  ") }
    #expect(kinds == [true, true, true, true, false, false, false], "\(text.stdout)")
    #expect(
      text.lines.suffix(3).map { String($0.split(separator: " ").last ?? "") } == [
        "a.txt", "b.json", "empty.bin",
      ])
    // JSON keeps the service's order: each page's prefixes, then its objects.
    let json = try await InProcess.run(
      ["ls", "--json", "--page-size", "2", "photos"], environment: environment)
    let keys = json.lines.compactMap { line -> String? in
      guard let range = line.range(of: #""key":""#) else { return nil }
      return String(line[range.upperBound...].prefix { $0 != "\"" })
    }
    #expect(keys == ["2024/", "a.txt", "big/", "b.json", "odd/", "empty.bin", "中文/"])
  }

  @Test func heldObjectsSpillToAnUnlinkedFileAndComeBackInOrder() throws {
    let directory = try temporaryDirectory()
    let path = directory + "/out"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let output = OutputStream(fileDescriptor: descriptor)
    let held = HeldOutput(memoryLimit: 1000, directory: directory)
    var expected: [UInt8] = []
    for index in 0..<5000 {
      expected += Array("object \(index)\n".utf8)
      try held.hold {
        $0.append("object ")
        $0.append(decimal: Int64(index))
        $0.appendNewline()
      }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out"])
    try output.line("first")
    try held.release(to: output)
    try output.flush()
    close(descriptor)
    #expect(
      Array(FileManager.default.contents(atPath: path) ?? Data()) == Array("first\n".utf8)
        + expected)
  }

  /// The text rows `ls` writes for `folders`, with colour on or off.
  static func folderRows(_ folders: [String], colour: Bool) throws -> String {
    let directory = try temporaryDirectory()
    let path = directory + "/out"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { close(descriptor) }
    let output = OutputStream(fileDescriptor: descriptor)
    var renderer = ListRenderer(
      mode: .text, long: false, humanSizes: true, relativeTo: nil,
      palette: Palette(terminal: colour, environment: ["TERM": "xterm"]))
    try renderer.prefixes(folders, to: output)
    try output.flush()
    return String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
  }

  @Test func colouredFolderNamesAreQuotedAndEscapedLikePlainOnes() throws {
    let folders = [" lead/", "mid dle/", "esc\u{1B}[2J/"]
    let plain = try Self.folderRows(folders, colour: false)
    let coloured = try Self.folderRows(folders, colour: true)
    for expected in [#"" lead/""#, "  mid dle/\n", #"  esc\u{1B}[2J/"#] {
      #expect(plain.contains(expected), "\(plain)")
    }
    for expected in [
      "\u{1B}[1;34m\" lead/\"\u{1B}[0m", "\u{1B}[1;34mmid dle/\u{1B}[0m",
      "\u{1B}[1;34mesc\\u{1B}[2J/\u{1B}[0m",
    ] {
      #expect(coloured.contains(expected), "\(coloured)")
    }
    #expect(
      coloured.replacingOccurrences(of: "\u{1B}[1;34m", with: "")
        .replacingOccurrences(of: "\u{1B}[0m", with: "") == plain)
  }

  @Test func aSummaryCutShortByLimitSaysItIsPartial() async throws {
    let text = try await InProcess.run(
      ["ls", "-r", "--limit", "2", "--summarize", "photos"], environment: environment)
    #expect(text.status == 0, "\(text)")
    #expect(text.stdout.contains("2 objects") && text.stdout.contains("partial"), "\(text)")
    let json = try await InProcess.run(
      ["ls", "-r", "--json", "--limit", "2", "--summarize", "photos"], environment: environment)
    #expect(json.stdout.contains(#""partial":true"#), "\(json)")
    let whole = try await InProcess.run(
      ["ls", "-r", "--summarize", "photos"], environment: environment)
    #expect(!whole.stdout.contains("partial"))
  }

  @Test func theResumeCommandKeepsWhatChangesTheListing() async throws {
    let result = try await InProcess.run(
      ["ls", "--config", env.config, "-r", "-l", "--page-size", "3", "--limit", "1", "photos/2024"])
    #expect(result.status == 0, "\(result)")
    #expect(
      result.stderr.contains(
        "resume with: kodo ls --config \(env.config) -r -l --page-size 3 --limit 1 photos/2024 --marker "
      ),
      "\(result.stderr)")
  }

  /// The command after "resume with: " on stderr.
  static func resumeCommand(_ result: CLIRunner.Result) -> String? {
    guard let range = result.stderr.range(of: "resume with: ") else { return nil }
    return String(result.stderr[range.upperBound...].prefix { $0 != "\n" })
  }

  @Test func theResumeCommandKeepsAConfigAndProfileChosenThroughTheEnvironment() async throws {
    let config = try writeTestConfig(
      baseURL: env.emulator.baseURL, accessKey: env.emulator.accessKey,
      secretKey: env.emulator.secretKey, extra: #""profiles":{"p":{}},"#)
    let result = try await InProcess.run(
      ["ls", "-r", "--limit", "1", "photos"],
      environment: ["KODO_CONFIG": config, "KODO_PROFILE": "p"])
    #expect(result.status == 0, "\(result)")
    let command = try #require(Self.resumeCommand(result), "\(result)")
    #expect(
      command.hasPrefix("kodo ls --config \(config) --profile p -r --limit 1 photos --marker "),
      "\(command)")
  }

  @Test func theResumeCommandKeepsAnEndpointFromTheEnvironmentAndPastesIntoAShell() async throws {
    let credentials = [
      "QINIU_ACCESS_KEY": env.emulator.accessKey, "QINIU_SECRET_KEY": env.emulator.secretKey,
    ]
    let result = try await InProcess.run(
      ["ls", "-r", "--limit", "1", "photos"],
      environment: credentials.merging(["KODO_ENDPOINT": env.emulator.baseURL]) { $1 })
    #expect(result.status == 0, "\(result)")
    let command = try #require(Self.resumeCommand(result), "\(result)")
    #expect(
      command.hasPrefix(
        "KODO_ENDPOINT=\(env.emulator.baseURL) kodo ls -r --limit 1 photos --marker "),
      "\(command)")
    // Pasted into a shell without KODO_ENDPOINT, it lists the next entry from the emulator.
    let pasted = try await CLIRunner("kodo", environment: credentials).runShell(
      #"PATH="$(dirname "$KODO"):$PATH"; "# + command)
    #expect(pasted.status == 0, "\(pasted)")
    #expect(pasted.lines.count == 1 && pasted.stdout != result.stdout, "\(pasted)")
  }

  @Test func aRefusedMarkerSaysToStartAgainAndOffersNoMarker() async throws {
    let result = try await InProcess.run(
      ["ls", "--marker", "bm90LWEtbWFya2Vy", "photos"], environment: environment)
    expectFailure(result, status: 65, containing: "list again without --marker")
    #expect(!result.stderr.contains("resume with"), "\(result.stderr)")
  }

  @Test func aPrefixWithoutItsBucketGetsAHint() async throws {
    let result = try await InProcess.run(["ls", "2024/"], environment: environment)
    expectFailure(result, status: 66, containing: "kodo buckets lists yours")
    #expect(
      result.stderr.contains(
        "if 2024/ is a folder of the default bucket photos, list it with: kodo ls photos/2024/"),
      "\(result.stderr)")
  }
}
