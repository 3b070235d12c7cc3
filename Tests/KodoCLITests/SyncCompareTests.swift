import Foundation
import KodoEmulator
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import KodoCLI

/// How `sync`'s upload (and `put -r --skip-same`) matches local files with the objects it
/// listed: by the keys' exact bytes (`FolderListing`, no map of `String`s, which takes
/// canonically equivalent keys for one), and small files compared on the run's task
/// (`SyncCompare`), larger ones in their jobs, with the same verdicts.
@Suite("sync up, put --skip-same: files matched to listed keys by their bytes, compared exactly")
struct SyncCompareTests {
  static func bytes(_ keys: [String]) -> [[UInt8]] {
    keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
  }

  /// Writes `bytes` to `path`, the name's bytes as given (no normalization on the way).
  static func makeFile(_ path: String, _ bytes: [UInt8]) throws {
    let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    try #require(written == bytes.count)
  }

  static func keys(_ bench: PutBench, _ prefix: String) async throws -> [[UInt8]] {
    bytes(try await PutTreeTests.keys(bench, prefix))
  }

  /// A file named `café.txt` composed is not the object `cafe\u{301}.txt` (decomposed) with the
  /// same bytes: it is uploaded beside it, and `--delete` deletes that object.
  @Test(arguments: SyncTests.wires)
  func keysThatDifferOnlyInTheirNormalizationAreTwoObjects(_ wire: EmulatorProtocol)
    async throws
  {
    try await PutBench.with(wire) { bench in
      let content = Array("the same bytes".utf8)
      let source = try bench.file("source.txt", content)
      let decomposed = "u/cafe\u{301}.txt"
      let composed = "u/caf\u{E9}.txt"
      #expect(try await bench.run(["put", source, "mem/" + decomposed]).status == 0)
      let root = bench.home + "/normal"
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      try Self.makeFile(root + "/caf\u{E9}.txt", content)

      let up = try await bench.run(["sync", "--json", root, "mem/u/"])
      #expect(up.status == 0, "\(up)")
      #expect(SyncTests.types(up.stdout) == ["uploaded"], "\(up)")
      #expect(try await Self.keys(bench, "u/") == Self.bytes([composed, decomposed]))

      let deleted = try await bench.run(["sync", "--delete", "--yes", "--json", root, "mem/u/"])
      #expect(deleted.status == 0, "\(deleted)")
      #expect(SyncTests.types(deleted.stdout).sorted() == ["deleted", "skipped"], "\(deleted)")
      #expect(try await Self.keys(bench, "u/") == Self.bytes([composed]))
    }
  }

  /// Down, the same: a local `cafe\u{301}.txt` (decomposed) is not kept by the object
  /// `café.txt` (composed) with the same bytes; `--delete` deletes it and keeps the other.
  @Test(arguments: SyncTests.wires)
  func localNamesThatDifferOnlyInTheirNormalizationAreTwoFiles(_ wire: EmulatorProtocol)
    async throws
  {
    try await PutBench.with(wire) { bench in
      let content = Array("the same bytes".utf8)
      let source = try bench.file("source.txt", content)
      #expect(try await bench.run(["put", source, "mem/d/caf\u{E9}.txt"]).status == 0)
      let root = bench.home + "/down"
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      try Self.makeFile(root + "/caf\u{E9}.txt", content)
      try Self.makeFile(root + "/cafe\u{301}.txt", content)

      let deleted = try await bench.run(["sync", "--delete", "--yes", "--json", "mem/d/", root])
      #expect(deleted.status == 0, "\(deleted)")
      #expect(SyncTests.types(deleted.stdout).sorted() == ["deleted", "skipped"], "\(deleted)")
      let left = try FileManager.default.contentsOfDirectory(atPath: root)
      #expect(Self.bytes(left) == Self.bytes(["caf\u{E9}.txt"]))
    }
  }

