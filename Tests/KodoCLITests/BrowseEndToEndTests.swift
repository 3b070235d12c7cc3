import Foundation
import KodoTestSupport
import Testing

/// The real `kodo browse` in a detached tmux against the emulator: what a user sees and what the
/// terminal is left in. tmux is required (`make deps` installs it): without it these fail.
@Suite("kodo browse in tmux", .serialized)
struct BrowseEndToEndTests {
  final class Fixture: Sendable {
    static let shared = Task { try await Fixture() }
    let emulator: EmulatorProcess
    let slow: EmulatorProcess
    /// Lists at once but answers each download only after 30 s.
    let slowDownloads: EmulatorProcess
    let environment: [String: String]
    let slowEnvironment: [String: String]
    let slowDownloadsEnvironment: [String: String]
    let kodo = CLIRunner("kodo").executable

    static let files: [String: String] = [
      "top.txt": "top",
      "2024/05/a.jpg": String(repeating: "a", count: 66),
      "2024/05/b 中文.png": String(repeating: "b", count: 5000),
      "2024/05/c.log": String(repeating: "c", count: 700),
      "2024/日志/x.log": "x",
      "2024/日志/notes.txt": "first line\nsecond \u{1B}[31m red\r\nthird\n",
      "2024/日志/blob.bin": "\u{0}\u{1}ABC\u{1B}",
    ]

    private init() async throws {
      let root = FileManager.default.temporaryDirectory.appendingPathComponent(
        "kodo-browse-\(UUID())"
      ).path
      try CLIEnvironment.writeTree(
        root: root, [("photos", Self.files.mapValues { Array($0.utf8) })])
      emulator = try await EmulatorProcess(["--bucket", "photos=\(root)/photos"])
      // Long enough that the page is still loading however slowly the machine lets the test look
      // at the screen (1.5 s was not, under a load of 20); `q` must not wait for it.
      slow = try await EmulatorProcess([
        "--bucket", "photos=\(root)/photos", "--latency-ms", "30000",
      ])
      slowDownloads = try await EmulatorProcess([
        "--bucket", "photos=\(root)/photos", "--download-latency-ms", "30000",
      ])
      func environment(_ emulator: EmulatorProcess) throws -> [String: String] {
        var environment = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
          .environment
        environment["TERM"] = "xterm-256color"
        return environment
      }
      self.environment = try environment(emulator)
      slowEnvironment = try environment(slow)
      slowDownloadsEnvironment = try environment(slowDownloads)
    }
  }

  static func start(
    _ arguments: String, slow: Bool = false, slowDownloads: Bool = false, width: Int = 100,
    height: Int = 30, redirect: String = ""
  ) async throws -> TmuxSession {
    let fixture = try await Fixture.shared.value
    var environment =
      slow
      ? fixture.slowEnvironment
      : slowDownloads ? fixture.slowDownloadsEnvironment : fixture.environment
    // Swift's backtracer must print and exit, not wait for keys on the terminal.
    environment["SWIFT_BACKTRACE"] = "interactive=no"
    return try await TmuxSession(
      command: TmuxSession.quote(fixture.kodo) + " browse " + arguments + redirect,
      environment: environment, width: width, height: height)
  }

