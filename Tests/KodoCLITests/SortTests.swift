import Foundation
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import KodoCLI

/// `--sort`: the external merge sort against a plain in-memory sort, every field kept through
/// the temporary files, and `ls`/`find` end to end with a threshold low enough to spill.
@Suite("Sorting listings", .serialized)
struct SortTests {
  static func entries(count: Int, seed: UInt64) -> [ObjectEntry] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { index in
      var entry = ObjectEntry(
        key: "k\(random.next() % 50)/\(index)\u{1}é",
        size: Int64(random.next() % 7) - 1,
        putTime: Timestamp(hundredNanoseconds: Int64(random.next() % 5), fractionDigits: 7),
        storageClass: StorageClass(name: index % 2 == 0 ? "standard" : "ia", serviceName: "x"))
      if index % 3 == 0 {
        entry.mimeType = "text/plain"
        entry.hash = "Fh\(index)"
        entry.status = index % 2 == 0 ? .disabled : .unknown(7)
        entry.meta = ["a": "1", "b\n": ""]
        entry.restoreStatus = .other("weird")
        entry.lastModified = Timestamp(hundredNanoseconds: 99, fractionDigits: 3)
        entry.parts = [1, 2, 3]
        entry.md5 = "abc"
        entry.endUser = "u"
        entry.etag = "e"
        entry.objectType = "normal"
      }
      return entry
    }
  }

  @Test(arguments: [ListingOrder.name, .size, .time], [false, true])
  func theExternalSortAgreesWithAnInMemorySort(_ order: ListingOrder, _ reverse: Bool) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-sort-test-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let input = Self.entries(count: 1500, seed: 42)
    let reference = ExternalSorter(order: order, reverse: reverse, directory: directory)
    let expected = input.sorted(by: reference.precedes)
    // Runs of 7 entries, merged into one whenever 3 are open: every path of the sorter.
    let sorter = ExternalSorter(
      order: order, reverse: reverse, directory: directory, threshold: 7, maximumRuns: 3)
    var start = 0
    while start < input.count {
      let end = min(start + 11, input.count)
      try sorter.add(Array(input[start..<end]))
      start = end
    }
    var output: [ObjectEntry] = []
    try sorter.drain { (batch: [ObjectEntry]) throws(StorageError) in output += batch }
    #expect(output == expected)
    // The temporary files were removed as soon as they were made.
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  /// Entries whose keys tie where the sort's records are compared first: longer than 8 bytes
  /// with the same first 8, shorter than 8, empty, with 0 bytes and non-ASCII; few sizes and
  /// times, and every optional field now and then.
  static func tying(count: Int, seed: UInt64) -> [ObjectEntry] {
    var random = SplitMix64(seed: seed)
    let stems = ["", "a", "a\u{0}", "dir-000/sub-0", "dir-000/sub-00/", "é", "\u{FF}x", "dir-0001"]
    return (0..<count).map { index in
      let stem = stems[Int(random.next() % UInt64(stems.count))]
      var entry = ObjectEntry(
        key: random.next() % 4 == 0 ? "\(stem)\(index)" : "\(stem)/\(index)é",
        size: Int64(random.next() % 3) - 1,
        putTime: Timestamp(
          hundredNanoseconds: Int64(random.next() % 3), fractionDigits: [7, 3, 0][index % 3]),
        storageClass: StorageClass(name: "standard", serviceName: "Standard"))
      if random.next() % 4 == 0 {
        entry.meta = UserMetadata((0..<Int(random.next() % 3)).map { ("m\($0)", "v\(index)") })
        entry.status = [.enabled, .disabled, .unknown(-3)][Int(random.next() % 3)]
        entry.restoreStatus = [.restoring, .restored, .other("x")][Int(random.next() % 3)]
        entry.parts = Array(repeating: Int64(index), count: Int(random.next() % 3))
        entry.lastModified = Timestamp(hundredNanoseconds: -Int64(index), fractionDigits: 3)
      }
      return entry
    }
  }

  /// For any entries, batch size and number of runs open at once, every order and direction:
  /// the external sort gives what sorting the entries in memory by `precedes` gives.
  @Test func theExternalSortAgreesWithAnInMemorySortForAnyBatches() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-sort-test-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let counts = Gen<Int>.value(in: 0...400)
    let thresholds = Gen<Int>.value(in: 1...60)
    let seeds = Gen<UInt64>.value(in: 0...UInt64.max)
    await seededCheck(count: 40, input: counts, thresholds, seeds) { count, threshold, seed in
      let input = Self.tying(count: count, seed: seed)
      for order in ListingOrder.allCases {
        for reverse in [false, true] {
          let sorter = ExternalSorter(
            order: order, reverse: reverse, directory: directory, threshold: threshold,
            maximumRuns: 2 + Int(seed % 4))
          let expected = input.sorted(by: sorter.precedes)
          var start = 0
          while start < input.count {
            let end = min(start + 1 + Int(seed % 23), input.count)
            try sorter.add(Array(input[start..<end]))
            start = end
          }
          var output: [ObjectEntry] = []
          try sorter.drain { (batch: [ObjectEntry]) throws(StorageError) in output += batch }
          // The keys first: a wrong order shows as keys, not as every field of every entry.
          let keys = output.map(\.key)
          #expect(keys == expected.map(\.key), "\(order) \(reverse) threshold \(threshold)")
          if keys == expected.map(\.key) { #expect(output == expected) }
        }
      }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  /// Times that are the same instant tie whatever digits the service gave them (Kodo's 7, OSS's
  /// 3, an HTTP date's 0), so their keys decide, in memory and through the temporary files.
  @Test(arguments: [false, true])
  func sameInstantsWithOtherDigitsTieOnTheirKeys(_ reverse: Bool) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-sort-test-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let keys = ["d", "b", "e", "a", "c", "f"]
    let input = keys.enumerated().map { index, key in
      ObjectEntry(
        key: key, size: 1,
        putTime: Timestamp(hundredNanoseconds: 50_000_000, fractionDigits: [7, 3, 0][index % 3]),
        storageClass: StorageClass(name: "standard", serviceName: "Standard"))
    }
    let expected = reverse ? keys.sorted().reversed() : keys.sorted()
    let sorter = ExternalSorter(
      order: .time, reverse: reverse, directory: directory, threshold: 2, maximumRuns: 2)
    #expect(input.sorted(by: sorter.precedes).map(\.key) == expected)
    try sorter.add(input)
    var output: [ObjectEntry] = []
    try sorter.drain { (batch: [ObjectEntry]) throws(StorageError) in output += batch }
    #expect(output.map(\.key) == expected)
  }

  @Test func lsAndFindSortThroughTemporaryFiles() async throws {
    let env = try await CLIEnvironment.get()
    let photos = CLIEnvironment.photos
    for threshold in [2, 100_000] {
      for arguments in [
        ["ls", "-r", "-0", "--sort", "size", "--reverse", "photos"],
        ["find", "-0", "--sort", "size", "--reverse", "photos"],
        ["ls", "-r", "-0", "--sort", "size", "--reverse", "--parallel", "3", "photos"],
      ] {
        let result = try await ExternalSorter.$thresholdOverride.withValue(threshold) {
          try await InProcess.run(arguments, environment: ["KODO_CONFIG": env.config])
        }
        #expect(result.status == 0, "\(arguments): \(result)")
        let keys = result.stdoutBytes.split(separator: 0).map {
          String(decoding: $0, as: UTF8.self)
        }
        // Equal sizes are in key order, reversed too (ties broken by key, then reversed).
        let expected = photos.sorted {
          $0.value.count != $1.value.count
            ? $0.value.count > $1.value.count : $1.key.utf8.lexicographicallyPrecedes($0.key.utf8)
        }.map(\.key)
        #expect(keys == expected, "\(arguments) threshold \(threshold)")
      }
    }
    // By name, one level: folders first, then the objects in order.
    let level = try await ExternalSorter.$thresholdOverride.withValue(1) {
      try await InProcess.run(
        ["ls", "--json", "--sort", "name", "--reverse", "photos"],
        environment: ["KODO_CONFIG": env.config])
    }
    let lines = try CLIEnvironment.jsonLines(level)
    #expect(lines.prefix(4).allSatisfy { $0["type"] as? String == "prefix" })
    #expect(
      lines.dropFirst(4).compactMap { $0["key"] as? String } == ["empty.bin", "b.json", "a.txt"])
    let bad = try await env.run(["ls", "-r", "--sort", "size", "--limit", "3", "photos"])
    #expect(bad.status == 64)
    let reverseAlone = try await env.run(["find", "--reverse", "photos"])
    #expect(reverseAlone.status == 64)
  }
}
