import Foundation
import KodoTestSupport
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
