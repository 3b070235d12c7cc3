import Foundation
import KodoEmulator
import KodoTestSupport
import PropertyBased
import StorageCore
import Synchronization
import Testing

@testable import KodoCLI

/// `kodo rm` against in-process emulators speaking Kodo and OSS, every result checked by
/// listing the bucket back.
@Suite struct RemoveTests {
  static let credentials = Credentials(accessKey: "rm-access-key", secretKey: "rm-secret-key")

  /// An emulator speaking `wire` with a writable bucket `b` holding `keys`, and kodo's
  /// environment for it.
  static func with(
    _ wire: EmulatorProtocol, keys: [String],
    _ body: (EmulatorHarness, [String: String]) async throws -> Void
  ) async throws {
    var configuration = EmulatorConfiguration(
      credentials: credentials,
      buckets: [.objects("bkt", keys.map { EmulatorObject(key: $0, body: Array($0.utf8)) })])
    configuration.wireProtocol = wire
    try await EmulatorHarness.with(configuration) { emulator in
      let environment: [String: String] =
        wire == .oss
        ? [
          "KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.server.baseURL,
          "OSS_REGION": emulator.server.region, "OSS_ACCESS_KEY_ID": credentials.accessKey,
          "OSS_ACCESS_KEY_SECRET": "rm-secret-key",
        ]
        : [
          "KODO_ENDPOINT": emulator.server.baseURL, "QINIU_ACCESS_KEY": credentials.accessKey,
          "QINIU_SECRET_KEY": "rm-secret-key",
        ]
      try await body(emulator, environment)
    }
  }

  /// The bucket's keys, listed back with `kodo ls -r --json`.
  static func keys(_ environment: [String: String]) async throws -> [String] {
    let listed = try await InProcess.run(["ls", "-r", "--json", "bkt"], environment: environment)
    #expect(listed.status == 0, "\(listed)")
    return try jsonLines(listed.stdoutBytes).compactMap { $0["key"] as? String }
  }

  static func jsonLines(_ bytes: [UInt8]) throws -> [[String: Any]] {
    try bytes.split(separator: UInt8(ascii: "\n")).map {
      try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
    }
  }

  static let wires: [EmulatorProtocol] = [.kodo, .oss]
  static let small = ["a.txt", "b.txt", "c d.txt", "keep.txt"]

