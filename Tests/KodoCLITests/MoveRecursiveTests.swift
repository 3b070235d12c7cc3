import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// `kodo mv -r` and `kodo cp -r` against in-process emulators speaking Kodo and OSS, every
/// result checked by listing both places and reading the bytes back.
@Suite struct MoveRecursiveTests {
  /// An emulator speaking `wire` with bucket `bkt` holding `keys` (each object's bytes are its
  /// key's) and an empty bucket `two`, and kodo's environment for it.
  static func with(
    _ wire: EmulatorProtocol, keys: [String], failRate: Double = 0, seed: UInt64 = 7,
    _ body: (EmulatorHarness, [String: String]) async throws -> Void
  ) async throws {
    var configuration = EmulatorConfiguration(
      credentials: RemoveTests.credentials,
      buckets: [
        .objects("bkt", keys.map { EmulatorObject(key: $0, body: Array($0.utf8)) }),
        EmulatorBucket(name: "two", source: .memory),
      ], failRate: failRate, seed: seed)
    configuration.wireProtocol = wire
    try await EmulatorHarness.with(configuration) { emulator in
      try await body(emulator, environment(wire, emulator))
    }
  }

  static func environment(_ wire: EmulatorProtocol, _ emulator: EmulatorHarness) -> [String: String]
  {
    wire == .oss
      ? [
        "KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.server.baseURL,
        "OSS_REGION": emulator.server.region,
        "OSS_ACCESS_KEY_ID": RemoveTests.credentials.accessKey,
        "OSS_ACCESS_KEY_SECRET": "rm-secret-key",
      ]
      : [
        "KODO_ENDPOINT": emulator.server.baseURL,
        "QINIU_ACCESS_KEY": RemoveTests.credentials.accessKey,
        "QINIU_SECRET_KEY": "rm-secret-key",
      ]
  }

  /// The keys under `place` (`bucket` or `bucket/prefix`), listed back.
  static func keys(_ place: String, _ environment: [String: String]) async throws -> [String] {
    let listed = try await InProcess.run(["ls", "-r", "--json", place], environment: environment)
    #expect(listed.status == 0, "\(listed)")
    return try RemoveTests.jsonLines(listed.stdoutBytes).compactMap { $0["key"] as? String }
  }

