import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// M-4: a folder of a directory bucket swapped for a symbolic link after the scan never serves
/// what the link points at, on either front, and no hash of such a file is remembered.
@Suite struct SymlinkSwapTests {
  private static let inside = Array("inside the bucket\n".utf8)
  private static let outside = Array("outside the bucket, a secret\n".utf8)

  /// A bucket with `sub/deeper/passwd`, and an outside folder holding `deeper/passwd` too.
  private func makeTrees() throws -> (bucket: TemporaryDirectory, outside: TemporaryDirectory) {
    let bucket = try TemporaryDirectory()
    try bucket.write("sub/deeper/passwd", Self.inside)
    let outside = try TemporaryDirectory()
    try outside.write("deeper/passwd", Self.outside)
    return (bucket, outside)
  }

  /// Replaces the bucket's `sub` (or `sub/deeper`) with a link to the outside folder.
  private func swap(_ folder: String, in bucket: TemporaryDirectory, for target: String) throws {
    try FileManager.default.moveItem(
      atPath: bucket.path + "/" + folder, toPath: bucket.path + "/" + folder + ".orig")
    try FileManager.default.createSymbolicLink(
      atPath: bucket.path + "/" + folder, withDestinationPath: target)
  }

  @Test(arguments: ["sub", "sub/deeper"])
  func kodoServesNothingThroughASwappedFolder(_ folder: String) async throws {
    let (bucket, outside) = try makeTrees()
    defer {
      bucket.remove()
      outside.remove()
    }
    let configuration = EmulatorConfiguration(buckets: [.directory("files", path: bucket.path)])
    try await EmulatorHarness.with(configuration) { emulator in
      let target = folder == "sub" ? outside.path : outside.path + "/deeper"
      try swap(folder, in: bucket, for: target)
      let download = try await emulator.download("/dl/files/sub/deeper/passwd")
      #expect(download.status == 404)
      #expect(download.body != Self.outside)
      let stat = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "files", key: "sub/deeper/passwd"))
      #expect(stat.text.contains(QETag.hash(of: Self.outside)) == false)
      // Back in place: the bucket's own file, and its own hash (nothing remembered from outside).
      try FileManager.default.removeItem(atPath: bucket.path + "/" + folder)
      try FileManager.default.moveItem(
        atPath: bucket.path + "/" + folder + ".orig", toPath: bucket.path + "/" + folder)
      let restored = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "files", key: "sub/deeper/passwd")
      ).json()
      #expect(restored["hash"]?.stringValue == QETag.hash(of: Self.inside))
      #expect(try await emulator.download("/dl/files/sub/deeper/passwd").body == Self.inside)
    }
  }

  @Test(arguments: ["sub", "sub/deeper"])
  func ossServesNothingThroughASwappedFolder(_ folder: String) async throws {
    let (bucket, outside) = try makeTrees()
    defer {
      bucket.remove()
      outside.remove()
    }
    let configuration = OSSTestClient.configuration([.directory("files", path: bucket.path)])
    try await EmulatorHarness.with(configuration) { emulator in
      let client = try OSSTestClient(emulator)
      let target = folder == "sub" ? outside.path : outside.path + "/deeper"
      try swap(folder, in: bucket, for: target)
      let get = try await client.send(OSSRequest(bucket: "files", key: "sub/deeper/passwd"))
      #expect(get.status == 404)
      #expect(get.body != Self.outside)
      let head = try await client.send(
        OSSRequest(method: "HEAD", bucket: "files", key: "sub/deeper/passwd"))
      #expect(head.header("x-oss-hash-crc64ecma") != String(CRC64.checksum(Self.outside)))
    }
  }
}
