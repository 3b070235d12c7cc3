import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// An in-process emulator with an empty writable bucket `mem`, speaking Kodo or OSS, and `kodo`
/// runs configured for it through the environment, with a state directory of their own.
struct PutBench {
  let emulator: EmulatorHarness
  let wire: EmulatorProtocol
  let home: String

  static func with(
    _ wire: EmulatorProtocol, latencyMilliseconds: Int = 0, failRate: Double = 0,
    seed: UInt64 = 0, _ body: (PutBench) async throws -> Void
  ) async throws {
    var configuration = EmulatorConfiguration(
      credentials: Credentials(accessKey: "ak-put", secretKey: "sk-put"), buckets: [.memory("mem")],
      latencyMilliseconds: latencyMilliseconds, failRate: failRate, seed: seed)
    configuration.wireProtocol = wire
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-put-\(UUID())")
      .path
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: home) }
    try await EmulatorHarness.with(configuration) { emulator in
      try await body(PutBench(emulator: emulator, wire: wire, home: home))
    }
  }

  var environment: [String: String] {
    var variables = ["XDG_STATE_HOME": home + "/state"]
    switch wire {
    case .oss:
      variables["KODO_PROVIDER"] = "oss"
      variables["OSS_ENDPOINT"] = emulator.server.baseURL
      variables["OSS_REGION"] = emulator.server.region
      variables["OSS_ACCESS_KEY_ID"] = "ak-put"
      variables["OSS_ACCESS_KEY_SECRET"] = "sk-put"
    default:
      variables["KODO_ENDPOINT"] = emulator.server.baseURL
      variables["QINIU_ACCESS_KEY"] = "ak-put"
      variables["QINIU_SECRET_KEY"] = "sk-put"
    }
    return variables
  }

  var checkpointDirectory: String { home + "/state/kodo/uploads" }

  func run(_ arguments: [String], stdin: [UInt8] = []) async throws -> CLIRunner.Result {
    try await InProcess.run(arguments, environment: environment, stdin: stdin)
  }

  /// Writes `bytes` to a new file named `name` in the bench's directory.
  func file(_ name: String, _ bytes: [UInt8]) throws -> String {
    let path = home + "/" + name
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The object's bytes through `kodo cat`.
  func content(_ key: String) async throws -> [UInt8] {
    let result = try await run(["cat", "mem", key])
    #expect(result.status == 0, "\(result)")
    return result.stdoutBytes
  }

  /// The saved checkpoints (their JSON).
  func checkpoints() -> [[String: Any]] { Self.checkpoints(in: checkpointDirectory) }

  /// The saved checkpoints in `directory` (their JSON: the record on the first line, with the
  /// parts of the lines after it among its parts); a static, so that a thread of its own can
  /// read them.
  static func checkpoints(in directory: String) -> [[String: Any]] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.compactMap { name in
      guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
        return nil
      }
      var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      if lines.count > 1 { lines.removeLast() }
      guard let first = lines.first,
        var record = (try? JSONSerialization.jsonObject(with: first)) as? [String: Any],
        var checkpoint = record["checkpoint"] as? [String: Any]
      else { return nil }
      var parts: [Int: Any] = [:]
      let appended = lines.dropFirst().compactMap {
        (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any]
      }
      for part in ((checkpoint["parts"] as? [[String: Any]]) ?? []) + appended {
        if let number = part["number"] as? Int { parts[number] = part }
      }
      checkpoint["parts"] = parts.keys.sorted().compactMap { parts[$0] }
      record["checkpoint"] = checkpoint
      return record
    }
  }

  /// The parts of the one saved checkpoint.
  func partsSaved() -> Int { Self.partsSaved(in: checkpointDirectory) }

  /// The parts of the one checkpoint saved in `directory`.
  static func partsSaved(in directory: String) -> Int {
    let checkpoint = checkpoints(in: directory).first?["checkpoint"] as? [String: Any]
    return (checkpoint?["parts"] as? [Any])?.count ?? 0
  }

  /// `count` bytes that differ with `seed`, written through a buffer pointer (a generic `map`
  /// over millions of elements takes seconds of the cooperative pool in a debug build).
  static func bytes(_ count: Int, seed: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      for index in 0..<count {
        buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9 &+ seed)
      }
      initialized = count
    }
  }
}

