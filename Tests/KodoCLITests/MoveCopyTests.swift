import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

/// `kodo mv` and `kodo cp` of one object on both providers, checked by listing and reading the
/// bucket back.
@Suite struct MoveCopyTests {
  static func content(_ key: String, _ environment: [String: String]) async throws -> String {
    let read = try await InProcess.run(["cat", "bkt/" + key], environment: environment)
    #expect(read.status == 0, "\(read)")
    return read.stdout
  }

  @Test(arguments: RemoveTests.wires)
  func copyRefusesAnExistingDestinationUnlessForced(_ wire: EmulatorProtocol) async throws {
    try await RemoveTests.with(wire, keys: RemoveTests.small) { _, environment in
      let copied = try await InProcess.run(
        ["cp", "--json", "bkt/a.txt", "bkt/copy.txt"], environment: environment)
      #expect(copied.status == 0, "\(copied)")
      #expect(copied.stdout == #"{"type":"copied","from":"bkt/a.txt","to":"bkt/copy.txt"}"# + "\n")
      #expect(try await Self.content("copy.txt", environment) == "a.txt")
      let again = try await InProcess.run(
        ["cp", "bkt/b.txt", "bkt/copy.txt"], environment: environment)
      #expect(again.status == 73, "\(again)")
      #expect(try await Self.content("copy.txt", environment) == "a.txt")
      let forced = try await InProcess.run(
        ["cp", "--force", "bkt/b.txt", "bkt/copy.txt"], environment: environment)
      #expect(forced.status == 0, "\(forced)")
      #expect(try await Self.content("copy.txt", environment) == "b.txt")
      let folder = try await InProcess.run(
        ["cp", "bkt/a.txt", "bkt/dir/"], environment: environment)
      #expect(folder.status == 0, "\(folder)")
      #expect(
        try await RemoveTests.keys(environment)
          == ["a.txt", "b.txt", "c d.txt", "copy.txt", "dir/a.txt", "keep.txt"])
    }
  }

  @Test(arguments: RemoveTests.wires)
  func moveDeletesTheSourceOnlyWhenTheCopyIsThere(_ wire: EmulatorProtocol) async throws {
    try await RemoveTests.with(wire, keys: RemoveTests.small) { _, environment in
      let dry = try await InProcess.run(
        ["mv", "--dry-run", "bkt/a.txt", "bkt/dir/"], environment: environment)
      #expect(dry.status == 0, "\(dry)")
      #expect(dry.stdout.contains("would move"), "\(dry)")
      #expect(try await RemoveTests.keys(environment) == RemoveTests.small)
      let moved = try await InProcess.run(
        ["mv", "bkt/a.txt", "bkt/dir/"], environment: environment)
      #expect(moved.status == 0, "\(moved)")
      #expect(
        try await RemoveTests.keys(environment) == ["b.txt", "c d.txt", "dir/a.txt", "keep.txt"])
      #expect(try await Self.content("dir/a.txt", environment) == "a.txt")
      let refused = try await InProcess.run(
        ["mv", "bkt/b.txt", "bkt/keep.txt"], environment: environment)
      #expect(refused.status == 73, "\(refused)")
      #expect(
        try await RemoveTests.keys(environment) == ["b.txt", "c d.txt", "dir/a.txt", "keep.txt"])
      #expect(try await Self.content("keep.txt", environment) == "keep.txt")
      let forced = try await InProcess.run(
        ["mv", "--force", "--json", "bkt/b.txt", "bkt/keep.txt"], environment: environment)
      #expect(forced.status == 0, "\(forced)")
      #expect(forced.stdout == #"{"type":"moved","from":"bkt/b.txt","to":"bkt/keep.txt"}"# + "\n")
      #expect(try await RemoveTests.keys(environment) == ["c d.txt", "dir/a.txt", "keep.txt"])
      #expect(try await Self.content("keep.txt", environment) == "b.txt")
      let missing = try await InProcess.run(["mv", "bkt/nope", "bkt/x"], environment: environment)
      #expect(missing.status == 66, "\(missing)")
      let local = try await InProcess.run(["mv", "bkt/keep.txt", "./x"], environment: environment)
      #expect(local.status == 64, "\(local)")
      #expect(try await RemoveTests.keys(environment) == ["c d.txt", "dir/a.txt", "keep.txt"])
    }
  }
}
