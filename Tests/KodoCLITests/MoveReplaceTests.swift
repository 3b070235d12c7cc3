import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

/// `kodo mv` and `kodo cp` on a terminal, when the service refuses an existing destination:
/// kodo asks, a yes stands for `--force`, a no (or no terminal, or `--yes`) keeps the
/// refusal (73). Every result is read back.
@Suite struct MoveReplaceTests {
  @Test(arguments: RemoveTests.wires)
  func aSingleCopyOrMoveAsksAfterTheRefusal(_ wire: EmulatorProtocol) async throws {
    try await RemoveTests.with(wire, keys: RemoveTests.small) { _, environment in
      let declined = try await RemoveConfirmTests.runOnTerminal(
        ["cp", "bkt/a.txt", "bkt/keep.txt"], typed: "n\n", environment: environment)
      #expect(declined.status == 73, "\(declined)")
      #expect(declined.terminal.contains("\"bkt/keep.txt\" exists; replace? [y/N]"), "\(declined)")
      #expect(try await MoveCopyTests.content("keep.txt", environment) == "keep.txt")
      let copied = try await RemoveConfirmTests.runOnTerminal(
        ["cp", "bkt/a.txt", "bkt/keep.txt"], typed: "y\n", environment: environment)
      #expect(copied.status == 0, "\(copied)")
      #expect(try await MoveCopyTests.content("keep.txt", environment) == "a.txt")
      #expect(try await MoveCopyTests.content("a.txt", environment) == "a.txt")
      let moved = try await RemoveConfirmTests.runOnTerminal(
        ["mv", "bkt/b.txt", "bkt/keep.txt"], typed: "y\n", environment: environment)
      #expect(moved.status == 0, "\(moved)")
      #expect(try await MoveCopyTests.content("keep.txt", environment) == "b.txt")
      #expect(try await RemoveTests.keys(environment) == ["a.txt", "c d.txt", "keep.txt"])
      // --yes asks nothing: the refusal stands.
      let unasked = try await RemoveConfirmTests.runOnTerminal(
        ["mv", "--yes", "bkt/a.txt", "bkt/keep.txt"], typed: "y\n", environment: environment)
      #expect(unasked.status == 73, "\(unasked)")
      #expect(!unasked.terminal.contains("replace?"), "\(unasked)")
      // A destination that does not exist is not asked about.
      let fresh = try await RemoveConfirmTests.runOnTerminal(
        ["mv", "bkt/a.txt", "bkt/new.txt"], typed: "", environment: environment)
      #expect(fresh.status == 0, "\(fresh)")
      #expect(!fresh.terminal.contains("replace?"), "\(fresh)")
      #expect(try await RemoveTests.keys(environment) == ["c d.txt", "keep.txt", "new.txt"])
      // Without a terminal: 73, nothing asked, nothing changed.
      let piped = try await InProcess.run(
        ["mv", "bkt/new.txt", "bkt/keep.txt"], environment: environment)
      #expect(piped.status == 73, "\(piped)")
      #expect(try await MoveCopyTests.content("keep.txt", environment) == "b.txt")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func aFolderMoveAsksOnceForEveryRefusedKey(_ wire: EmulatorProtocol) async throws {
    let keys = ["p/1", "p/2", "p/3", "q/1", "q/3"]
    try await MoveRecursiveTests.with(wire, keys: keys) { _, environment in
      // The move is confirmed, then two keys are refused: declined, they stay as they were
      // (73) and the rest moved.
      let declined = try await RemoveConfirmTests.runOnTerminal(
        ["mv", "-r", "bkt/p", "bkt/q/"], typed: "y\nn\n", environment: environment)
      #expect(declined.status == 73, "\(declined)")
      #expect(
        declined.terminal.contains("2 objects already exist under \"bkt/q/\"; replace them? [y/N]"),
        "\(declined)")
      #expect(
        try await MoveRecursiveTests.keys("bkt", environment) == [
          "p/1", "p/3", "q/1", "q/2", "q/3",
        ])
      #expect(
        try await MoveRecursiveTests.contents("bkt/q/", environment)
          == ["1": "q/1", "2": "p/2", "3": "q/3"])
      // Asked again and agreed: both replaced, their sources gone.
      let agreed = try await RemoveConfirmTests.runOnTerminal(
        ["mv", "-r", "bkt/p", "bkt/q/"], typed: "y\ny\n", environment: environment)
      #expect(agreed.status == 0, "\(agreed)")
      #expect(try await MoveRecursiveTests.keys("bkt", environment) == ["q/1", "q/2", "q/3"])
      #expect(
        try await MoveRecursiveTests.contents("bkt/q/", environment)
          == ["1": "p/1", "2": "p/2", "3": "p/3"])
      // cp -r with one refusal (another content at the destination) names the key.
      let copied = try await RemoveConfirmTests.runOnTerminal(
        ["cp", "-r", "bkt/q", "two/"], typed: "y\n", environment: environment)
      #expect(copied.status == 0, "\(copied)")
      let put = try await InProcess.run(
        ["cp", "bkt/q/2", "two/z/1"], environment: environment)
      #expect(put.status == 0, "\(put)")
      let one = try await RemoveConfirmTests.runOnTerminal(
        ["cp", "-r", "bkt/q", "two/z/"], typed: "y\ny\n", environment: environment)
      #expect(one.status == 0, "\(one)")
      #expect(one.terminal.contains("\"two/z/1\" exists; replace? [y/N]"), "\(one)")
      #expect(try await MoveRecursiveTests.keys("two/z/", environment) == ["z/1", "z/2", "z/3"])
    }
  }
}