@Suite("put: uploads on Kodo and OSS, checked by reading back")
struct PutTests {
  static let wires: [EmulatorProtocol] = [.kodo, .oss]

  @Test(arguments: wires)
  func smallFilesIntoAFolderAndAnExactKey(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let a = try bench.file("a.txt", Array("alpha\n".utf8))
      let b = try bench.file("b.json", Array("{}".utf8))
      let folder = try await bench.run(["put", a, b, "mem/dir/"])
      #expect(folder.status == 0, "\(folder)")
      #expect(folder.stderr.contains("2 uploaded, 0 skipped, 0 failed"), "\(folder)")
      #expect(try await bench.content("dir/a.txt") == Array("alpha\n".utf8))
      #expect(try await bench.content("dir/b.json") == Array("{}".utf8))
      let stat = try await bench.run(["stat", "--json", "mem", "dir/b.json"])
      #expect(stat.stdout.contains(#""mimeType":"application/json""#), "\(stat)")
      let exact = try await bench.run([
        "put", "--meta", "owner=Me", "--mime", "text/x-test", a, "mem/exact name",
      ])
      #expect(exact.status == 0, "\(exact)")
      #expect(try await bench.content("exact name") == Array("alpha\n".utf8))
      let details = try await bench.run(["stat", "--json", "mem", "exact name"])
      #expect(details.stdout.contains(#""mimeType":"text/x-test""#), "\(details)")
      #expect(details.stdout.contains("Me"), "\(details)")
      let bare = try await bench.run(["put", "--key", "k/by key", a, "mem"])
      #expect(bare.status == 0, "\(bare)")
      #expect(try await bench.content("k/by key") == Array("alpha\n".utf8))
      let archived = try await bench.run(["put", "--storage-class", "ia", a, "mem/ia.txt"])
      #expect(archived.status == 0, "\(archived)")
      let ia = try await bench.run(["stat", "--json", "mem", "ia.txt"])
      #expect(ia.stdout.contains(#""storageClass":"ia""#), "\(ia)")
      let bucketOnly = try await bench.run(["put", a, "mem"])
      #expect(bucketOnly.status == 0, "\(bucketOnly)")
      #expect(try await bench.content("a.txt") == Array("alpha\n".utf8))
    }
  }

  @Test(arguments: wires)
  func overwriteIsRefusedUnlessForcedOrSkipped(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let first = try bench.file("one", Array("first".utf8))
      let second = try bench.file("two", Array("second".utf8))
      #expect(try await bench.run(["put", first, "mem/k"]).status == 0)
      let seeded = try await bench.run(["put", second, first, "mem/x/"])
      #expect(seeded.status == 0, "\(seeded)")
      let again = try await bench.run(["put", second, "mem/k"])
      #expect(again.status == 73, "\(again)")
      #expect(again.stderr.contains("--force"), "\(again)")
      #expect(try await bench.content("k") == Array("first".utf8))
      // One refused file does not stop the others; the exit status says it at the end. (The
      // same bytes again are no replacement: the services accept them.)
      _ = try bench.file("one", Array("first, changed".utf8))
      _ = try bench.file("two", Array("second, changed".utf8))
      let mixed = try await bench.run(["put", second, first, "mem/x/"])
      #expect(mixed.status == 73, "\(mixed)")
      #expect(mixed.stderr.contains("0 uploaded, 0 skipped, 2 failed"), "\(mixed)")
      let skipped = try await bench.run(["put", "--skip-existing", "--json", second, "mem/k"])
      #expect(skipped.status == 0, "\(skipped)")
      #expect(skipped.stdout.contains(#"{"type":"skipped","key":"k","size":15"#), "\(skipped)")
      #expect(try await bench.content("k") == Array("first".utf8))
      let forced = try await bench.run(["put", "--force", second, "mem/k"])
      #expect(forced.status == 0, "\(forced)")
      #expect(try await bench.content("k") == Array("second, changed".utf8))
    }
  }

  @Test(arguments: wires)
  func stdinNeedsAnExactKey(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let bytes = PutBench.bytes(3 << 20, seed: 5)
      let small = try await bench.run(["put", "-", "mem/in/small"], stdin: Array("hi".utf8))
      #expect(small.status == 0, "\(small)")
      #expect(try await bench.content("in/small") == Array("hi".utf8))
      // Above the threshold, stdin is spooled and sent in parts.
      let large = try await bench.run(
        ["put", "--multipart-threshold", "1M", "--part-size", "1M", "-", "mem/in/large"],
        stdin: bytes)
      #expect(large.status == 0, "\(large)")
      #expect(try await bench.content("in/large") == bytes)
      let folder = try await bench.run(["put", "-", "mem/in/"], stdin: Array("x".utf8))
      #expect(folder.status == 64, "\(folder)")
    }
  }

  @Test(arguments: wires)
  func jsonLinesNameTheServicesDigests(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let small = try bench.file("s.bin", Array("json".utf8))
      let big = try bench.file("big.bin", PutBench.bytes(5 << 20 + 17, seed: 1))
      let result = try await bench.run([
        "put", "--json", "--multipart-threshold", "1M", "--part-size", "2M", small, big, "mem/j/",
      ])
      #expect(result.status == 0, "\(result)")
      let lines = result.stdout.split(separator: "\n")
      #expect(lines.count == 2, "\(result)")
      for line in lines {
        #expect(line.hasPrefix(#"{"type":"uploaded","key":"j/"#), "\(line)")
        if wire == .oss {
          #expect(line.contains(#""etag":""#) && line.contains(#""crc64":""#), "\(line)")
        } else {
          #expect(line.contains(#""hash":""#), "\(line)")
        }
      }
      #expect(try await bench.content("j/big.bin") == PutBench.bytes(5 << 20 + 17, seed: 1))
      // The service's digest of the object is the one the line gave.
      let stat = try await bench.run(["stat", "--json", "mem", "j/big.bin"])
      let line = try #require(
        try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
      let field = wire == .oss ? "crc64" : "hash"
      let digest = try #require(line[field] as? String)
      #expect(stat.stdout.contains(#""\#(field)":"\#(digest)""#), "\(stat)")
    }
  }

  @Test(arguments: wires)
  func multipartAtDefaultPartSize(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let bytes = PutBench.bytes(9 << 20 + 3, seed: 9)
      let path = try bench.file("nine.bin", bytes)
      let result = try await bench.run(["put", path, "mem/nine.bin"])
      #expect(result.status == 0, "\(result)")
      #expect(try await bench.content("nine.bin") == bytes)
      #expect(bench.checkpoints().isEmpty, "a finished upload leaves no checkpoint")
      // Over an existing object: refused at completion, reported as 73, nothing left behind.
      _ = try bench.file("nine.bin", PutBench.bytes(9 << 20 + 3, seed: 10))
      let again = try await bench.run(["put", path, "mem/nine.bin"])
      #expect(again.status == 73, "\(again)")
      #expect(bench.checkpoints().isEmpty)
    }
  }

  @Test(arguments: wires)
  func twoInsertOnlyPutsOfOneKeyExactlyOneWins(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let left = try bench.file("left", Array("left".utf8))
      let right = try bench.file("right", Array("right".utf8))
      async let first = bench.run(["put", left, "mem/race"])
      async let second = bench.run(["put", right, "mem/race"])
      let statuses = [try await first.status, try await second.status].sorted()
      #expect(statuses == [0, 73])
      let stored = try await bench.content("race")
      #expect(stored == Array("left".utf8) || stored == Array("right".utf8))
    }
  }

  /// The service's digest of the object after an upload is checked against the file's: a
  /// wrong one (the emulator's `wrong-digest` fault) is exit 76, for one request and in parts.
  @Test(arguments: wires)
  func aWrongDigestFromTheServiceIsExit76(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let small = try bench.file("small.txt", Array("checked".utf8))
      let big = try bench.file("big.bin", PutBench.bytes(3 << 20 + 5, seed: 8))
      for (path, options) in [(small, [String]()), (big, ["--multipart-threshold", "1M"])] {
        // Every upload request: the part answers carry no object digest; the last does.
        bench.emulator.server.scheduleFault(
          EmulatorFault(endpoint: .upload, mode: .wrongDigest, count: 100))
        let result = try await bench.run(["put"] + options + [path, "mem/"])
        _ = bench.emulator.server.clearFaults()
        #expect(result.status == 76, "\(options) \(result)")
        #expect(result.stderr.contains("kodo: error:"), "\(result)")
      }
    }
  }
}
