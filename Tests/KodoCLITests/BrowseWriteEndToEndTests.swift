import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

@testable import KodoCLI

/// `d` and `r` in the real `kodo browse`, in a detached tmux, against a writable in-memory
/// bucket of an emulator speaking Kodo or OSS; every result is checked by reading the bucket
/// back with `kodo ls -r`.
@Suite("kodo browse deletes and renames, in tmux", .serialized)
struct BrowseWriteEndToEndTests {
  /// `kodo browse ARGUMENTS` in tmux against the emulator `environment` names.
  static func browse(_ arguments: String, _ environment: [String: String]) async throws
    -> TmuxSession
  {
    var full = CLIRunner("kodo", environment: environment).environment
    full["TERM"] = "xterm-256color"
    full["SWIFT_BACKTRACE"] = "interactive=no"
    return try await TmuxSession(
      command: TmuxSession.quote(CLIRunner("kodo").executable) + " browse " + arguments,
      environment: full, width: 120, height: 24)
  }

  /// Waits for `condition` and records the screen when it does not come.
  static func expectScreen(
    _ session: TmuxSession, _ what: String, _ condition: (String) -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let seen = try await session.waitFor(condition)
    #expect(seen.holds, "waiting for \(what):\n\(seen.screen)", sourceLocation: sourceLocation)
  }

  /// Whether a list row starts with `name` (a row is `NAME … size`, a marked one `*NAME`).
  static func row(_ screen: String, _ name: String) -> Bool {
    screen.split(separator: "\n").contains {
      $0.hasPrefix(" " + name + " ") || $0.hasPrefix("*" + name + " ")
    }
  }

  /// A writable bucket `bkt` holding `keys` (each object's content is its key), browsed in
  /// tmux until the folder shows `shown`; quit after `body`, with exit status 0.
  static func browsing(
    _ wire: EmulatorProtocol, keys: [String], shown: String,
    _ body: (TmuxSession, [String: String]) async throws -> Void
  ) async throws {
    try await RemoveTests.with(wire, keys: keys) { _, environment in
      let session = try await browse("bkt", environment)
      try await expectScreen(session, "the folder") { $0.contains(shown) }
      try await body(session, environment)
      try await session.keys("q")
      #expect(try await session.exitStatus() == 0)
    }
  }

  /// `r`, the name cleared and `name` typed, then Enter.
  static func rename(_ session: TmuxSession, to name: String) async throws {
    try await session.keys("r", "C-u")
    try await session.type(name)
    try await session.keys("Enter")
  }

  @Test(arguments: RemoveTests.wires)
  func deleteIsAskedNDeletesNothingYDeletes(_ wire: EmulatorProtocol) async throws {
    try await Self.browsing(wire, keys: ["a.txt", "b.txt", "keep.txt"], shown: "3 entries") {
      session, environment in
      try await session.keys("d")
      try await Self.expectScreen(session, "the question") {
        $0.contains("delete a.txt?  y deletes · n keeps")
      }
      try await session.keys("n")
      try await Self.expectScreen(session, "the refusal") { $0.contains("nothing deleted") }
      #expect(try await RemoveTests.keys(environment) == ["a.txt", "b.txt", "keep.txt"])
      try await session.keys("d")
      try await Self.expectScreen(session, "the question again") { $0.contains("delete a.txt?") }
      try await session.keys("Escape")
      try await Self.expectScreen(session, "Esc") { $0.contains("nothing deleted") }
      #expect(try await RemoveTests.keys(environment) == ["a.txt", "b.txt", "keep.txt"])
      try await session.keys("d")
      try await Self.expectScreen(session, "the question, a third time") {
        $0.contains("delete a.txt?")
      }
      try await session.keys("y")
      try await Self.expectScreen(session, "the delete") {
        $0.contains("deleted 1 object") && !Self.row($0, "a.txt") && Self.row($0, "b.txt")
      }
      #expect(try await RemoveTests.keys(environment) == ["b.txt", "keep.txt"])
    }
  }

  @Test(arguments: RemoveTests.wires)
  func deletesMarkedEntriesAFolderWithEverythingUnderItNotItsLookAlike(
    _ wire: EmulatorProtocol
  ) async throws {
    let keys = ["d", "d-other/4", "d/1", "d/2", "d/sub/3", "x.txt", "y.txt"]
    try await Self.browsing(wire, keys: keys, shown: "5 entries") { session, environment in
      // Rows: d-other/, d/, d, x.txt, y.txt.
      try await session.keys("j", "Space", "j", "Space")
      try await Self.expectScreen(session, "two marks") {
        $0.contains("2 marked") && Self.row($0, "d/") && $0.contains("*x.txt")
      }
      try await session.keys("d")
      try await Self.expectScreen(session, "the question") {
        $0.contains("delete 1 object and 1 folder and everything under it (4 objects in all)?")
      }
      try await session.keys("y")
      try await Self.expectScreen(session, "the delete") {
        $0.contains("deleted 4 objects") && !Self.row($0, "x.txt") && !Self.row($0, "d/")
          && Self.row($0, "d-other/") && Self.row($0, "d")
      }
      #expect(try await RemoveTests.keys(environment) == ["d", "d-other/4", "y.txt"])
    }
  }