  /// The line of the screen holding the cursor is not visible as text; the status and detail
  /// pane name it instead.
  static func expectSane(_ session: TmuxSession) async throws {
    let stty = session.file("stty") ?? ""
    #expect(
      stty.contains(" icanon") && stty.contains(" echo") && !stty.contains("-icanon"), "\(stty)")
    #expect(try await session.display("#{alternate_on}") == "0")
  }

  @Test func navigatesBucketsFoldersFirstAndBack() async throws {
    let session = try await Self.start("")
    var seen = try await session.waitFor { $0.contains("photos") && $0.contains("1 bucket") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("Enter")
    seen = try await session.waitFor { $0.contains("2 entries") }
    #expect(seen.holds, "\(seen.screen)")
    let lines = seen.screen.split(separator: "\n")
    // Folders first.
    // Folders first, below the column header; the position at the title's end.
    #expect(lines.count > 3 && lines[2].contains("2024/") && lines[3].contains("top.txt"))
    #expect(lines[1].contains("name") && lines[0].hasSuffix("1/2"))
    try await session.keys("l")
    seen = try await session.waitFor { $0.contains("05/") && $0.contains("日志/") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("l")
    #expect(try await session.waitFor { $0.contains("3 entries") }.holds)
    try await session.keys("j")
    seen = try await session.waitFor { $0.contains("b 中文.png") && $0.contains("size       5000") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("h", "h")
    seen = try await session.waitFor { $0.contains("kodo · photos /") && $0.contains("top.txt") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
    try await Self.expectSane(session)
  }

  @Test func filtersTheLoadedEntriesWithChineseInput() async throws {
    let session = try await Self.start("photos/2024/05/")
    #expect(try await session.waitFor { $0.contains("3 entries") }.holds)
    try await session.keys("/")
    try await session.type("中文")
    let seen = try await session.waitFor { $0.contains("filter \"中文\": 1 of 3") }
    #expect(seen.holds, "\(seen.screen)")
    #expect(!seen.screen.contains("a.jpg"))
    try await session.keys("Escape")
    #expect(try await session.waitFor { $0.contains("a.jpg") && !$0.contains("filter \"") }.holds)
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  @Test func sortsBySizeAndReverses() async throws {
    let session = try await Self.start("photos/2024/05/")
    #expect(try await session.waitFor { $0.contains("3 entries") }.holds)
    try await session.keys("o", "s")
    var seen = try await session.waitFor { $0.contains("sorted by size") }
    #expect(seen.holds)
    func order(_ screen: String) -> [String] {
      screen.split(separator: "\n").compactMap { line in
        ["a.jpg", "b 中文.png", "c.log"].first { line.hasPrefix(" " + $0) }
      }
    }
    // Smallest first, as `kodo ls --sort size`.
    #expect(order(seen.screen) == ["a.jpg", "c.log", "b 中文.png"])
    try await session.keys("o", "r")
    seen = try await session.waitFor { $0.contains("reversed") }
    #expect(order(seen.screen) == ["b 中文.png", "c.log", "a.jpg"])
    try await session.keys("q")
  }

  @Test func copiesTheKeyAndASignedURLByOSC52() async throws {
    let session = try await Self.start("photos/2024/05/c.log")
    #expect(try await session.waitFor { $0.contains("size       700") }.holds)
    try await session.keys("y", "k")
    var seen = try await session.waitFor {
      $0.contains("key sent by OSC 52 (tmux needs set-clipboard on): 2024/05/c.log")
    }
    #expect(seen.holds, "\(seen.screen)")
    #expect(try await session.buffer() == "2024/05/c.log")
    try await session.keys("y", "u")
    seen = try await session.waitFor { $0.contains("download URL sent by OSC 52") }
    #expect(seen.holds, "\(seen.screen)")
    let url = try await session.buffer()
    let fixture = try await Fixture.shared.value
    #expect(url.hasPrefix(fixture.emulator.downloadDomain("photos") + "/2024/05/c.log?e="))
    #expect(url.contains("&token="))
    // The URL works.
    let fetched = try await CLIRunner("kodo").runShell("curl -s \(TmuxSession.quote(url))")
    #expect(fetched.stdout == String(repeating: "c", count: 700))
    try await session.keys("q")
  }

  @Test func downloadsIntoTheCurrentDirectoryAndNeverReplaces() async throws {
    let session = try await Self.start(TmuxSession.quote("photos/2024/05/b 中文.png"))
    #expect(try await session.waitFor { $0.contains("size       5000") }.holds)
    try await session.keys("s")
    var seen = try await session.waitFor { $0.contains("saved b 中文.png") }
    #expect(seen.holds, "\(seen.screen)")
    #expect(session.file("b 中文.png") == String(repeating: "b", count: 5000))
    try await session.keys("s")
    seen = try await session.waitFor { $0.contains("exists; not replaced") }
    #expect(seen.holds, "\(seen.screen)")
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: session.directory)
      .filter { $0.hasSuffix(".part") }
    #expect(leftovers.isEmpty)
    try await session.keys("q")
  }

  @Test func sOnAFolderDownloadsItHereAsGetRDoes() async throws {
    let session = try await Self.start("photos/2024/")
    #expect(try await session.waitFor { $0.contains("05/") && $0.contains("日志/") }.holds)
    // The cursor is on 05/, the first folder.
    try await session.keys("s")
    var seen = try await session.waitFor { $0.contains("downloaded 05/ here: 3 written") }
    #expect(seen.holds, "\(seen.screen)")
    for name in ["a.jpg", "b 中文.png", "c.log"] {
      #expect(session.file("05/" + name) == Fixture.files["2024/05/" + name], "\(name)")
    }
    // Again: the same files are there, so nothing is written; a differing one is kept.
    try "changed".write(
      toFile: session.directory + "/05/c.log", atomically: false, encoding: .utf8)
    try await session.keys("s")
    seen = try await session.waitFor { $0.contains("0 written, 2 already there, 1 kept") }
    #expect(seen.holds, "\(seen.screen)")
    #expect(session.file("05/c.log") == "changed")
    let leftovers = try FileManager.default.subpathsOfDirectory(atPath: session.directory)
      .filter { $0.hasSuffix(".part") }
    #expect(leftovers.isEmpty)
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  @Test func quittingInTheMiddleOfAFolderDownloadLeavesNoTemporaryFile() async throws {
    let session = try await Self.start("photos/2024/", slowDownloads: true)
    #expect(try await session.waitFor { $0.contains("05/") && $0.contains("日志/") }.holds)
    try await Self.quitWhileDownloading(session, unwritten: "05/a.jpg")
    try await Self.expectSane(session)
  }

  @Test func quittingInTheMiddleOfAnObjectDownloadLeavesNoTemporaryFile() async throws {
    let session = try await Self.start("photos/top.txt", slowDownloads: true)
    #expect(try await session.waitFor { $0.contains("size       3") }.holds)
    try await Self.quitWhileDownloading(session, unwritten: "top.txt")
  }

  /// Presses `s`, waits until the downloads (held by the slow service) have their temporary
  /// files under the session's directory, quits, and expects the browser to exit 0 with no
  /// temporary file left and `unwritten` never written.
  static func quitWhileDownloading(_ session: TmuxSession, unwritten: String) async throws {
    try await session.keys("s")
    func temporaries() -> [String] {
      let found = try? FileManager.default.subpathsOfDirectory(atPath: session.directory)
      return (found ?? []).filter { $0.hasSuffix(".part") }
    }
    let deadline = Patience.deadline
    while temporaries().isEmpty && ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(50))
    }
    let screen = try await session.screen()
    #expect(!temporaries().isEmpty, "\(screen)")
    // A transfer runs: q asks first, y quits and cancels it.
    try await session.keys("q")
    #expect(try await session.waitFor { $0.contains("running: quit and cancel them? [y/N]") }.holds)
    try await session.keys("y")
    #expect(try await session.exitStatus() == 0)
    #expect(temporaries().isEmpty, "\(temporaries())")
    #expect(session.file(unwritten) == nil)
  }

  @Test func adaptsToResize() async throws {
    let session = try await Self.start("photos/2024/05/", width: 120)
    var seen = try await session.waitFor { $0.contains("3 entries") && $0.contains("│") }
    #expect(seen.holds)
    // At 100 columns and more the time column shows.
    #expect(seen.screen.contains(":"))
    try await session.resize(width: 70, height: 20)
    seen = try await session.waitFor { !$0.contains("│") && $0.contains("3 entries") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("i")
    seen = try await session.waitFor { $0.contains("put time") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  @Test func sigtermRestoresTheTerminalAndExits143() async throws {
    let session = try await Self.start("photos/")
    #expect(try await session.waitFor { $0.contains("2 entries") }.holds)
    #expect(try await session.display("#{alternate_on}") == "1")
    let pid = try #require(try await session.pid())
    kill(pid, SIGTERM)
    #expect(try await session.exitStatus() == 143)
    try await Self.expectSane(session)
  }

  @Test func aCrashRestoresTheTerminal() async throws {
    let session = try await Self.start("photos/")
    #expect(try await session.waitFor { $0.contains("2 entries") }.holds)
    let pid = try #require(try await session.pid())
    kill(pid, SIGSEGV)
    let status = try await session.exitStatus()
    #expect(status == 128 + SIGSEGV)
    try await Self.expectSane(session)
  }

  @Test func otherSignalsThatEndTheProcessRestoreTheTerminal() async throws {
    for number in [SIGUSR1, SIGALRM, SIGQUIT] {
      let session = try await Self.start("photos/")
      #expect(try await session.waitFor { $0.contains("2 entries") }.holds)
      let pid = try #require(try await session.pid())
      kill(pid, number)
      #expect(try await session.exitStatus() == 128 + number, "signal \(number)")
      try await Self.expectSane(session)
      #expect(try await session.display("#{cursor_flag}") == "1", "signal \(number)")
    }
  }

  @Test func promptsAreLineEditorsWithLocalPathCompletion() async throws {
    let session = try await Self.start("photos/2024/05/a.jpg")
    #expect(try await session.waitFor { $0.contains("size       66") }.holds)
    try FileManager.default.createDirectory(
      atPath: session.directory + "/scratch/downloads", withIntermediateDirectories: true)
    try await session.keys("S")
    var seen = try await session.waitFor { $0.contains("save as: a.jpg") }
    #expect(seen.holds, "\(seen.screen)")
    // At the start of the line, a folder is typed and completed in front of the name.
    try await session.keys("C-a")
    try await session.type("scr")
    try await session.keys("Tab")
    seen = try await session.waitFor { $0.contains("save as: scratch/a.jpg") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("Tab")
    seen = try await session.waitFor { $0.contains("save as: scratch/downloads/a.jpg") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("Enter")
    seen = try await session.waitFor { $0.contains("saved a.jpg") }
    #expect(seen.holds, "\(seen.screen)")
    #expect(session.file("scratch/downloads/a.jpg") == String(repeating: "a", count: 66))
    // `:` shows where the browser is, selected: what is typed replaces it.
    try await session.keys(":")
    seen = try await session.waitFor { $0.contains("go to: photos/2024/05/") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.type("photos/2024/x/")
    try await session.keys("C-w")
    try await session.keys("Enter")
    seen = try await session.waitFor { $0.contains("kodo · photos / 2024 /") && $0.contains("日志/") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  @Test func previewsTextEscapedAndBinaryAsAHexDump() async throws {
    let session = try await Self.start(TmuxSession.quote("photos/2024/日志/notes.txt"))
    #expect(try await session.waitFor { $0.contains("size       35") }.holds)
    try await session.keys("Enter")
    var seen = try await session.waitFor {
      $0.contains(#"second \u{1B}[31m red"#) && $0.contains("third") && $0.contains(" text · 35 B")
    }
    #expect(seen.holds, "\(seen.screen)")
    #expect(seen.screen.contains("first line"))
    try await session.keys("q")
    seen = try await session.waitFor { $0.contains("notes.txt") && $0.contains("x.log") }
    #expect(seen.holds, "\(seen.screen)")
    // blob.bin sorts first.
    try await session.keys("g", "Enter")
    seen = try await session.waitFor { $0.contains("0000000000  00 01 41 42 43 1b") }
    #expect(seen.holds, "\(seen.screen)")
    #expect(seen.screen.contains("|..ABC.|") && seen.screen.contains(" hex · 6 B"))
    try await session.keys("Left", "q")
    #expect(try await session.exitStatus() == 0)
    try await Self.expectSane(session)
  }

  @Test func quitsWhileAPageIsStillLoading() async throws {
    let session = try await Self.start("photos/", slow: true)
    let seen = try await session.waitFor { $0.contains("Loading photos/") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
    try await Self.expectSane(session)
  }

  @Test func pickPrintsTheChosenObjectAndQuittingWithoutOneExits1() async throws {
    let session = try await Self.start("--pick --json photos/top.txt", redirect: " > picked")
    #expect(try await session.waitFor { $0.contains("⏎ choose") && $0.contains("size") }.holds)
    try await session.keys("Enter")
    #expect(try await session.exitStatus() == 0)
    let picked = session.file("picked") ?? ""
    #expect(picked.hasPrefix(#"{"bucket":"photos","key":"top.txt","url":"http://127.0.0.1:"#))
    let other = try await Self.start("--pick photos/")
    #expect(try await other.waitFor { $0.contains("2 entries") }.holds)
    try await other.keys("q")
    #expect(try await other.exitStatus() == 1)
  }
}

/// Where the browser refuses to start: exit 64 and one line saying why.
@Suite("kodo browse refusals")
struct BrowseRefusalTests {
  @Test func refusesADumbTerminalAndNonTerminalsWith64() async throws {
    let credentials = ["QINIU_ACCESS_KEY": "ak", "QINIU_SECRET_KEY": "sk"]
    var environment = credentials
    environment["TERM"] = "dumb"
    var result = try await InProcess.run(["browse", "photos"], environment: environment)
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("kodo: error: kodo browse needs a terminal that can draw"))
    environment["TERM"] = "xterm-256color"
    result = try await InProcess.run(["browse", "--pick", "photos"], environment: environment)
    #expect(result.status == 64)
    #expect(result.stderr.contains("needs a terminal on stdin"))
    #expect(result.stdout.isEmpty)
  }
}

/// `--synthetic NAME=COUNT:flat`: one folder of COUNT objects, for the browser's scale goals.
@Suite("flat synthetic bucket")
struct FlatSyntheticTests {
  @Test func everyObjectIsInOneFolder() async throws {
    let emulator = try await EmulatorProcess(["--synthetic", "flat=2500:flat"])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let top = try await kodo.run(["ls", "flat"])
    #expect(top.status == 0)
    #expect(top.lines.count == 1 && top.stdout.contains("dir-000/"), "\(top)")
    let level = try await kodo.run(["ls", "--json", "flat/dir-000/sub-00/"])
    #expect(level.status == 0)
    #expect(level.lines.count == 2500)
    #expect(level.lines.allSatisfy { !$0.contains(#""prefix""#) })
  }
}
