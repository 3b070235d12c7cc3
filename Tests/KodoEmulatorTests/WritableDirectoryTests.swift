import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// `--writable` directory buckets: writes land in the directory atomically, metadata in
/// `DIR/.kodo-emulator/`, and survive a restart; no link is ever followed.
@Suite struct WritableDirectoryTests {
  private func configuration(_ path: String) -> EmulatorConfiguration {
    var configuration = EmulatorConfiguration(buckets: [.directory("files", path: path)])
    configuration.writableBuckets = ["files"]
    return configuration
  }

  @Test func writesLandInTheDirectoryAndSurviveARestart() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try tree.write("old/kept.txt", Array("kept".utf8))
    try tree.write("gone.txt", Array("gone".utf8))
    try await EmulatorHarness.with(configuration(tree.path)) { emulator in
      let token = KodoWriteTests.token(emulator, "\"scope\":\"files:new/dir/a.txt\"")
      let answer = try await KodoWriteTests.form(
        emulator, token: token, key: "new/dir/a.txt", body: Array("fresh".utf8),
        fields: [("x-qn-meta-tag", "t1")], mime: "text/x-fresh")
      #expect(answer.status == 200, "\(answer.text)")
      let gone = KodoWriteTests.entry("files", "gone.txt")
      #expect(try await KodoWriteTests.rs(emulator, "/delete/\(gone)").status == 200)
      let status = URLSafeBase64.encode("text/x-kept")
      let kept = KodoWriteTests.entry("files", "old/kept.txt")
      #expect(try await KodoWriteTests.rs(emulator, "/chgm/\(kept)/mime/\(status)").status == 200)
    }
    #expect(
      try String(contentsOfFile: tree.path + "/new/dir/a.txt", encoding: .utf8) == "fresh")
    #expect(!FileManager.default.fileExists(atPath: tree.path + "/gone.txt"))
    let leftovers = try FileManager.default.contentsOfDirectory(
      atPath: tree.path + "/.kodo-emulator/tmp")
    #expect(leftovers.isEmpty)
    // A second emulator on the same directory: the metadata comes back, the state folder is
    // not an object.
    try await EmulatorHarness.with(configuration(tree.path)) { emulator in
      let page = try await emulator.get("/list?bucket=files").json()
      let keys = try #require(page["items"]?.arrayValue).compactMap { $0["key"]?.stringValue }
      #expect(keys == ["new/dir/a.txt", "old/kept.txt"])
      let stat = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "files", key: "new/dir/a.txt")
      ).json()
      #expect(stat["mimeType"]?.stringValue == "text/x-fresh")
      #expect(stat["x-qn-meta"]?["tag"]?.stringValue == "t1")
      #expect(stat["hash"]?.stringValue == QETag.hash(of: Array("fresh".utf8)))
      let keptStat = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "files", key: "old/kept.txt")
      ).json()
      #expect(keptStat["mimeType"]?.stringValue == "text/x-kept")
    }
  }

  @Test func aWriteNeverGoesThroughALinkedFolder() async throws {
    let tree = try TemporaryDirectory()
    let outside = try TemporaryDirectory()
    defer {
      tree.remove()
      outside.remove()
    }
    try tree.write("placeholder", [])
    try FileManager.default.createSymbolicLink(
      atPath: tree.path + "/link", withDestinationPath: outside.path)
    try await EmulatorHarness.with(configuration(tree.path)) { emulator in
      let token = KodoWriteTests.token(emulator, "\"scope\":\"files\"")
      let answer = try await KodoWriteTests.form(
        emulator, token: token, key: "link/escaped.txt", body: Array("x".utf8))
      #expect(answer.status == 400)
      let dotted = try await KodoWriteTests.form(
        emulator, token: token, key: "../escaped.txt", body: Array("x".utf8))
      #expect(dotted.status == 400)
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
  }

  @Test func writableNamesADirectoryBucket() async throws {
    var configuration = EmulatorConfiguration(buckets: [.memory("mem")])
    configuration.writableBuckets = ["mem"]
    await #expect(throws: EmulatorError.notAWritableBucket("mem")) {
      _ = try await EmulatorServer.start(configuration)
    }
  }
}
