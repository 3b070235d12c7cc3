import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// The parts of a multipart upload are written where the object will have them, in one file
/// per session, and a completion of parts 1…N in place (all but the last one stride long)
/// takes that file as the object, with no copy; anything else is copied as before, and every
/// answer stays the same.
@Suite struct PartLayoutTests {
  static let mib = 1 << 20

  /// Bytes made once, that every part is cut from (making each anew is slow in a debug build).
  static let source = SpoolTests.content(8 << 20, seed: 1)

  /// `count` bytes (at most 8 MiB) that differ from `seed` to seed: `source` turned by an odd
  /// number of bytes for each seed.
  static func content(_ count: Int, seed: UInt8) -> [UInt8] {
    let turn = (Int(seed) * 65_537) % source.count
    let first = min(count, source.count - turn)
    return Array(source[turn..<turn + first]) + Array(source[..<(count - first)])
  }

  /// `parts` one after another (`joined()` goes byte by byte in a debug build).
  static func whole(_ parts: [[UInt8]]) -> [UInt8] {
    parts.reduce(into: []) { $0 += $1 }
  }

  /// The files in a directory bucket's temporary folder (where its uploads' parts are written).
  static func temporaryFiles(_ tree: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: tree.path + "/.kodo-emulator/tmp")
  }

  static func inode(_ path: String) throws -> UInt64? {
    (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?
      .uint64Value
  }

  // MARK: OSS

  /// An OSS multipart upload under way.
  struct OSSUpload {
    let client: OSSTestClient
    let bucket: String
    let key: String
    let id: String

    init(_ client: OSSTestClient, bucket: String, key: String) async throws {
      self.client = client
      self.bucket = bucket
      self.key = key
      let initiated = try await client.send(
        OSSRequest(method: "POST", bucket: bucket, key: key, query: [OSSQueryItem("uploads", nil)]))
      id = try #require(
        initiated.text.components(separatedBy: "<UploadId>").dropFirst().first?
          .components(separatedBy: "</UploadId>").first)
    }

    /// Uploads part `number`; returns its ETag (with quotes).
    @discardableResult
    func part(_ number: Int, _ body: [UInt8], md5: [UInt8]? = nil) async throws -> RawHTTPResponse {
      try await client.send(
        OSSRequest(
          method: "PUT", bucket: bucket, key: key,
          query: [OSSQueryItem("partNumber", String(number)), OSSQueryItem("uploadId", id)],
          headers: ["Content-MD5": Data(md5 ?? Digest.md5(body)).base64EncodedString()]),
        body: body)
    }

    func complete(_ parts: [(Int, [UInt8])], headers: HTTPHeaders = [:]) async throws
      -> RawHTTPResponse
    {
      let items = parts.map { number, body in
        "<Part><PartNumber>\(number)</PartNumber><ETag>\"\(Hex.encode(Digest.md5(body)).uppercased())\"</ETag></Part>"
      }.joined()
      return try await client.send(
        OSSRequest(
          method: "POST", bucket: bucket, key: key, query: [OSSQueryItem("uploadId", id)],
          headers: headers),
        body: Array(("<CompleteMultipartUpload>" + items + "</CompleteMultipartUpload>").utf8))
    }

    func abort() async throws -> RawHTTPResponse {
      try await client.send(
        OSSRequest(
          method: "DELETE", bucket: bucket, key: key, query: [OSSQueryItem("uploadId", id)]))
    }

    /// The object's bytes now.
    func stored() async throws -> [UInt8] {
      try await client.send(OSSRequest(bucket: bucket, key: key)).body
    }
  }

  /// The answer OSS gives a completion of `parts`: the multipart ETag and the whole CRC-64.
  static func expectCompletion(_ done: RawHTTPResponse, _ parts: [[UInt8]]) {
    #expect(done.status == 200, "\(done.text)")
    let etag =
      Hex.encode(Digest.md5(Array(parts.map { Digest.md5($0) }.joined()))).uppercased() + "-"
      + String(parts.count)
    #expect(done.text.contains("<ETag>&quot;\(etag)&quot;</ETag>"), "\(done.text)")
    #expect(done.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(Self.whole(parts))))
  }

  @Test func ossPartsInOrderBecomeTheObjectWithoutACopy() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(SpoolTests.configuration(tree.path, oss: true)) { emulator in
      let client = try OSSTestClient(emulator)
      // The last part smaller, and small enough to stay in memory: copied into its place.
      for (bucket, sizes) in [
        ("dir", [2 * Self.mib, 2 * Self.mib, 2 * Self.mib, 300 << 10]),
        ("mem", [2 * Self.mib, 2 * Self.mib, (3 << 20) / 2]),
        ("dir", [3 * Self.mib, 3 * Self.mib]),
      ] {
        let parts = sizes.enumerated().map { Self.content($1, seed: UInt8(60 + $0)) }
        let upload = try await OSSUpload(client, bucket: bucket, key: "fast-\(sizes.count).bin")
        for (index, part) in parts.enumerated() {
          let answer = try await upload.part(index + 1, part)
          #expect(answer.status == 200, "\(answer.text)")
          #expect(answer.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(part)))
        }
        let joined = emulator.server.partsJoinedInPlace
        // A directory bucket's parts are in one file of its temporary folder, which becomes
        // the object itself.
        var sessionInode: UInt64?
        if bucket == "dir" {
          let files = try Self.temporaryFiles(tree)
          #expect(files.count == 1, "\(files)")
          sessionInode = try Self.inode(tree.path + "/.kodo-emulator/tmp/" + files[0])
        }
        let done = try await upload.complete(parts.enumerated().map { ($0 + 1, $1) })
        Self.expectCompletion(done, parts)
        #expect(emulator.server.partsJoinedInPlace == joined + 1)
        #expect(try await upload.stored() == Self.whole(parts))
        if bucket == "dir" {
          #expect(try Self.inode(tree.path + "/" + upload.key) == sessionInode)
          #expect(try Self.temporaryFiles(tree).isEmpty)
          // With the mode of an object put whole.
          let small = try await client.send(
            OSSRequest(method: "PUT", bucket: bucket, key: "small.bin"), body: [1, 2, 3])
          #expect(small.status == 200)
          let modes = try [upload.key, "small.bin"].map { key in
            try FileManager.default.attributesOfItem(atPath: tree.path + "/" + key)[
              .posixPermissions] as? NSNumber
          }
          #expect(modes[0] != nil && modes[0] == modes[1])
        }
      }
      // The in-memory bucket's object is the session's file, the one spool file left.
      #expect(try await SpoolTests.eventually { emulator.server.spoolFileCount == 1 })
    }
  }

  @Test func ossPartsArrivingOutOfOrderLandWhereTheyBelong() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(SpoolTests.configuration(tree.path, oss: true)) { emulator in
      let client = try OSSTestClient(emulator)
      let sizes = [2 * Self.mib, 2 * Self.mib, 2 * Self.mib, (3 << 20) / 2]
      let parts = sizes.enumerated().map { Self.content($1, seed: UInt8(70 + $0)) }
      for (bucket, order, inPlace) in [
        ("dir", [3, 1, 4, 2], true), ("mem", [2, 4, 3, 1], true),
        // The smaller last part first sets the stride: the others do not fit, and are copied.
        ("dir", [4, 3, 2, 1], false),
      ] {
        let upload = try await OSSUpload(client, bucket: bucket, key: "order.bin")
        for number in order {
          let answer = try await upload.part(number, parts[number - 1])
          #expect(answer.status == 200, "\(answer.text)")
        }
        let joined = emulator.server.partsJoinedInPlace
        let done = try await upload.complete(parts.enumerated().map { ($0 + 1, $1) })
        Self.expectCompletion(done, parts)
        #expect(emulator.server.partsJoinedInPlace == joined + (inPlace ? 1 : 0))
        #expect(try await upload.stored() == Self.whole(parts), "\(bucket) \(order)")
      }
      // Sent at once, as a parallel client does (whichever arrives first sets the stride).
      for bucket in ["dir", "mem"] {
        let upload = try await OSSUpload(client, bucket: bucket, key: "parallel.bin")
        try await withThrowingTaskGroup(of: Void.self) { group in
          for number in 1...parts.count {
            group.addTask {
              let answer = try await upload.part(number, parts[number - 1])
              #expect(answer.status == 200, "\(answer.text)")
            }
          }
          try await group.waitForAll()
        }
        let done = try await upload.complete(parts.enumerated().map { ($0 + 1, $1) })
        Self.expectCompletion(done, parts)
        #expect(try await upload.stored() == Self.whole(parts), "\(bucket)")
      }
      #expect(try Self.temporaryFiles(tree).isEmpty)
    }
  }

  @Test func aReuploadedPartGivesTheLatestBytes() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(SpoolTests.configuration(tree.path, oss: true)) { emulator in
      let client = try OSSTestClient(emulator)
      for bucket in ["dir", "mem"] {
        var parts = (0..<3).map { Self.content(2 * Self.mib, seed: UInt8(80 + $0)) }
        let upload = try await OSSUpload(client, bucket: bucket, key: "again.bin")
        for (index, part) in parts.enumerated() {
          #expect(try await upload.part(index + 1, part).status == 200)
        }
        // The same size, other bytes: kept apart until it is whole, then copied into its place.
        parts[1] = Self.content(2 * Self.mib, seed: 90)
        #expect(try await upload.part(2, parts[1]).status == 200)
        // A re-upload refused (wrong Content-MD5) changes nothing.
        let refused = try await upload.part(3, Self.content(2 * Self.mib, seed: 91), md5: [1])
        #expect(refused.ossError?.code == "InvalidDigest")
        var joined = emulator.server.partsJoinedInPlace
        Self.expectCompletion(
          try await upload.complete(parts.enumerated().map { ($0 + 1, $1) }), parts)
        #expect(emulator.server.partsJoinedInPlace == joined + 1)
        #expect(try await upload.stored() == Self.whole(parts), "\(bucket)")

        // Another size: the layout no longer holds, and the parts are copied.
        let other = try await OSSUpload(client, bucket: bucket, key: "resized.bin")
        var resized = (0..<3).map { Self.content(2 * Self.mib, seed: UInt8(100 + $0)) }
        for (index, part) in resized.enumerated() {
          #expect(try await other.part(index + 1, part).status == 200)
        }
        resized[1] = Self.content((3 << 20) / 2, seed: 110)
        #expect(try await other.part(2, resized[1]).status == 200)
        joined = emulator.server.partsJoinedInPlace
        Self.expectCompletion(
          try await other.complete(resized.enumerated().map { ($0 + 1, $1) }), resized)
        #expect(emulator.server.partsJoinedInPlace == joined)
        #expect(try await other.stored() == Self.whole(resized), "\(bucket)")
      }
      #expect(try Self.temporaryFiles(tree).isEmpty)
    }
  }

  @Test func completionsOutsideTheLayoutAreCopiedOrRefusedAsBefore() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(SpoolTests.configuration(tree.path, oss: true)) { emulator in
      let client = try OSSTestClient(emulator)
      let parts = (0..<3).map { Self.content(2 * Self.mib, seed: UInt8(120 + $0)) }
      let joined = emulator.server.partsJoinedInPlace
      for (bucket, listed) in [("dir", [1, 2]), ("mem", [1, 3]), ("dir", [2, 3]), ("mem", [3])] {
        let upload = try await OSSUpload(client, bucket: bucket, key: "subset.bin")
        for (index, part) in parts.enumerated() {
          #expect(try await upload.part(index + 1, part).status == 200)
        }
        let chosen = listed.map { parts[$0 - 1] }
        Self.expectCompletion(try await upload.complete(listed.map { ($0, parts[$0 - 1]) }), chosen)
        #expect(try await upload.stored() == Self.whole(chosen), "\(bucket) \(listed)")
      }
      #expect(emulator.server.partsJoinedInPlace == joined)
      // The wrong order is refused, and the upload goes on: completed in place afterwards.
      let upload = try await OSSUpload(client, bucket: "dir", key: "order.bin")
      for (index, part) in parts.enumerated() {
        #expect(try await upload.part(index + 1, part).status == 200)
      }
      let wrong = try await upload.complete([(2, parts[1]), (1, parts[0]), (3, parts[2])])
      #expect(wrong.ossError?.code == "InvalidPartOrder")
      // A completion refused after the parts were joined (the key exists and may not be
      // replaced) leaves the upload whole.
      let forbidden = try await upload.complete(
        parts.enumerated().map { ($0 + 1, $1) }, headers: ["x-oss-forbid-overwrite": "true"])
      #expect(forbidden.status == 200, "\(forbidden.text)")
      let again = try await OSSUpload(client, bucket: "dir", key: "order.bin")
      for (index, part) in parts.enumerated() {
        #expect(try await again.part(index + 1, part).status == 200)
      }
      let refused = try await again.complete(
        parts.enumerated().map { ($0 + 1, $1) }, headers: ["x-oss-forbid-overwrite": "true"])
      #expect(refused.ossError?.code == "FileAlreadyExists")
      let replacement = Self.content(2 * Self.mib, seed: 130)
      #expect(try await again.part(3, replacement).status == 200)
      let final = [parts[0], parts[1], replacement]
      Self.expectCompletion(
        try await again.complete(final.enumerated().map { ($0 + 1, $1) }), final)
      #expect(try await again.stored() == Self.whole(final))
      #expect(try Self.temporaryFiles(tree).isEmpty)
    }
  }

  @Test func anAbortedUploadLeavesNoFile() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(SpoolTests.configuration(tree.path, oss: true)) { emulator in
      let client = try OSSTestClient(emulator)
      let before = emulator.server.spoolFileCount
      for bucket in ["dir", "mem"] {
        let upload = try await OSSUpload(client, bucket: bucket, key: "gone.bin")
        for number in 1...2 {
          let part = Self.content(2 * Self.mib, seed: UInt8(140 + number))
          #expect(try await upload.part(number, part).status == 200)
        }
        if bucket == "dir" {
          #expect(try Self.temporaryFiles(tree).count == 1)
        } else {
          #expect(emulator.server.spoolFileCount == before + 1)
        }
        #expect(try await upload.abort().status == 204)
        #expect(
          try await SpoolTests.eventually { (try? Self.temporaryFiles(tree).isEmpty) == true })
        #expect(try await SpoolTests.eventually { emulator.server.spoolFileCount == before })
      }
    }
  }

  // MARK: Kodo resumable v2

  @Test func kodoPartsInPlaceBecomeTheObjectAndACutReuploadChangesNothing() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(SpoolTests.configuration(tree.path, oss: false)) { emulator in
      let parts = [4 << 20, 4 << 20, 3 << 20].enumerated().map {
        Self.content($1, seed: UInt8(150 + $0))
      }
      let whole = Self.whole(parts)
      for bucket in ["dir", "mem"] {
        let key = "v2-\(bucket).bin"
        let token = KodoWriteTests.token(emulator, "\"scope\":\"\(bucket):\(key)\"")
        let headers = [("Host", emulator.hostHeader), ("Authorization", "UpToken " + token)]
        let base = "/buckets/\(bucket)/objects/\(URLSafeBase64.encode(key))/uploads"
        let initiated = try await emulator.response(
          to: RawHTTPRequest(method: "POST", target: base, headers: headers))
        var id = try #require(try initiated.json()["uploadId"]?.stringValue)
        func put(_ number: Int, _ body: [UInt8]) async throws -> String {
          let answer = try await emulator.response(
            to: RawHTTPRequest(
              method: "PUT", target: "\(base)/\(id)/\(number)",
              headers: headers + [("Content-MD5", Hex.encode(Digest.md5(body)))], body: body))
          #expect(answer.status == 200, "\(answer.text)")
          return try #require(try answer.json()["etag"]?.stringValue)
        }
        /// Part `number` announced whole, cut after half of it.
        func cut(_ number: Int, _ body: [UInt8]) async throws {
          let head =
            "PUT \(base)/\(id)/\(number) HTTP/1.1\r\nHost: \(emulator.hostHeader)\r\n"
            + "Authorization: UpToken \(token)\r\nContent-Length: \(body.count)\r\n\r\n"
          try await RawHTTPClient.withConnection(port: emulator.port) { connection in
            try await connection.send(Array(head.utf8) + body[..<(body.count / 2)])
          }
        }
        var etags = [String]()
        for (index, part) in parts.enumerated() { etags.append(try await put(index + 1, part)) }
        // A re-upload cut short (its place is held by the part it would replace) leaves the
        // part as it was.
        try await cut(2, Self.content(4 << 20, seed: 161))
        func complete() async throws {
          let listed = etags.enumerated().map { "{\"etag\":\"\($1)\",\"partNumber\":\($0 + 1)}" }
          let completed = try await emulator.response(
            to: RawHTTPRequest(
              method: "POST", target: "\(base)/\(id)", headers: headers,
              body: Array("{\"parts\":[\(listed.joined(separator: ","))]}".utf8)))
          #expect(completed.status == 200, "\(completed.text)")
          #expect(try completed.json()["hash"]?.stringValue == QETag.hash(of: whole))
          let download = try await emulator.download(
            emulator.publicDownloadTarget(bucket: bucket, key: key))
          #expect(download.body == whole, "\(bucket)")
        }
        let joined = emulator.server.partsJoinedInPlace
        try await complete()
        #expect(emulator.server.partsJoinedInPlace == joined + 1)
        // A first copy cut short, then the whole part (in its place, or copied at completion
        // if the cut copy still held it).
        let retry = try await emulator.response(
          to: RawHTTPRequest(method: "POST", target: base, headers: headers))
        id = try #require(try retry.json()["uploadId"]?.stringValue)
        try await cut(1, Self.content(4 << 20, seed: 160))
        etags = []
        for (index, part) in parts.enumerated() { etags.append(try await put(index + 1, part)) }
        try await complete()
      }
      #expect(try await SpoolTests.eventually { (try? Self.temporaryFiles(tree).isEmpty) == true })
    }
  }
}
