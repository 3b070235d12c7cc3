import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// How many requests the folder verbs make, counted by the emulator: an unchanged tree is
/// compared from one listing (no request per file), and OSS's `mv -r` verifies each copy by
/// its answer (one request per object, then the batched delete). Results are read back.
@Suite struct WriteRequestCountTests {
  /// `count` small files under `tree/` in the bench's directory, of sizes 1 to 40 bytes.
  static func tree(_ bench: PutBench, count: Int) throws -> String {
    let root = bench.home + "/tree"
    try FileManager.default.createDirectory(
      atPath: root + "/sub", withIntermediateDirectories: true)
    for index in 0..<count {
      let name = index % 2 == 0 ? "f\(index).txt" : "sub/f\(index).txt"
      _ = try bench.file("tree/" + name, Array(repeating: UInt8(65 + index % 26), count: 1 + index))
    }
    return root
  }

  @Test(arguments: PutTreeTests.wires)
  func putSkipSameComparesFromOneListing(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = try Self.tree(bench, count: 12)
      let first = try await bench.run(["put", "-r", root, "mem/t/"])
      #expect(first.status == 0, "\(first)")
      bench.emulator.server.resetStats()
      let again = try await bench.run(["put", "-r", "--skip-same", root, "mem/t/"])
      #expect(again.status == 0, "\(again)")
      #expect(again.stderr.contains("0 uploaded, 12 skipped, 0 failed"), "\(again)")
      let stats = bench.emulator.server.stats
      #expect(stats.stat == 0, "\(stats)")
      #expect(stats.upload == 0, "\(stats)")
      #expect(stats.list == 1, "\(stats)")

      // A file of the same size and other bytes is still refused (the listing's hash, or on
      // OSS the object's CRC-64, tells it differs), a new one uploaded, the rest kept.
      _ = try bench.file("tree/f0.txt", Array("Z".utf8))
      _ = try bench.file("tree/new.txt", Array("new".utf8))
      let changed = try await bench.run(["put", "-r", "--skip-same", root, "mem/t/"])
      #expect(changed.status == 73, "\(changed)")
      #expect(changed.stderr.contains("1 uploaded, 11 skipped, 1 failed"), "\(changed)")
      #expect(try await bench.content("t/f0.txt") == Array("A".utf8))
      #expect(try await bench.content("t/new.txt") == Array("new".utf8))
    }
  }

  @Test(arguments: PutTreeTests.wires)
  func anUnchangedSyncMakesNoRequestPerFile(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = try Self.tree(bench, count: 10)
      let up = try await bench.run(["sync", root, "mem/s/"])
      #expect(up.status == 0, "\(up)")
      bench.emulator.server.resetStats()
      let unchanged = try await bench.run(["sync", root, "mem/s/"])
      #expect(unchanged.status == 0, "\(unchanged)")
      #expect(unchanged.stderr.contains("0 uploaded, 10 skipped"), "\(unchanged)")
      var stats = bench.emulator.server.stats
      #expect(stats.stat == 0 && stats.upload == 0 && stats.list == 1, "\(stats)")

      let back = bench.home + "/back"
      let down = try await bench.run(["sync", "mem/s/", back])
      #expect(down.status == 0, "\(down)")
      bench.emulator.server.resetStats()
      let downAgain = try await bench.run(["sync", "--json", "mem/s/", back])
      #expect(downAgain.status == 0, "\(downAgain)")
      stats = bench.emulator.server.stats
      #expect(stats.stat == 0 && stats.download == 0 && stats.list == 1, "\(stats)")
      #expect(downAgain.stdout.split(separator: "\n").count == 10, "\(downAgain)")
      #expect(!downAgain.stdout.contains("\"downloaded\""), "\(downAgain)")
      // Kodo's listing has the hash; OSS's the MD5 ETag of each object put in one request.
      #expect(downAgain.stdout.contains(wire == .oss ? "\"md5\":" : "\"hash\":"), "\(downAgain)")
      let kept = try String(contentsOfFile: back + "/sub/f1.txt", encoding: .utf8)
      #expect(kept == "BB")
    }
  }

  @Test(arguments: PutTreeTests.wires)
  func syncDownWithSizeOnlySaysOnlyTheSizeWasCompared(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = try Self.tree(bench, count: 3)
      #expect(try await bench.run(["sync", root, "mem/s/"]).status == 0)
      let back = bench.home + "/back"
      #expect(try await bench.run(["sync", "mem/s/", back]).status == 0)
      // Same size, other bytes: --size-only keeps it, and says what it compared.
      try Data("Z".utf8).write(to: URL(fileURLWithPath: back + "/f0.txt"))
      let sizes = try await bench.run(["sync", "--size-only", "mem/s/", back])
      #expect(sizes.status == 0, "\(sizes)")
      #expect(
        sizes.stderr.contains("0 written, 3 already there with the same size, 0 failed"),
        "\(sizes)")
      #expect(try String(contentsOfFile: back + "/f0.txt", encoding: .utf8) == "Z")
      let hashes = try await bench.run(["sync", "mem/s/", back])
      #expect(hashes.status == 0, "\(hashes)")
      #expect(
        hashes.stderr.contains("1 written, 2 already there with the same size and hash, 0 failed"),
        "\(hashes)")
      #expect(try String(contentsOfFile: back + "/f0.txt", encoding: .utf8) == "A")
    }
  }

  @Test func ossMoveOfAFolderIsOneRequestPerObjectAndTheBatchedDelete() async throws {
    let keys = MoveRecursiveTests.numbered("p/", 30)
    try await MoveRecursiveTests.with(.oss, keys: keys) { emulator, environment in
      emulator.server.resetStats()
      let moved = try await InProcess.run(
        ["mv", "-r", "--yes", "bkt/p", "two/q/"], environment: environment)
      #expect(moved.status == 0, "\(moved)")
      let stats = emulator.server.stats
      // 30 CopyObject and one DeleteMultipleObjects; no HeadObject.
      #expect(stats.stat == 0, "\(stats)")
      #expect(stats.write == 31, "\(stats)")
      #expect(try await MoveRecursiveTests.keys("bkt", environment) == [])
      let contents = try await MoveRecursiveTests.contents("two", environment)
      #expect(contents.count == 30)
      for key in keys {
        #expect(contents["q/" + key.dropFirst(2)] == key, "\(key)")
      }
    }
  }
}

