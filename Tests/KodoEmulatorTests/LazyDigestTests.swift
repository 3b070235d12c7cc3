import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// A write computes only the digests its protocol answers with (Kodo: MD5 and qetag; OSS: MD5
/// and CRC-64); the other protocol's is computed when a read first asks for it, then kept in the
/// `--writable` directory's record. An object written through one protocol and read through the
/// other (an emulator of each on the same directory) shows the right digests, across restarts.
@Suite struct LazyDigestTests {
  private static func kodo(_ path: String) -> EmulatorConfiguration {
    var configuration = EmulatorConfiguration(buckets: [.directory("files", path: path)])
    configuration.writableBuckets = ["files"]
    return configuration
  }

  private static func oss(_ path: String) -> EmulatorConfiguration {
    var configuration = OSSTestClient.configuration([.directory("files", path: path)])
    configuration.writableBuckets = ["files"]
    return configuration
  }

  private static func recordPath(_ tree: TemporaryDirectory, _ key: String) -> String {
    tree.path + "/.kodo-emulator/objects/" + Hex.encode(Digest.sha1(Array(key.utf8))) + ".json"
  }

  /// The record's members.
  private static func record(_ tree: TemporaryDirectory, _ key: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: recordPath(tree, key)))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  private static func stat(_ emulator: EmulatorHarness, _ key: String) async throws -> JSONValue {
    let answer = try await emulator.get(EmulatorHarness.statTarget(bucket: "files", key: key))
    #expect(answer.status == 200, "\(answer.text)")
    return try answer.json()
  }

  /// Bytes whose 4 MiB blocks straddle the parts they are uploaded in.
  private static func content(_ count: Int, seed: UInt8) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 >> 12) }
  }

  @Test func anOSSUploadShowsItsQetagThroughKodoAndKeepsIt() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    let first = Self.content(100 * 1_024, seed: 1)
    let second = Self.content(5 << 20, seed: 2)
    let whole = first + second
    let small = Array("put through OSS".utf8)
    var multipartETag = ""
    try await EmulatorHarness.with(Self.oss(tree.path)) { emulator in
      let client = try OSSTestClient(emulator)
      #expect(
        try await client.send(
          OSSRequest(method: "PUT", bucket: "files", key: "small.txt"), body: small
        )
        .status == 200)
      let initiated = try await client.send(
        OSSRequest(
          method: "POST", bucket: "files", key: "big.bin", query: [OSSQueryItem("uploads", nil)]))
      let id = try #require(
        initiated.text.components(separatedBy: "<UploadId>").dropFirst().first?
          .components(separatedBy: "</UploadId>").first)
      var items = ""
      for (offset, part) in [first, second].enumerated() {
        let answer = try await client.send(
          OSSRequest(
            method: "PUT", bucket: "files", key: "big.bin",
            query: [OSSQueryItem("partNumber", String(offset + 1)), OSSQueryItem("uploadId", id)]),
          body: part)
        #expect(answer.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(part)))
        let etag = try #require(answer.header("ETag"))
        items += "<Part><PartNumber>\(offset + 1)</PartNumber><ETag>\(etag)</ETag></Part>"
      }
      let done = try await client.send(
        OSSRequest(
          method: "POST", bucket: "files", key: "big.bin", query: [OSSQueryItem("uploadId", id)]),
        body: Array(("<CompleteMultipartUpload>" + items + "</CompleteMultipartUpload>").utf8))
      #expect(done.status == 200, "\(done.text)")
      #expect(done.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(whole)))
      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "files", key: "big.bin"))
      multipartETag = try #require(head.header("ETag"))
      #expect(multipartETag.hasSuffix("-2\""))
    }
    // The OSS upload did not compute the qetag.
    #expect(try Self.record(tree, "big.bin")["hash"] == nil)
    #expect(try Self.record(tree, "big.bin")["crc64"] as? String == String(CRC64.checksum(whole)))
    try await EmulatorHarness.with(Self.kodo(tree.path)) { emulator in
      #expect(
        try await Self.stat(emulator, "big.bin")["hash"]?.stringValue == QETag.hash(of: whole))
      let page = try await emulator.get("/list?bucket=files").json()
      let hashes = try #require(page["items"]?.arrayValue).compactMap { $0["hash"]?.stringValue }
      #expect(hashes == [QETag.hash(of: whole), QETag.hash(of: small)])
      let download = try await emulator.download(
        emulator.publicDownloadTarget(bucket: "files", key: "big.bin"))
      #expect(download.body == whole)
    }
    // Computed once, then kept.
    #expect(try Self.record(tree, "big.bin")["hash"] as? String == QETag.hash(of: whole))
    #expect(try Self.record(tree, "small.txt")["hash"] as? String == QETag.hash(of: small))
    try await EmulatorHarness.with(Self.oss(tree.path)) { emulator in
      let client = try OSSTestClient(emulator)
      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "files", key: "big.bin"))
      #expect(head.header("ETag") == multipartETag)
      #expect(head.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(whole)))
      #expect(head.header("x-oss-object-type") == "Multipart")
    }
    try await EmulatorHarness.with(Self.kodo(tree.path)) { emulator in
      let stat = try await Self.stat(emulator, "big.bin")
      #expect(stat["hash"]?.stringValue == QETag.hash(of: whole))
    }
  }

  @Test func aKodoUploadShowsItsCRC64AndETagThroughOSSAndKeepsThem() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    let formBody = Self.content(3_000, seed: 3)
    let first = Self.content(1 << 20, seed: 4)
    let second = Self.content(70_000, seed: 5)
    try await EmulatorHarness.with(Self.kodo(tree.path)) { emulator in
      let token = KodoWriteTests.token(emulator, "\"scope\":\"files\"")
      let form = try await KodoWriteTests.form(
        emulator, token: token, key: "form.bin", body: formBody)
      #expect(form.status == 200, "\(form.text)")
      let auth = [("Host", emulator.hostHeader), ("Authorization", "UpToken " + token)]
      let base = "/buckets/files/objects/\(URLSafeBase64.encode("parts.bin"))/uploads"
      let initiated = try await emulator.response(
        to: RawHTTPRequest(method: "POST", target: base, headers: auth))
      let id = try #require(try initiated.json()["uploadId"]?.stringValue)
      var listed = [String]()
      for (offset, part) in [first, second].enumerated() {
        let answer = try await emulator.response(
          to: RawHTTPRequest(
            method: "PUT", target: "\(base)/\(id)/\(offset + 1)", headers: auth, body: part))
        let etag = try #require(try answer.json()["etag"]?.stringValue)
        listed.append("{\"etag\":\"\(etag)\",\"partNumber\":\(offset + 1)}")
      }
      let done = try await emulator.response(
        to: RawHTTPRequest(
          method: "POST", target: "\(base)/\(id)", headers: auth,
          body: Array(("{\"parts\":[" + listed.joined(separator: ",") + "]}").utf8)))
      #expect(done.status == 200, "\(done.text)")
    }
    // The Kodo uploads did not compute the CRC-64.
    #expect(try Self.record(tree, "form.bin")["crc64"] == nil)
    #expect(try Self.record(tree, "parts.bin")["crc64"] == nil)
    let partsHash = QETag.hash(blockDigests: [Digest.sha1(first), Digest.sha1(second)])
    let partsETag =
      "\"" + Hex.encode(Digest.md5(Digest.md5(first) + Digest.md5(second))).uppercased() + "-2\""
    try await EmulatorHarness.with(Self.oss(tree.path)) { emulator in
      let client = try OSSTestClient(emulator)
      let form = try await client.send(OSSRequest(method: "HEAD", bucket: "files", key: "form.bin"))
      #expect(form.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(formBody)))
      #expect(form.header("ETag") == "\"" + Hex.encode(Digest.md5(formBody)).uppercased() + "\"")
      let parts = try await client.send(OSSRequest(bucket: "files", key: "parts.bin"))
      #expect(parts.body == first + second)
      #expect(parts.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(first + second)))
      #expect(parts.header("ETag") == partsETag)
    }
    #expect(
      try Self.record(tree, "parts.bin")["crc64"] as? String
        == String(CRC64.checksum(first + second)))
    try await EmulatorHarness.with(Self.kodo(tree.path)) { emulator in
      let parts = try await Self.stat(emulator, "parts.bin")
      #expect(parts["hash"]?.stringValue == partsHash)
      let form = try await Self.stat(emulator, "form.bin")
      #expect(form["hash"]?.stringValue == QETag.hash(of: formBody))
    }
    try await EmulatorHarness.with(Self.oss(tree.path)) { emulator in
      let client = try OSSTestClient(emulator)
      let parts = try await client.send(
        OSSRequest(method: "HEAD", bucket: "files", key: "parts.bin"))
      #expect(parts.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(first + second)))
      #expect(parts.header("ETag") == partsETag)
    }
  }

  /// A record as emulators before the lazy digests wrote it (every digest in it) loads, and its
  /// fields are used as they are.
  @Test func aRecordWithEveryDigestStillLoads() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    let body = Array("written before".utf8)
    try await EmulatorHarness.with(Self.kodo(tree.path)) { emulator in
      let token = KodoWriteTests.token(emulator, "\"scope\":\"files\"")
      let form = try await KodoWriteTests.form(
        emulator, token: token, key: "old.txt", body: body, mime: "text/x-old")
      #expect(form.status == 200, "\(form.text)")
    }
    var members = try Self.record(tree, "old.txt")
    // A value no computation gives: seen only if the record's field is what is answered.
    members["crc64"] = "12345"
    let data = try JSONSerialization.data(withJSONObject: members)
    try data.write(to: URL(fileURLWithPath: Self.recordPath(tree, "old.txt")))
    try await EmulatorHarness.with(Self.oss(tree.path)) { emulator in
      let client = try OSSTestClient(emulator)
      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "files", key: "old.txt"))
      #expect(head.header("x-oss-hash-crc64ecma") == "12345")
      #expect(head.header("Content-Type") == "text/x-old")
    }
    try await EmulatorHarness.with(Self.kodo(tree.path)) { emulator in
      let stat = try await Self.stat(emulator, "old.txt")
      #expect(stat["hash"]?.stringValue == QETag.hash(of: body))
      #expect(stat["mimeType"]?.stringValue == "text/x-old")
    }
  }
}
