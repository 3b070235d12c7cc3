import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

@Suite struct DirectoryBucketTests {
  /// A tree with nested folders, awkward names, an empty file, a symlink out of the tree and a
  /// symlinked folder (neither followed).
  private func makeTree() throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    try directory.write("2024/summer trip/beach day.txt", Array("sun\n".utf8))
    try directory.write("2024/summer trip/photo.JPG", [0xFF, 0xD8, 0xFF])
    try directory.write("中文/文件.txt", Array("你好\n".utf8))
    try directory.write("emoji 😀/a+b%41.json", Array("{}".utf8))
    try directory.write("empty", [])
    try directory.write("notes.md", Array("# notes\n".utf8))
    let outside = try TemporaryDirectory()
    try outside.write("secret.txt", Array("outside".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: directory.path + "/link.txt", withDestinationPath: outside.path + "/secret.txt")
    try FileManager.default.createSymbolicLink(
      atPath: directory.path + "/linked-dir", withDestinationPath: outside.path)
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000.5)],
      ofItemAtPath: directory.path + "/notes.md")
    return directory
  }

  @Test func aDirectoryIsServedWithKodoMetadata() async throws {
    let tree = try makeTree()
    defer { tree.remove() }
    let configuration = EmulatorConfiguration(buckets: [.directory("files", path: tree.path)])
    try await EmulatorHarness.with(configuration) { emulator in
      let page = try await emulator.get("/list?bucket=files").json()
      let items = try #require(page["items"]?.arrayValue)
      #expect(
        items.compactMap { $0["key"]?.stringValue } == [
          "2024/summer trip/beach day.txt", "2024/summer trip/photo.JPG", "emoji 😀/a+b%41.json",
          "empty", "notes.md", "中文/文件.txt",
        ])
      let byKey = Dictionary(
        uniqueKeysWithValues: items.compactMap { item in item["key"]?.stringValue.map { ($0, item) }
        })
      #expect(byKey["2024/summer trip/photo.JPG"]?["mimeType"]?.stringValue == "image/jpeg")
      #expect(byKey["emoji 😀/a+b%41.json"]?["mimeType"]?.stringValue == "application/json")
      #expect(byKey["notes.md"]?["mimeType"]?.stringValue == "text/markdown")
      #expect(byKey["empty"]?["mimeType"]?.stringValue == "application/octet-stream")
      #expect(byKey["empty"]?["hash"]?.stringValue == "Fto5o-5ea0sNMlW_75VgGJCv2AcJ")
      #expect(byKey["empty"]?["fsize"]?.int64Value == 0)
      #expect(byKey["notes.md"]?["putTime"]?.int64Value == 17_000_000_005_000_000)
      #expect(byKey["notes.md"]?["hash"]?.stringValue == QETag.hash(of: Array("# notes\n".utf8)))
      #expect(byKey["中文/文件.txt"]?["fsize"]?.int64Value == 7)

      let body = try await emulator.download(
        emulator.publicDownloadTarget(bucket: "files", key: "2024/summer trip/beach day.txt"))
      #expect(body.text == "sun\n")
      #expect(body.header("Content-Type") == "text/plain")
      #expect(try await emulator.download("/dl/files/link.txt").status == 404)
      #expect(try await emulator.download("/dl/files/linked-dir/secret.txt").status == 404)

      let stat = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "files", key: "emoji 😀/a+b%41.json")
      ).json()
      #expect(stat["fsize"]?.int64Value == 2)
      #expect(stat["hash"]?.stringValue == QETag.hash(of: Array("{}".utf8)))
      #expect(emulator.server.buckets.first?.objectCount == 6)
    }
  }

  @Test func aMissingOrNonDirectoryPathIsAnError() async throws {
    let tree = try makeTree()
    defer { tree.remove() }
    await #expect(throws: EmulatorError.notADirectory(tree.path + "/notes.md")) {
      _ = try await EmulatorServer.start(
        EmulatorConfiguration(buckets: [.directory("x", path: tree.path + "/notes.md")]))
    }
    await #expect(throws: EmulatorError.directoryNotFound(tree.path + "/nope")) {
      _ = try await EmulatorServer.start(
        EmulatorConfiguration(buckets: [.directory("x", path: tree.path + "/nope")]))
    }
  }
}
