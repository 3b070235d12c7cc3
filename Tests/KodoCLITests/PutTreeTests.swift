import Foundation
import KodoEmulator
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import KodoCLI

/// `put -r`: a local tree into a folder, what the walk skips and refuses, the patterns, and
/// `--skip-same` finishing an interrupted run; a multipart `put` killed and run again.
@Suite("put -r: local trees, checked by reading back; put killed with SIGKILL and rerun")
struct PutTreeTests {
  static let wires: [EmulatorProtocol] = [.kodo, .oss]

  /// A tree under the bench's directory: `a.txt`, `sub/b.txt`, `sub/deeper/c.bin`.
  static func tree(_ bench: PutBench, _ name: String = "tree") throws -> String {
    let root = bench.home + "/" + name
    try FileManager.default.createDirectory(
      atPath: root + "/sub/deeper", withIntermediateDirectories: true)
    _ = try bench.file(name + "/a.txt", Array("alpha".utf8))
    _ = try bench.file(name + "/sub/b.txt", Array("bravo".utf8))
    _ = try bench.file(name + "/sub/deeper/c.bin", PutBench.bytes(3000, seed: 9))
    return root
  }

  /// Makes `b\xFF.t` in `root`: a name that is not UTF-8, made with the raw bytes.
  static func fileWithANameThatIsNotUTF8(in root: String) throws {
    let bad = Array((root + "/").utf8) + [0x62, 0xFF, 0x2E, 0x74] + [0]
    let descriptor = bad.withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) }
    }
    try #require(descriptor >= 0)
    close(descriptor)
  }

  static func keys(_ bench: PutBench, _ prefix: String) async throws -> [String] {
    let listed = try await bench.run(["ls", "-r", "--json", "mem/" + prefix])
    #expect(listed.status == 0, "\(listed)")
    return listed.stdout.split(separator: "\n").compactMap { line in
      let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      return object?["key"] as? String
    }.sorted()
  }

  @Test(arguments: wires)
  func aTreeGoesUnderTheFolderLinksAndSpecialFilesSkippedBadNamesFailed(
    _ wire: EmulatorProtocol
  ) async throws {
    try await PutBench.with(wire) { bench in
      let root = try Self.tree(bench)
      #expect(symlink(root + "/a.txt", root + "/link.txt") == 0)
      #expect(symlink(root + "/sub", root + "/sublink") == 0)
      #expect(mkfifo(root + "/sub/fifo", 0o600) == 0)
      try Self.fileWithANameThatIsNotUTF8(in: root)

      let result = try await bench.run(["put", "-r", root, "mem/up"])
      #expect(result.status == 65, "\(result)")
      #expect(result.stderr.contains("symbolic link"), "\(result)")
      #expect(result.stderr.contains("not a regular file"), "\(result)")
      #expect(result.stderr.contains("\\xFF"), "\(result)")
      #expect(result.stderr.contains("3 uploaded, 3 skipped, 1 failed"), "\(result)")
      #expect(
        try await Self.keys(bench, "up/")
          == ["up/a.txt", "up/sub/b.txt", "up/sub/deeper/c.bin"])
      #expect(try await bench.content("up/sub/b.txt") == Array("bravo".utf8))
      #expect(try await bench.content("up/sub/deeper/c.bin") == PutBench.bytes(3000, seed: 9))

      // Links followed: the linked file and folder too; a second run refuses what exists.
      let followed = try await bench.run(
        ["put", "-r", "--follow-symlinks", "--exclude", "**/fifo", root, "mem/follow/"])
      #expect(followed.status == 65, "\(followed)")
      #expect(
        try await Self.keys(bench, "follow/")
          == [
            "follow/a.txt", "follow/link.txt", "follow/sub/b.txt", "follow/sub/deeper/c.bin",
            "follow/sublink/b.txt", "follow/sublink/deeper/c.bin",
          ])
    }
  }

  @Test(arguments: wires)
  func includeAndExcludeMatchThePathBelowTheRoot(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = try Self.tree(bench)
      let result = try await bench.run(
        ["put", "-r", "--include", "**/*.txt", "--exclude", "sub/*", "--json", root, "mem"])
      #expect(result.status == 0, "\(result)")
      #expect(try await Self.keys(bench, "") == ["a.txt"])
      let line = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
      #expect(line?["type"] as? String == "uploaded")
      #expect(line?["key"] as? String == "a.txt")
    }
  }

  @Test(arguments: wires)
  func skipSameKeepsEqualObjectsAndRefusesADifferentOne(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let root = try Self.tree(bench)
      // An interrupted run: one file of three is there.
      let first = try await bench.run(["put", root + "/a.txt", "mem/t/"])
      #expect(first.status == 0, "\(first)")
      let rest = try await bench.run(["put", "-r", "--skip-same", root, "mem/t"])
      #expect(rest.status == 0, "\(rest)")
      #expect(rest.stderr.contains("2 uploaded, 1 skipped, 0 failed"), "\(rest)")
      let again = try await bench.run(["put", "-r", "--skip-same", root, "mem/t/"])
      #expect(again.stderr.contains("0 uploaded, 3 skipped, 0 failed"), "\(again)")

      // Same size, other bytes: refused, the object kept; --force replaces it.
      _ = try bench.file("tree/sub/b.txt", Array("BRAVO".utf8))
      let differs = try await bench.run(["put", "-r", "--skip-same", root, "mem/t/"])
      #expect(differs.status == 73, "\(differs)")
      #expect(differs.stderr.contains("differs"), "\(differs)")
      #expect(try await bench.content("t/sub/b.txt") == Array("bravo".utf8))
      let forced = try await bench.run(["put", "-r", "--force", root, "mem/t/"])
      #expect(forced.status == 0, "\(forced)")
      #expect(try await bench.content("t/sub/b.txt") == Array("BRAVO".utf8))
    }
  }

  @Test(arguments: wires)
  func aMultipartPutKilledTwiceFinishesWithoutResendingParts(_ wire: EmulatorProtocol)
    async throws
  {
    try await PutBench.with(wire, latencyMilliseconds: 200) { bench in
      let bytes = PutBench.bytes(PutResumeTests.size, seed: 21)
      let path = try bench.file("big.bin", bytes)
      let arguments = ["put"] + PutResumeTests.small + [path, "mem/big.bin"]
      let runner = CLIRunner("kodo", environment: bench.environment)
      // Killed at two points: after two parts, then (resumed) after five.
      for point in [2, 5] {
        let running = try runner.start(arguments)
        let directory = bench.checkpointDirectory
        await running.send(SIGKILL, when: { PutBench.partsSaved(in: directory) >= point })
        let killed = await running.wait()
        #expect(killed.status == 128 + SIGKILL, "\(killed)")
      }
      let done = bench.partsSaved()
      try #require(done >= 5 && done <= PutResumeTests.parts)
      bench.emulator.server.resetStats()
      let rerun = try await bench.run(arguments)
      #expect(rerun.status == 0, "\(rerun)")
      // The parts listed, the rest sent, the completion: no part done is sent again.
      #expect(bench.emulator.server.stats.upload == 1 + (PutResumeTests.parts - done) + 1)
      #expect(try await bench.content("big.bin") == bytes)
      #expect(bench.checkpoints().isEmpty)
    }
  }

  /// Any tree of names made of any bytes (but `/` and NUL): every file whose path is UTF-8 is
  /// met once, at its path; no other file is; a name that is not UTF-8 is a failure.
  @Test func theWalkMeetsEveryUTF8PathOnceAndFailsTheOthers() async throws {
    let alphabet: [UInt8] = [0x61, 0x62, 0x2E, 0x20, 0x5C, 0x0A, 0xC3, 0xA9, 0xFF]
    let name = Gen<UInt8?>.element(of: alphabet).map { $0 ?? 0x61 }.array(of: 1...3)
    let paths = name.array(of: 1...3).array(of: 1...12)
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-walk-\(UUID())")
      .path
    defer { try? FileManager.default.removeItem(atPath: base) }
    var round = 0
    await seededCheck(count: 60, input: paths) { paths in
      round += 1
      let root = base + "/\(round)"
      try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      var files = Set<[[UInt8]]>()
      for path in paths where !path.contains([0x2E]) && !path.contains([0x2E, 0x2E]) {
        if Self.make(root, path) { files.insert(path) }
      }
      var met: [String] = []
      var failures = 0
      for item in LocalTree(root: root, followLinks: false) {
        switch item {
        case .file(let file):
          #expect(file.path == root + "/" + file.relative)
          #expect(file.key == file.relative, "no key prefix")
          #expect(file.size == 1, "each file was made with one byte")
          met.append(file.relative)
        case .failed: failures += 1
        case .skipped(let text): Issue.record("skipped \(text)")
        }
      }
      let expected = files.compactMap { path -> String? in
        let parts = path.compactMap { String(validating: $0, as: UTF8.self) }
        return parts.count == path.count ? parts.joined(separator: "/") : nil
      }
      #expect(met.sorted() == expected.sorted())
      #expect(Set(met).count == met.count)
      // Each folder's names in byte order, depth first: the order of the paths' components.
      let inOrder = files.filter { path in
        path.allSatisfy { String(validating: $0, as: UTF8.self) != nil }
      }.sorted { $0.lexicographicallyPrecedes($1) { $0.lexicographicallyPrecedes($1) } }
      #expect(
        met
          == inOrder.map { path in
            path.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
          })
      #expect((failures > 0) == (expected.count < files.count))
      // With a key prefix: the same files, each key the prefix and the relative path, and a
      // job's source the file's path.
      let prefix = "p/\u{E9}/"
      var prefixed: [String] = []
      for case .file(let file) in LocalTree(root: root + "/", followLinks: false, keyPrefix: prefix)
      {
        #expect(file.key == prefix + file.relative)
        #expect(file.path == root + "/" + file.relative)
        #expect(PutJob(file: file, bucket: "b").source == file.path)
        prefixed.append(file.relative)
      }
      #expect(prefixed == met)
    }
  }

  /// Makes the file `path` (its folders too) under `root`; `false` when a name on the way is
  /// already a file or the file already a folder.
  static func make(_ root: String, _ path: [[UInt8]]) -> Bool {
    var current = Array(root.utf8)
    for (index, component) in path.enumerated() {
      current += [0x2F] + component
      let text = current + [0]
      let made = text.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { pointer -> Bool in
          guard let raw = pointer.baseAddress else { return false }
          var status = stat()
          let exists = lstat(raw, &status) == 0
          if index == path.count - 1 {
            if exists { return status.st_mode & S_IFMT == S_IFREG }
            let descriptor = open(raw, O_CREAT | O_WRONLY, 0o600)
            guard descriptor >= 0 else { return false }
            _ = write(descriptor, raw, 1)
            close(descriptor)
            return true
          }
          if exists { return status.st_mode & S_IFMT == S_IFDIR }
          return mkdir(raw, 0o700) == 0
        }
      }
      guard made else { return false }
    }
    return true
  }
}
