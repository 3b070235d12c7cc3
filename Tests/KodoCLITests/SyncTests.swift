import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// `sync`: up (a local tree to a prefix) and down (a prefix to a local tree) on both protocols,
/// checked by reading back; what differs replaced, nothing else; `--delete`, its confirmation,
/// `--dry-run`, `--size-only`; faults retried to an exact result.
@Suite("sync: up and down, replaced only what differs, --delete confirmed, faults retried")
struct SyncTests {
  static let wires: [EmulatorProtocol] = [.kodo, .oss]

  static func types(_ stdout: String) -> [String] {
    stdout.split(separator: "\n").compactMap { line in
      let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      return object?["type"] as? String
    }
  }

  static func read(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { Array($0) }
  }

  @Test(arguments: wires)
  func upCopiesWhatIsMissingOrDiffersAndDeletesOnlyWhenAsked(_ wire: EmulatorProtocol)
    async throws
  {
    try await PutBench.with(wire) { bench in
      let root = try PutTreeTests.tree(bench)
      let first = try await bench.run(["sync", "--json", root, "mem/t/"])
      #expect(first.status == 0, "\(first)")
      #expect(Self.types(first.stdout) == ["uploaded", "uploaded", "uploaded"], "\(first)")
      #expect(
        try await PutTreeTests.keys(bench, "t/") == [
          "t/a.txt", "t/sub/b.txt", "t/sub/deeper/c.bin",
        ])

      // Nothing differs: nothing is sent.
      bench.emulator.server.resetStats()
      let again = try await bench.run(["sync", root, "mem/t"])
      #expect(again.status == 0, "\(again)")
      #expect(again.stderr.contains("0 uploaded, 3 skipped, 0 failed"), "\(again)")
      #expect(bench.emulator.server.stats.upload == 0)
      #expect(bench.emulator.server.stats.write == 0)

      // Same size, other bytes: replaced; --size-only does not see it.
      _ = try bench.file("tree/sub/b.txt", Array("BRAVO".utf8))
      let changed = try await bench.run(["sync", root, "mem/t/"])
      #expect(changed.status == 0, "\(changed)")
      #expect(changed.stderr.contains("1 uploaded, 2 skipped, 0 failed"), "\(changed)")
      #expect(try await bench.content("t/sub/b.txt") == Array("BRAVO".utf8))
      _ = try bench.file("tree/sub/b.txt", Array("Bravo".utf8))
      let sizeOnly = try await bench.run(["sync", "--size-only", root, "mem/t/"])
      #expect(sizeOnly.stderr.contains("0 uploaded, 3 skipped, 0 failed"), "\(sizeOnly)")
      #expect(try await bench.content("t/sub/b.txt") == Array("BRAVO".utf8))

      // An object only in the bucket: kept without --delete.
      let extra = try bench.file("extra.txt", Array("extra".utf8))
      #expect(try await bench.run(["put", extra, "mem/t/x/extra.txt"]).status == 0)
      let kept = try await bench.run(["sync", root, "mem/t/"])
      #expect(kept.status == 0, "\(kept)")
      #expect(try await PutTreeTests.keys(bench, "t/").contains("t/x/extra.txt"))
      #expect(try await bench.content("t/sub/b.txt") == Array("Bravo".utf8))

      // --delete without a terminal and without --yes: refused before anything is copied.
      _ = try bench.file("tree/a.txt", Array("ALPHA".utf8))
      let refused = try await bench.run(["sync", "--delete", root, "mem/t/"])
      #expect(refused.status == 64, "\(refused)")
      #expect(refused.stderr.contains("--yes"), "\(refused)")
      #expect(try await bench.content("t/a.txt") == Array("alpha".utf8))

      // --dry-run: says what, changes nothing.
      let dry = try await bench.run(["sync", "--delete", "--dry-run", root, "mem/t/"])
      #expect(dry.status == 0, "\(dry)")
      #expect(dry.stdout == "would upload t/a.txt\nwould delete t/x/extra.txt\n", "\(dry)")
      #expect(try await bench.content("t/a.txt") == Array("alpha".utf8))
      #expect(try await PutTreeTests.keys(bench, "t/").contains("t/x/extra.txt"))

      let deleted = try await bench.run(["sync", "--delete", "--yes", "--json", root, "mem/t/"])
      #expect(deleted.status == 0, "\(deleted)")
      #expect(Self.types(deleted.stdout).sorted() == ["deleted", "skipped", "skipped", "uploaded"])
      #expect(
        try await PutTreeTests.keys(bench, "t/") == [
          "t/a.txt", "t/sub/b.txt", "t/sub/deeper/c.bin",
        ])
      #expect(try await bench.content("t/a.txt") == Array("ALPHA".utf8))
    }
  }

  @Test(arguments: wires)
  func upWalksNestedFoldersWithOddNamesAndSizeOnlyComparesTheWalksSizes(
    _ wire: EmulatorProtocol
  ) async throws {
    try await PutBench.with(wire) { bench in
      // Names whose byte order differs from their look: upper case, `#`, `%`, spaces, accents,
      // a name that is a prefix of a folder's.
      let names = [
        "odd/B b.txt", "odd/a", "odd/a#%?.txt", "odd/a.b/x.txt", "odd/é/z/deep.txt",
        "odd/é/ü 1.txt",
      ]
      for (index, name) in names.enumerated() {
        let folder = bench.home + "/" + name.split(separator: "/").dropLast().joined(separator: "/")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try bench.file(name, PutBench.bytes(10 + index, seed: index))
      }
      let root = bench.home + "/odd"
      let keys = names.map { "n/" + $0.dropFirst("odd/".count) }
      let first = try await bench.run(["sync", "--json", root, "mem/n/"])
      #expect(first.status == 0, "\(first)")
      #expect(Self.types(first.stdout) == Array(repeating: "uploaded", count: names.count))
      #expect(try await PutTreeTests.keys(bench, "n/") == keys)

      for flags in [[], ["--size-only"]] {
        let again = try await bench.run(["sync", "--json"] + flags + [root, "mem/n/"])
        #expect(again.status == 0, "\(again)")
        #expect(Self.types(again.stdout) == Array(repeating: "skipped", count: names.count))
        let skipped = again.stdout.split(separator: "\n").compactMap { line in
          let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
          return object?["key"] as? String
        }
        #expect(skipped.sorted() == keys.sorted(), "\(again)")
      }

      // Another size: --size-only sends it, with its new bytes.
      _ = try bench.file("odd/é/z/deep.txt", Array("longer than before".utf8))
      let sized = try await bench.run(["sync", "--size-only", root, "mem/n/"])
      #expect(sized.stderr.contains("1 uploaded, 5 skipped, 0 failed"), "\(sized)")
      #expect(try await bench.content("n/é/z/deep.txt") == Array("longer than before".utf8))
    }
  }

  @Test(arguments: wires)
  func downMirrorsUpNeverThroughALink(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = try PutTreeTests.tree(bench)
      #expect(try await bench.run(["put", "-r", root, "mem/d/"]).status == 0)
      let out = bench.home + "/out"
      let first = try await bench.run(["sync", "--json", "mem/d/", out])
      #expect(first.status == 0, "\(first)")
      #expect(Self.types(first.stdout) == ["downloaded", "downloaded", "downloaded"], "\(first)")
      #expect(Self.read(out + "/sub/deeper/c.bin") == PutBench.bytes(3000, seed: 9))

      let again = try await bench.run(["sync", "mem/d", out])
      #expect(again.status == 0, "\(again)")
      #expect(again.stderr.contains("0 written, 3 already there"), "\(again)")

      // A differing local file is replaced; --size-only does not see a same-size change.
      _ = try bench.file("out/sub/b.txt", Array("BRAVO".utf8))
      let sizeOnly = try await bench.run(["sync", "--size-only", "mem/d/", out])
      #expect(sizeOnly.status == 0, "\(sizeOnly)")
      #expect(Self.read(out + "/sub/b.txt") == Array("BRAVO".utf8))
      let changed = try await bench.run(["sync", "mem/d/", out])
      #expect(changed.status == 0, "\(changed)")
      #expect(changed.stderr.contains("1 written, 2 already there"), "\(changed)")
      #expect(Self.read(out + "/sub/b.txt") == Array("bravo".utf8))

      // Only here: a file, a link to a file outside, a link to a folder outside.
      _ = try bench.file("out/sub/extra.txt", Array("extra".utf8))
      let outside = try bench.file("outside.txt", Array("outside".utf8))
      try FileManager.default.createDirectory(
        atPath: bench.home + "/outdir", withIntermediateDirectories: true)
      let inner = try bench.file("outdir/inner.txt", Array("inner".utf8))
      #expect(symlink(outside, out + "/link.txt") == 0)
      #expect(symlink(bench.home + "/outdir", out + "/linkdir") == 0)
      let kept = try await bench.run(["sync", "mem/d/", out])
      #expect(kept.status == 0, "\(kept)")
      #expect(Self.read(out + "/sub/extra.txt") == Array("extra".utf8))

      _ = try bench.file("out/a.txt", Array("ALPHA".utf8))
      let refused = try await bench.run(["sync", "--delete", "mem/d/", out])
      #expect(refused.status == 64, "\(refused)")
      #expect(Self.read(out + "/a.txt") == Array("ALPHA".utf8))

      let dry = try await bench.run(["sync", "--delete", "--dry-run", "mem/d/", out])
      #expect(dry.status == 0, "\(dry)")
      #expect(
        dry.stdout == "would download d/a.txt\nwould delete \(out)/sub/extra.txt\n", "\(dry)")
      #expect(Self.read(out + "/a.txt") == Array("ALPHA".utf8))
      #expect(Self.read(out + "/sub/extra.txt") == Array("extra".utf8))

      let deleted = try await bench.run(["sync", "--delete", "--yes", "--json", "mem/d/", out])
      #expect(deleted.status == 0, "\(deleted)")
      #expect(
        Self.types(deleted.stdout).sorted() == ["deleted", "downloaded", "skipped", "skipped"])
      #expect(Self.read(out + "/a.txt") == Array("alpha".utf8))
      #expect(!FileManager.default.fileExists(atPath: out + "/sub/extra.txt"))
      // The links are neither followed nor deleted, nor what they point at.
      var status = stat()
      #expect(lstat(out + "/link.txt", &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
      #expect(lstat(out + "/linkdir", &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
      #expect(Self.read(outside) == Array("outside".utf8))
      #expect(Self.read(inner) == Array("inner".utf8))
    }
  }

  @Test func theLocalSideMustBeClearAndPatternsApplyToBothSides() async throws {
    try await PutBench.with(.kodo) { bench in
      let root = try PutTreeTests.tree(bench)
      let both = try await bench.run(["sync", root, bench.home])
      #expect(both.status == 64, "\(both)")
      #expect(both.stderr.contains("both SRC and DEST are local"), "\(both)")
      let neither = try await bench.run(["sync", "mem/a/", "nowhere-\(UUID())"])
      #expect(neither.status == 64, "\(neither)")
      #expect(neither.stderr.contains("write the local one as ./DIR"), "\(neither)")
      let one = try await bench.run(["sync", root])
      #expect(one.status == 64, "\(one)")

      // Excluded files are neither copied nor deleted, on either side.
      #expect(try await bench.run(["put", "-r", root, "mem/p/"]).status == 0)
      let extra = try bench.file("extra.txt", Array("extra".utf8))
      #expect(try await bench.run(["put", extra, "mem/p/sub/x.txt"]).status == 0)
      _ = try bench.file("tree/a.txt", Array("ALPHA".utf8))
      let up = try await bench.run(
        ["sync", "--delete", "--yes", "--exclude", "sub/*", root, "mem/p/"])
      #expect(up.status == 0, "\(up)")
      #expect(up.stderr.contains("1 uploaded, 1 skipped, 0 failed"), "\(up)")
      #expect(try await PutTreeTests.keys(bench, "p/").contains("p/sub/x.txt"))
      let out = bench.home + "/out"
      let down = try await bench.run(["sync", "--include", "sub/**", "mem/p/", out])
      #expect(down.status == 0, "\(down)")
      #expect(!FileManager.default.fileExists(atPath: out + "/a.txt"))
      #expect(Self.read(out + "/sub/x.txt") == Array("extra".utf8))
      #expect(Self.read(out + "/sub/deeper/c.bin") == PutBench.bytes(3000, seed: 9))
    }
  }

  @Test(arguments: wires)
  func nothingIsDeletedWhenACopyFailedAndALinkAtAKeysPlaceIsNotWrittenThrough(
    _ wire: EmulatorProtocol
  ) async throws {
    try await PutBench.with(wire) { bench in
      let root = try PutTreeTests.tree(bench)
      let extra = try bench.file("extra.txt", Array("extra".utf8))
      #expect(try await bench.run(["put", extra, "mem/f/gone.txt"]).status == 0)
      // A name that is not UTF-8 fails: the run copies the rest and deletes nothing.
      try PutTreeTests.fileWithANameThatIsNotUTF8(in: root)
      let failed = try await bench.run(["sync", "--delete", "--yes", root, "mem/f/"])
      #expect(failed.status == 65, "\(failed)")
      #expect(failed.stderr.contains("nothing deleted"), "\(failed)")
      #expect(try await PutTreeTests.keys(bench, "f/").contains("f/gone.txt"))
      #expect(try await bench.content("f/sub/b.txt") == Array("bravo".utf8))

      // Down: a link where a file goes is replaced by the file; its target is untouched.
      let out = bench.home + "/out"
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
      #expect(symlink(extra, out + "/a.txt") == 0)
      let down = try await bench.run(["sync", "mem/f/", out])
      #expect(down.status == 0, "\(down)")
      var status = stat()
      #expect(lstat(out + "/a.txt", &status) == 0 && status.st_mode & S_IFMT == S_IFREG)
      #expect(Self.read(out + "/a.txt") == Array("alpha".utf8))
      #expect(Self.read(extra) == Array("extra".utf8))
    }
  }

  @Test(arguments: wires)
  func onATerminalDeletingIsAskedFirstAndNoCopiesNothing(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = try PutTreeTests.tree(bench)
      let extra = try bench.file("extra.txt", Array("extra".utf8))
      #expect(try await bench.run(["put", extra, "mem/q/gone.txt"]).status == 0)
      let declined = try await RemoveConfirmTests.runOnTerminal(
        ["sync", "--delete", root, "mem/q/"], typed: "n\n", environment: bench.environment)
      #expect(declined.status == 0, "\(declined)")
      #expect(declined.terminal.contains("delete 1 object that exists only at"), "\(declined)")
      #expect(declined.terminal.contains("nothing copied or deleted"), "\(declined)")
      #expect(try await PutTreeTests.keys(bench, "q/") == ["q/gone.txt"])
      let agreed = try await RemoveConfirmTests.runOnTerminal(
        ["sync", "--delete", root, "mem/q/"], typed: "y\n", environment: bench.environment)
      #expect(agreed.status == 0, "\(agreed)")
      #expect(
        try await PutTreeTests.keys(bench, "q/") == [
          "q/a.txt", "q/sub/b.txt", "q/sub/deeper/c.bin",
        ])
    }
  }

  @Test(arguments: wires)
  func faultsAreRetriedToAnExactMirror(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire, failRate: 0.2, seed: 7) { bench in
      let root = bench.home + "/many"
      try FileManager.default.createDirectory(
        atPath: root + "/sub", withIntermediateDirectories: true)
      var expected: [String: [UInt8]] = [:]
      for index in 0..<12 {
        let name = index % 2 == 0 ? "f\(index).bin" : "sub/f\(index).bin"
        let bytes = PutBench.bytes(500 + index * 37, seed: index + 1)
        _ = try bench.file("many/" + name, bytes)
        expected[name] = bytes
      }
      let retries = ["--retries", "10"]
      // Run again until done: each run copies only what is still missing.
      var up = try await bench.run(retries + ["sync", root, "mem/m/"])
      for _ in 0..<3 where up.status != 0 {
        up = try await bench.run(retries + ["sync", root, "mem/m/"])
      }
      #expect(up.status == 0, "\(up)")
      let out = bench.home + "/copy"
      var down = try await bench.run(retries + ["sync", "mem/m/", out])
      for _ in 0..<3 where down.status != 0 {
        down = try await bench.run(retries + ["sync", "mem/m/", out])
      }
      #expect(down.status == 0, "\(down)")
      #expect(bench.emulator.server.stats.faults > 0)
      for (name, bytes) in expected {
        #expect(Self.read(out + "/" + name) == bytes, "\(name)")
      }
      let listed = try await bench.run(retries + ["ls", "-r", "--json", "mem/m/"])
      #expect(listed.stdout.split(separator: "\n").count == expected.count, "\(listed)")
    }
  }
}