  /// `put -r --skip-same` matches files to the folder's listing the same way: the composed name
  /// is uploaded beside the decomposed object with the same bytes, not skipped as that object.
  @Test(arguments: SyncTests.wires)
  func putSkipSameTellsKeysApartByTheirBytes(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let content = Array("the same bytes".utf8)
      let source = try bench.file("source.txt", content)
      #expect(try await bench.run(["put", source, "mem/p/cafe\u{301}.txt"]).status == 0)
      let root = bench.home + "/normal"
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      try Self.makeFile(root + "/caf\u{E9}.txt", content)
      let put = try await bench.run(["put", "-r", "--skip-same", "--json", root, "mem/p/"])
      #expect(put.status == 0, "\(put)")
      #expect(SyncTests.types(put.stdout) == ["uploaded"], "\(put)")
      #expect(
        try await Self.keys(bench, "p/") == Self.bytes(["p/caf\u{E9}.txt", "p/cafe\u{301}.txt"]))
      let again = try await bench.run(["put", "-r", "--skip-same", "--json", root, "mem/p/"])
      #expect(SyncTests.types(again.stdout) == ["skipped"], "\(again)")
    }
  }

  /// Files up to the limit compared on the run's task and larger ones in their jobs agree: the
  /// same kept with nothing sent, one byte different (same size) replaced with its new bytes.
  @Test(arguments: SyncTests.wires)
  func smallAndLargeFilesAreComparedExactly(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = bench.home + "/sizes"
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      let large = Int(SyncCompare.inlineLimit) + 1
      var files: [String: [UInt8]] = [
        "small.bin": PutBench.bytes(700, seed: 1),
        "small-changed.bin": PutBench.bytes(700, seed: 2),
        "large.bin": PutBench.bytes(large, seed: 3),
        "large-changed.bin": PutBench.bytes(large, seed: 4),
        "limit.bin": PutBench.bytes(Int(SyncCompare.inlineLimit), seed: 5),
      ]
      for (name, bytes) in files { try Self.makeFile(root + "/" + name, bytes) }
      let first = try await bench.run(["sync", root, "mem/z/"])
      #expect(first.stderr.contains("5 uploaded, 0 skipped, 0 failed"), "\(first)")

      bench.emulator.server.resetStats()
      let same = try await bench.run(["sync", root, "mem/z/"])
      #expect(same.stderr.contains("0 uploaded, 5 skipped, 0 failed"), "\(same)")
      #expect(bench.emulator.server.stats.upload == 0)
      #expect(bench.emulator.server.stats.write == 0)

      for name in ["small-changed.bin", "large-changed.bin"] {
        var bytes = try #require(files[name])
        bytes[bytes.count / 2] ^= 0xFF
        files[name] = bytes
        try Self.makeFile(root + "/" + name, bytes)
      }
      let changed = try await bench.run(["sync", "--json", root, "mem/z/"])
      #expect(changed.status == 0, "\(changed)")
      let uploaded = changed.stdout.split(separator: "\n").compactMap { line -> String? in
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        guard object?["type"] as? String == "uploaded" else { return nil }
        return object?["key"] as? String
      }
      #expect(uploaded.sorted() == ["z/large-changed.bin", "z/small-changed.bin"], "\(changed)")
      for (name, bytes) in files {
        #expect(try await bench.content("z/" + name) == bytes, "\(name)")
      }
    }
  }

  /// Any listing (keys whose byte order differs from their look, keys equal but for their
  /// normalization) and any order of lookups: each finds the object with exactly its bytes or
  /// none, and what no lookup found is what is left, in key order.
  @Test func eachKeyFindsTheObjectWithItsBytesAndTheRestAreLeft() async {
    let pieces = ["a", "b", "/", "-", "\u{E9}", "e\u{301}", "\u{301}"]
    let key = Gen<String?>.element(of: pieces).map { $0 ?? "a" }.array(of: 1...4)
      .map { $0.joined() }
    await seededCheck(count: 300, input: key.array(of: 0...30), key.array(of: 0...40)) {
      keys, lookups in
      let listed = Array(Set(keys.map { Array($0.utf8) }))
        .sorted { $0.lexicographicallyPrecedes($1) }
      let objects = listed.enumerated().map { index, bytes in
        ObjectEntry(
          key: String(decoding: bytes, as: UTF8.self), size: Int64(index + 1),
          putTime: Timestamp(hundredNanoseconds: 0, fractionDigits: 7),
          storageClass: StorageClass(name: "standard", serviceName: "x"))
      }
      // Pages of 1 to 4 objects, and an empty one.
      var pages: [[ObjectEntry]] = [[]]
      var start = 0
      while start < objects.count {
        let end = min(objects.count, start + 1 + (start + keys.count) % 4)
        pages.append(Array(objects[start..<end]))
        start = end
      }
      let listing = FolderListing(pages: pages)
      // Random keys, then every other listed key in order (the walk's usual order), then each
      // of the first half in order (each the one after the last found, across pages).
      let asked =
        lookups.map { Array($0.utf8) }
        + listed.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        + listed.prefix(listed.count / 2)
      var found = Set<[UInt8]>()
      for bytes in asked {
        let object = listing.take(String(decoding: bytes, as: UTF8.self))
        let index = listed.firstIndex(of: bytes)
        #expect(object.map { Array($0.key.utf8) } == index.map { listed[$0] })
        #expect(object?.size == index.map { Int64($0 + 1) })
        let place = listing.takePlace(String(decoding: bytes, as: UTF8.self))
        #expect(place.map { listing.size(at: $0) } == index.map { Int64($0 + 1) })
        if index != nil { found.insert(bytes) }
      }
      let left = listing.untaken(prefix: "", .none).map { Array($0.utf8) }
      #expect(left == listed.filter { !found.contains($0) })
    }
  }
}