  /// Each key's bytes, downloaded with `kodo get -r` of `place` into a new directory.
  static func contents(_ place: String, _ environment: [String: String]) async throws
    -> [String: String]
  {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-mvr-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let got = try await InProcess.run(
      ["get", "-r", place, directory.path + "/"], environment: environment)
    // A folder marker (`p/`) has no file of its own: reported and skipped (65).
    #expect(got.status == 0 || got.status == 65, "\(got)")
    var found: [String: String] = [:]
    let root = directory.path + "/"
    guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return [:] }
    while let relative = walker.nextObject() as? String {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: root + relative, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { continue }
      found[relative] = try String(contentsOfFile: root + relative, encoding: .utf8)
    }
    return found
  }

  static func numbered(_ prefix: String, _ count: Int) -> [String] {
    (0..<count).map { prefix + String(repeating: "0", count: 4 - "\($0)".count) + "\($0)" }
  }

  @Test(arguments: RemoveTests.wires)
  func moveAndCopyAFolderInSeveralBatchesLeavingTheLookAlikeSibling(_ wire: EmulatorProtocol)
    async throws
  {
    let inside = Self.numbered("a/", 2_345) + ["a/", "a/sub/deep.txt"]
    let kept = ["a", "a-other/x.txt", "ab", "z.txt"]
    try await Self.with(wire, keys: inside + kept) { _, environment in
      let copied = try await InProcess.run(
        ["cp", "-r", "--yes", "--json", "bkt/a", "bkt/c/"], environment: environment)
      #expect(copied.status == 0, "\(copied)")
      let copiedLines = try RemoveTests.jsonLines(copied.stdoutBytes)
      #expect(copiedLines.count == inside.count)
      #expect(copiedLines.allSatisfy { $0["type"] as? String == "copied" })
      #expect(copiedLines.first?["from"] as? String == "bkt/a/")
      #expect(copiedLines.first?["to"] as? String == "bkt/c/")
      #expect(copied.stderr.contains("copied 2347 of 2347 objects"), "\(copied)")
      let copies = inside.map { "c/" + $0.dropFirst(2) }
      #expect(try await Self.keys("bkt", environment) == (inside + kept + copies).sorted())

      let moved = try await InProcess.run(
        ["mv", "-r", "--yes", "--json", "bkt/a", "bkt/m"], environment: environment)
      #expect(moved.status == 0, "\(moved)")
      let movedLines = try RemoveTests.jsonLines(moved.stdoutBytes)
      #expect(movedLines.count == inside.count)
      #expect(movedLines.allSatisfy { $0["type"] as? String == "moved" })
      #expect(movedLines.last?["to"] as? String == "bkt/m/sub/deep.txt")
      let destinations = inside.map { "m/" + $0.dropFirst(2) }
      #expect(try await Self.keys("bkt", environment) == (kept + copies + destinations).sorted())
      let bytes = try await Self.contents("bkt/m/", environment)
      #expect(bytes.count == inside.count - 1, "the folder marker is no file")
      #expect(bytes.allSatisfy { $0.value == "a/" + $0.key })

      let again = try await InProcess.run(
        ["mv", "-r", "--yes", "bkt/a/", "bkt/m/"], environment: environment)
      #expect(again.status == 66, "\(again)")
      let inside2 = try await InProcess.run(
        ["mv", "-r", "--yes", "bkt/m", "bkt/m/deeper"], environment: environment)
      #expect(inside2.status == 64, "\(inside2)")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func existingDestinationsAreRefusedOneByOneUnlessForced(_ wire: EmulatorProtocol) async throws {
    let keys = ["d/1", "d/2", "d/3", "e/2"]
    try await Self.with(wire, keys: keys) { _, environment in
      // e/1 already holds d/1's bytes (as after an interrupted move): it counts as moved. e/2
      // holds other bytes than d/2: refused, the others go on.
      let copy = try await InProcess.run(["cp", "bkt/d/1", "bkt/e/1"], environment: environment)
      #expect(copy.status == 0, "\(copy)")
      let moved = try await InProcess.run(
        ["mv", "-r", "--yes", "--json", "bkt/d", "bkt/e"], environment: environment)
      #expect(moved.status == 73, "\(moved)")
      #expect(moved.stderr.contains("moved 2 of 3 objects"), "\(moved)")
      #expect(moved.stderr.contains("1 already at the destination"), "\(moved)")
      let lines = try RemoveTests.jsonLines(moved.stdoutBytes).filter {
        $0["type"] as? String == "moved"
      }
      #expect(lines.compactMap { $0["to"] as? String } == ["bkt/e/1", "bkt/e/3"])
      #expect(try await Self.keys("bkt", environment) == ["d/2", "e/1", "e/2", "e/3"])
      #expect(try await MoveCopyTests.content("e/2", environment) == "e/2")
      let copied = try await InProcess.run(
        ["cp", "-r", "--yes", "bkt/e", "bkt/d"], environment: environment)
      #expect(copied.status == 73, "\(copied)")
      #expect(try await MoveCopyTests.content("d/2", environment) == "d/2")
      let forced = try await InProcess.run(
        ["mv", "-r", "--yes", "--force", "bkt/d", "bkt/e"], environment: environment)
      #expect(forced.status == 0, "\(forced)")
      #expect(try await Self.keys("bkt", environment) == ["e/1", "e/2", "e/3"])
      #expect(try await MoveCopyTests.content("e/2", environment) == "d/2")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func dryRunAndNoTerminalChangeNothing(_ wire: EmulatorProtocol) async throws {
    let keys = ["x/1", "x/\u{1B}[31m", "x-other/2"]
    try await Self.with(wire, keys: keys) { _, environment in
      let dry = try await InProcess.run(
        ["mv", "-r", "--dry-run", "bkt/x", "two/y/"], environment: environment)
      #expect(dry.status == 0, "\(dry)")
      #expect(dry.stdout.contains("would move bkt/x/1 to two/y/1\n"), "\(dry)")
      #expect(!dry.stdout.contains("\u{1B}"), "keys are escaped: \(dry)")
      let dryCopy = try await InProcess.run(
        ["cp", "-r", "--dry-run", "--json", "bkt/x", "two"], environment: environment)
      #expect(dryCopy.status == 0, "\(dryCopy)")
      #expect(
        try RemoveTests.jsonLines(dryCopy.stdoutBytes).map { $0["type"] as? String }
          == ["would-copy", "would-copy"])
      for verb in ["mv", "cp"] {
        let refused = try await InProcess.run(
          [verb, "-r", "bkt/x", "two/y"], environment: environment)
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr.contains("add --yes"), "\(refused)")
      }
      #expect(try await Self.keys("bkt", environment) == keys.sorted())
      #expect(try await Self.keys("two", environment) == [])
      let empty = try await InProcess.run(
        ["mv", "-r", "--yes", "bkt/nothing", "two/y"], environment: environment)
      #expect(empty.status == 66, "\(empty)")
    }
  }

  @Test(arguments: RemoveTests.wires)
  func acrossBucketsAndConfirmedOnATerminal(_ wire: EmulatorProtocol) async throws {
    let keys = ["p/1", "p/q/2", "p-other/3"]
    try await Self.with(wire, keys: keys) { _, environment in
      let declined = try await RemoveConfirmTests.runOnTerminal(
        ["mv", "-r", "bkt/p", "two/r/"], typed: "n\n", environment: environment)
      #expect(declined.status == 0, "\(declined)")
      #expect(declined.terminal.contains("move 2 objects under"), "\(declined)")
      #expect(declined.terminal.contains("nothing moved"), "\(declined)")
      #expect(try await Self.keys("two", environment) == [])
      let agreed = try await RemoveConfirmTests.runOnTerminal(
        ["mv", "-r", "bkt/p", "two/r/"], typed: "y\n", environment: environment)
      #expect(agreed.status == 0, "\(agreed)")
      #expect(try await Self.keys("bkt", environment) == ["p-other/3"])
      #expect(try await Self.contents("two", environment) == ["r/1": "p/1", "r/q/2": "p/q/2"])
      let back = try await InProcess.run(
        ["cp", "-r", "--yes", "two", "bkt/back"], environment: environment)
      #expect(back.status == 0, "\(back)")
      #expect(try await Self.keys("bkt/back/", environment) == ["back/r/1", "back/r/q/2"])
      #expect(try await Self.keys("two", environment) == ["r/1", "r/q/2"])
    }
  }

  @Test(arguments: RemoveTests.wires)
  func faultsGiveExactResultsAndARerunFinishes(_ wire: EmulatorProtocol) async throws {
    // On Kodo three `/batch` requests (1000, 1000 and 345 moves, two at a time), the second to
    // arrive fails for sure (a failed batch is never repeated); on OSS, copies and stats fail and are repeated (a repeated copy finds its
    // own earlier copy and counts it).
    let keys = Self.numbered("f/", wire == .kodo ? 2_345 : 300)
    try await Self.with(wire, keys: keys, failRate: 0.15) { emulator, environment in
      if wire == .kodo {
        emulator.server.scheduleFault(
          EmulatorFault(endpoint: .write, mode: .skewedDate(seconds: 0), count: 1))
        emulator.server.scheduleFault(EmulatorFault(endpoint: .write, mode: .status(503)))
      }
      let first = try await InProcess.run(
        ["mv", "-r", "--yes", "--json", "bkt/f", "two/g"], environment: environment)
      #expect(emulator.server.stats.faults > 0)
      let reported = try RemoveTests.jsonLines(first.stdoutBytes).filter {
        $0["type"] as? String == "moved"
      }.compactMap { $0["from"] as? String }
      let source = Set(try await Self.keys("bkt", environment))
      let destination = Set(try await Self.keys("two", environment))
      // Every object reported moved is at its destination and gone from the source; every other
      // one is still at its source; none is missing from both.
      for key in keys {
        let target = "g/" + key.dropFirst(2)
        if reported.contains("bkt/" + key) {
          #expect(destination.contains(target) && !source.contains(key), "\(key)")
        } else {
          #expect(source.contains(key), "\(key) was not reported moved: \(first)")
        }
      }
      if wire == .kodo {
        #expect(first.status != 0, "a batch failed: \(first)")
        // Each batch is reported whole or not at all; the first to arrive passes.
        #expect([345, 1_000, 1_345, 2_000].contains(reported.count), "\(first)")
      }
      var attempts = 0
      var last = first
      while last.status != 0 && attempts < 10 {
        attempts += 1
        last = try await InProcess.run(
          ["mv", "-r", "--yes", "bkt/f", "two/g"], environment: environment)
        #expect([0, 66].contains(last.status) || last.stderr.contains("kodo: error"), "\(last)")
        if last.status == 66 { break }
      }
      #expect(try await Self.keys("bkt", environment) == [])
      let bytes = try await Self.contents("two", environment)
      #expect(bytes.count == keys.count)
      #expect(bytes.allSatisfy { "g/" + $0.value.dropFirst(2) == $0.key })
    }
  }

  @Test(arguments: RemoveTests.wires)
  func copyUnderFaultsChangesNoSource(_ wire: EmulatorProtocol) async throws {
    // On Kodo the first run's only `/batch` fails.
    let keys = Self.numbered("f/", 300)
    let (rate, seed): (Double, UInt64) = wire == .kodo ? (0.3, 5) : (0.15, 7)
    try await Self.with(wire, keys: keys, failRate: rate, seed: seed) { emulator, environment in
      var attempts = 0
      var status: Int32 = -1
      while status != 0 && attempts < 10 {
        attempts += 1
        let run = try await InProcess.run(
          ["cp", "-r", "--yes", "--json", "bkt/f", "two/g"], environment: environment)
        status = run.status
        if attempts == 1 && wire == .kodo { #expect(status != 0, "the batch failed: \(run)") }
        // What was reported copied is there (with what earlier runs copied), the rest is not,
        // and the source is untouched.
        let reported = try RemoveTests.jsonLines(run.stdoutBytes).compactMap {
          $0["to"] as? String
        }
        let destination = Set(try await Self.keys("two", environment))
        #expect(reported.allSatisfy { destination.contains(String($0.dropFirst(4))) }, "\(run)")
        if attempts == 1 {
          #expect(destination == Set(reported.map { String($0.dropFirst(4)) }), "\(run)")
        }
        #expect(try await Self.keys("bkt", environment) == keys)
      }
      #expect(status == 0)
      #expect(emulator.server.stats.faults > 0)
      let bytes = try await Self.contents("two", environment)
      #expect(bytes.count == keys.count)
      #expect(bytes.allSatisfy { "g/" + $0.value.dropFirst(2) == $0.key })
    }
  }
}