  @Test(arguments: wires)
  func deletesOneAndSeveralKeys(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: Self.small) { _, environment in
      let one = try await InProcess.run(["rm", "bkt", "a.txt"], environment: environment)
      #expect(one.status == 0, "\(one)")
      #expect(one.stderr.contains("deleted 1 of 1 object"), "\(one)")
      #expect(try await Self.keys(environment) == ["b.txt", "c d.txt", "keep.txt"])
      let several = try await InProcess.run(
        ["rm", "--json", "--yes", "bkt", "b.txt", "c d.txt"], environment: environment)
      #expect(several.status == 0, "\(several)")
      let lines = try Self.jsonLines(several.stdoutBytes)
      #expect(lines.map { $0["type"] as? String } == ["deleted", "deleted"])
      #expect(lines.map { $0["key"] as? String } == ["b.txt", "c d.txt"])
      #expect(try await Self.keys(environment) == ["keep.txt"])
      let slashed = try await InProcess.run(["rm", "bkt/keep.txt"], environment: environment)
      #expect(slashed.status == 0, "\(slashed)")
      #expect(try await Self.keys(environment) == [])
    }
  }

  @Test(arguments: wires)
  func recursiveDeletesTheFolderOnlyInSeveralBatches(_ wire: EmulatorProtocol) async throws {
    let inside = (0..<2_345).map {
      "a/" + String(repeating: "0", count: 4 - "\($0)".count) + "\($0)"
    }
    let kept = ["a", "a-other/x.txt", "ab", "z.txt"]
    try await Self.with(wire, keys: inside + ["a/", "a/sub/deep.txt"] + kept) { _, environment in
      let removed = try await InProcess.run(
        ["rm", "-r", "--yes", "--json", "bkt/a"], environment: environment)
      #expect(removed.status == 0, "\(removed)")
      let lines = try Self.jsonLines(removed.stdoutBytes)
      #expect(lines.count == inside.count + 2)
      #expect(Set(lines.compactMap { $0["key"] as? String }).count == inside.count + 2)
      #expect(removed.stderr.contains("deleted 2347 of 2347 objects"), "\(removed)")
      #expect(try await Self.keys(environment) == kept)
      let again = try await InProcess.run(
        ["rm", "-r", "--yes", "bkt/a/"], environment: environment)
      #expect(again.status == 66, "\(again)")
      let forced = try await InProcess.run(
        ["rm", "-r", "--yes", "-f", "bkt/a/"], environment: environment)
      #expect(forced.status == 0, "\(forced)")
      let whole = try await InProcess.run(["rm", "-r", "--yes", "bkt"], environment: environment)
      #expect(whole.status == 0, "\(whole)")
      #expect(try await Self.keys(environment) == [])
    }
  }

  @Test(arguments: wires)
  func dryRunChangesNothing(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["x/1", "x/2", "x/\u{1B}[31m"] + Self.small) { _, environment in
      let before = try await Self.keys(environment)
      let folder = try await InProcess.run(
        ["rm", "-r", "--dry-run", "bkt/x"], environment: environment)
      #expect(folder.status == 0, "\(folder)")
      #expect(folder.stdout.contains("would delete bkt/x/1\nwould delete bkt/x/2\n"), "\(folder)")
      #expect(!folder.stdout.contains("\u{1B}"), "keys are escaped: \(folder)")
      let keys = try await InProcess.run(
        ["rm", "--dry-run", "bkt", "a.txt", "missing"], environment: environment)
      #expect(keys.status == 66, "\(keys)")
      #expect(keys.stdout == "would delete bkt/a.txt\n", "\(keys)")
      #expect(try await Self.keys(environment) == before)
    }
  }

  @Test(arguments: wires)
  func withoutATerminalItRefusesUnlessYes(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: ["f/1", "f/2"] + Self.small) { _, environment in
      let before = try await Self.keys(environment)
      for arguments in [["-r", "bkt/f"], ["-r", "bkt"], ["bkt", "a.txt", "b.txt"]] {
        let refused = try await InProcess.run(["rm"] + arguments, environment: environment)
        #expect(refused.status == 64, "\(arguments) \(refused)")
        #expect(refused.stderr.contains("add --yes"), "\(refused)")
      }
      let stdin = try await InProcess.run(
        ["rm", "--stdin", "bkt"], environment: environment, stdin: Array("a.txt\nb.txt\n".utf8))
      #expect(stdin.status == 64, "\(stdin)")
      #expect(try await Self.keys(environment) == before)
      // One key needs no confirmation, on stdin too.
      let one = try await InProcess.run(
        ["rm", "--stdin", "bkt"], environment: environment, stdin: Array("a.txt\n".utf8))
      #expect(one.status == 0, "\(one)")
      #expect(try await Self.keys(environment) == before.filter { $0 != "a.txt" })
    }
  }

  @Test(arguments: wires)
  func missingKeysExit66UnlessForced(_ wire: EmulatorProtocol) async throws {
    try await Self.with(wire, keys: Self.small) { _, environment in
      let missing = try await InProcess.run(["rm", "bkt", "nope"], environment: environment)
      #expect(missing.status == 66, "\(missing)")
      #expect(missing.stderr.contains("nope"), "\(missing)")
      let mixed = try await InProcess.run(
        ["rm", "--yes", "bkt", "nope", "a.txt"], environment: environment)
      #expect(mixed.status == 66, "one missing key stops nothing: \(mixed)")
      #expect(try await Self.keys(environment) == ["b.txt", "c d.txt", "keep.txt"])
      let forced = try await InProcess.run(
        ["rm", "-f", "--yes", "bkt", "nope", "b.txt"], environment: environment)
      #expect(forced.status == 0, "\(forced)")
      #expect(try await Self.keys(environment) == ["c d.txt", "keep.txt"])
    }
  }

  @Test(arguments: wires)
  func stdinWithNulKeepsNewlinesInKeys(_ wire: EmulatorProtocol) async throws {
    let odd = ["line\nbreak.txt", "tab\there", "x y"]
    try await Self.with(wire, keys: odd + Self.small) { _, environment in
      let input = Array((odd.joined(separator: "\0") + "\0").utf8)
      let removed = try await InProcess.run(
        ["rm", "--stdin", "-0", "--yes", "--json", "bkt"], environment: environment, stdin: input)
      #expect(removed.status == 0, "\(removed)")
      #expect(try Self.jsonLines(removed.stdoutBytes).compactMap { $0["key"] as? String } == odd)
      #expect(try await Self.keys(environment) == Self.small)
    }
  }

  @Test func batchesKeepEveryKeyOnceInOrderWithinTheLimit() async {
    let keys = Gen<Character?>.element(of: Array("a/\n\0é😀")).map { $0 ?? "a" }.string(of: 0...6)
      .array(of: 0...200)
    let limits = Gen<Int>.value(in: 1...70)
    await seededCheck(input: keys, limits) { keys, limit in
      var splitter = BatchSplitter<String>(limit: limit)
      var batches: [[String]] = []
      for key in keys { if let batch = splitter.add(key) { batches.append(batch) } }
      if let last = splitter.finish() { batches.append(last) }
      #expect(splitter.finish() == nil)
      #expect(batches.allSatisfy { !$0.isEmpty && $0.count <= limit })
      #expect(batches.dropLast().allSatisfy { $0.count == limit })
      let joined = batches.flatMap { $0 }
      #expect(joined.count == keys.count)
      #expect(zip(joined, keys).allSatisfy { $0.utf8.elementsEqual($1.utf8) })
    }
  }

  /// How many of a window's batches run at once, at most.
  final class Gauge: Sendable {
    let state = Mutex((now: 0, most: 0))
  }

  @Test func windowDeliversInStartOrderWithAtMostDepthRunning() async {
    let counts = Gen<Int>.value(in: 0...40)
    let depths = Gen<Int>.value(in: 1...6)
    let yields = Gen<Int>.value(in: 0...20).array(of: 40...40)
    await seededCheck(input: counts, depths, yields) { count, depth, yields in
      let gauge = Gauge()
      let window = BatchWindow<Int>(depth: depth)
      var delivered: [Int] = []
      for index in 0..<count {
        // Batches end in an order of their own: some yield more than others.
        let spins = yields[index]
        try await window.start(
          {
            gauge.state.withLock {
              $0.now += 1
              $0.most = max($0.most, $0.now)
            }
            for _ in 0..<spins { await Task.yield() }
            gauge.state.withLock { $0.now -= 1 }
            return index
          }, deliver: { delivered.append($0) })
      }
      try await window.finish { delivered.append($0) }
      #expect(delivered == Array(0..<count))
      #expect(gauge.state.withLock { $0.most } <= depth)
    }
  }
}