  @Test(arguments: RemoveTests.wires)
  func renamesOntoAFreeKeyAndIntoASubfolder(_ wire: EmulatorProtocol) async throws {
    try await Self.browsing(wire, keys: ["a.txt", "b.txt"], shown: "2 entries") {
      session, environment in
      try await session.keys("r")
      try await Self.expectScreen(session, "the prompt") { $0.contains("rename to: a.txt") }
      try await session.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
      try await session.type("z.txt")
      try await session.keys("Enter")
      try await Self.expectScreen(session, "the rename") {
        $0.contains("renamed a.txt to z.txt") && Self.row($0, "z.txt") && !Self.row($0, "a.txt")
      }
      #expect(try await RemoveTests.keys(environment) == ["b.txt", "z.txt"])
      // z.txt stays selected; b.txt is the first row.
      try await session.keys("g")
      try await Self.rename(session, to: "sub/b.txt")
      try await Self.expectScreen(session, "the move into sub/") {
        $0.contains("renamed b.txt to sub/b.txt") && Self.row($0, "sub/") && !Self.row($0, "b.txt")
      }
      #expect(try await RemoveTests.keys(environment) == ["sub/b.txt", "z.txt"])
      // A folder is renamed as mv -r moves it: sub/ becomes box/.
      try await session.keys("g", "r")
      try await Self.expectScreen(session, "the folder's prompt") { $0.contains("rename to: sub") }
      try await session.keys("BSpace", "BSpace", "BSpace")
      try await session.type("box")
      try await session.keys("Enter")
      try await Self.expectScreen(session, "the folder's rename") {
        $0.contains("renamed sub/ to box/") && Self.row($0, "box/") && !Self.row($0, "sub/")
      }
      #expect(try await RemoveTests.keys(environment) == ["box/b.txt", "z.txt"])
    }
  }

  @Test(arguments: RemoveTests.wires)
  func renamingOntoAnExistingKeyAsksNKeepsBothYReplaces(_ wire: EmulatorProtocol) async throws {
    try await Self.browsing(wire, keys: ["a.txt", "b.txt"], shown: "2 entries") {
      session, environment in
      for answer in ["n", "y"] {
        try await Self.rename(session, to: "b.txt")
        try await Self.expectScreen(session, "the question") {
          $0.contains("b.txt exists: replace it with a.txt?")
        }
        try await session.keys(answer)
        if answer == "n" {
          try await Self.expectScreen(session, "the refusal") {
            $0.contains("not renamed: a.txt and b.txt kept")
          }
          #expect(try await RemoveTests.keys(environment) == ["a.txt", "b.txt"])
          #expect(try await Self.body("b.txt", environment) == "b.txt")
        }
      }
      try await Self.expectScreen(session, "the replacing rename") {
        $0.contains("renamed a.txt to b.txt") && !Self.row($0, "a.txt") && $0.contains("1 entry")
      }
      #expect(try await RemoveTests.keys(environment) == ["b.txt"])
      // The emulator's objects hold their own key: b.txt now holds a.txt's.
      #expect(try await Self.body("b.txt", environment) == "a.txt")
    }
  }

  /// On a read-only bucket (the other browse suites' fixtures), a delete and a rename are
  /// refused: the service's error is shown whole (its request id too) and the row stays.
  @Test(arguments: RemoveTests.wires)
  func aRefusedWriteIsShownWholeAndTheRowStays(_ wire: EmulatorProtocol) async throws {
    let session =
      wire == .kodo
      ? try await BrowseEndToEndTests.start("photos/", width: 90)
      : try await BrowseOSSEndToEndTests.start("photos/", width: 90)
    try await Self.expectScreen(session, "the folder") { $0.contains("2 entries") }
    // The status line, wrapped over the list when long: from the line with the count to the
    // hint line; whole, it ends with the error's own end (a closing parenthesis).
    func status(_ screen: String) -> String {
      let lines = screen.split(separator: "\n")
      guard let first = lines.lastIndex(where: { $0.hasPrefix(" 2 entries") }) else { return "" }
      return lines[first..<(lines.count - 1)].joined()
    }
    try await session.keys("j", "d")
    try await Self.expectScreen(session, "the question") { $0.contains("delete top.txt?") }
    try await session.keys("y")
    try await Self.expectScreen(session, "the refusal") {
      status($0).contains("deleted 0 objects; 1 not deleted: ")
        && status($0).lowercased().contains("denied") && status($0).hasSuffix(")")
        && Self.row($0, "top.txt")
    }
    try await session.keys("j")
    try await Self.expectScreen(session, "the message gone with the next key") {
      !$0.contains("not deleted")
    }
    try await Self.rename(session, to: "moved.txt")
    try await Self.expectScreen(session, "the failed rename") {
      status($0).contains("rename of top.txt failed: ")
        && status($0).filter({ !$0.isWhitespace }).contains("requestid")
        && status($0).hasSuffix(")") && Self.row($0, "top.txt")
    }
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  /// An object's content, read back with `kodo cat`.
  static func body(_ key: String, _ environment: [String: String]) async throws -> String {
    let result = try await InProcess.run(["cat", "bkt/" + key], environment: environment)
    #expect(result.status == 0, "\(result)")
    return String(decoding: result.stdoutBytes, as: UTF8.self)
  }
}