/// An insert-only write whose answer is lost after the service did it is sent again (it is
/// retry-safe, `docs/write-engine.md`): the repeat is refused as existing (Kodo 614, OSS
/// `FileAlreadyExists`), and the client, finding exactly the bytes it sent (or copied) there,
/// counts it a success. Kodo: a form upload with `insertOnly`; OSS: CopyObject with
/// `x-oss-forbid-overwrite` (PutObject's answer has no body to stall in).
@Suite struct InsertOnlyRetryTests {
  @Test(arguments: PutTreeTests.wires)
  func aRepeatOfAWriteThatLandedSucceeds(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let file = try bench.file("one.txt", Array("landed once".utf8))
      let endpoint: EmulatorFault.Endpoint = wire == .kodo ? .upload : .write
      var arguments = ["put", "--timeout", "1", file, "mem/one.txt"]
      if wire == .oss {
        let first = try await bench.run(["put", file, "mem/source.txt"])
        #expect(first.status == 0, "\(first)")
        arguments = ["cp", "--timeout", "1", "mem/source.txt", "mem/one.txt"]
      }
      bench.emulator.server.scheduleFault(
        EmulatorFault(endpoint: endpoint, mode: .stallAfterHeaders, count: 1))
      bench.emulator.server.resetStats()
      let written = try await bench.run(arguments)
      #expect(written.status == 0, "\(written)")
      // The stalled attempt and its repeat.
      let stats = bench.emulator.server.stats
      #expect((wire == .kodo ? stats.upload : stats.write) == 2, "\(stats)")
      #expect(try await bench.content("one.txt") == Array("landed once".utf8))
      // Other bytes under the same key are still refused.
      let other = try bench.file("other.txt", Array("other bytes".utf8))
      let refused = try await bench.run(["put", other, "mem/one.txt"])
      #expect(refused.status == 73, "\(refused)")
      #expect(try await bench.content("one.txt") == Array("landed once".utf8))
    }
  }
}
