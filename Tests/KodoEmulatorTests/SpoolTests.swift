import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// Upload bodies past the in-memory size go to the emulator's private spool folder as they
/// arrive, parts stay there until completed, in-memory buckets keep their large objects there,
/// and the bodies held in memory stay bounded whatever the uploads' sizes.
@Suite struct SpoolTests {
  /// The most of one spooled body in memory at once: what waits for the disk (up to 4 MiB and
  /// one read) and the chunk being written (as much), with a read's slack.
  static let heldPerBody: Int64 = 10 << 20

  /// `count` bytes that differ from block to block and from `seed` to seed.
  static func content(_ count: Int, seed: UInt8) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      var state = UInt32(seed) &* 2_654_435_761 | 1
      for index in 0..<count {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        buffer[index] = UInt8(truncatingIfNeeded: state)
      }
      initialized = count
    }
  }

  /// Waits (polling, generous deadline) until `condition` holds.
  static func eventually(_ condition: () -> Bool) async throws -> Bool {
    let deadline = Patience.deadline
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      try await Task.sleep(for: .milliseconds(20))
    }
    return true
  }

  static func configuration(_ directory: String, oss: Bool) -> EmulatorConfiguration {
    var configuration =
      oss
      ? OSSTestClient.configuration([.memory("mem"), .directory("dir", path: directory)])
      : EmulatorConfiguration(buckets: [.memory("mem"), .directory("dir", path: directory)])
    configuration.writableBuckets = ["dir"]
    configuration.memoryLimit = 1 << 30
    return configuration
  }

  /// The record a directory bucket keeps beside the file of `key`.
  static func record(_ tree: TemporaryDirectory, key: String) throws -> JSONValue {
    let name = Hex.encode(Digest.sha1(Array(key.utf8))) + ".json"
    let text = try String(
      contentsOfFile: tree.path + "/.kodo-emulator/objects/" + name, encoding: .utf8)
    return try JSONValue.parse(text)
  }

  @Test func aBodyPastTheLimitIsRefusedWithoutBeingHeld() async throws {
    var configuration = EmulatorConfiguration(buckets: [.memory("mem")])
    configuration.limits.maximumWriteBodySize = 16 << 20
    try await EmulatorHarness.with(configuration) { emulator in
      // Announced: refused at the head, nothing read.
      let announced = try await emulator.send(
        RawHTTPRequest(
          method: "POST", target: "/",
          headers: [
            ("Host", emulator.hostHeader), ("Content-Length", String(1 << 30)),
            ("Content-Type", "multipart/form-data; boundary=b"),
          ]))
      #expect(announced.response?.status == 413)
      #expect(emulator.server.bodyMemory.peak == 0)
      // Chunked, so the size is only known as it arrives: past the limit it is refused, and
      // what arrived before was spooled, never held whole.
      let size = (16 << 20) + 1
      let head =
        "POST / HTTP/1.1\r\nHost: \(emulator.hostHeader)\r\nTransfer-Encoding: chunked\r\n"
        + "Content-Type: multipart/form-data; boundary=b\r\n\r\n" + String(size, radix: 16)
        + "\r\n"
      let answer = try await RawHTTPClient.withConnection(port: emulator.port) { connection in
        try await connection.send(Array(head.utf8) + Self.content(size, seed: 1))
        return try await connection.readResponse(timeout: Patience.bound)
      }
      #expect(answer.response?.status == 413)
      #expect(emulator.server.bodyMemory.peak <= Self.heldPerBody)
      #expect(try await Self.eventually { emulator.server.bodyMemory.used == 0 })
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 0 })
    }
  }

  @Test func largeOSSPutsLandByteExactInBothKindsOfBucket() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(Self.configuration(tree.path, oss: true)) { emulator in
      let client = try OSSTestClient(emulator)
      let body = Self.content((6 << 20) + 123, seed: 2)
      let md5 = Data(Digest.md5(body)).base64EncodedString()
      for bucket in ["mem", "dir"] {
        let put = try await client.send(
          OSSRequest(method: "PUT", bucket: bucket, key: "big.bin", headers: ["Content-MD5": md5]),
          body: body)
        #expect(put.status == 200, "\(put.text)")
        #expect(put.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(body)))
        #expect(put.header("ETag") == "\"" + Hex.encode(Digest.md5(body)).uppercased() + "\"")
        let get = try await client.send(OSSRequest(bucket: bucket, key: "big.bin"))
        #expect(get.status == 200)
        #expect(get.body == body, "\(bucket)")
      }
      // The qetag waits for a Kodo read to ask for it (`LazyDigestTests`).
      #expect(try Self.record(tree, key: "big.bin")["hash"] == nil)
      #expect(
        try Self.record(tree, key: "big.bin")["crc64"]?.stringValue
          == String(CRC64.checksum(body)))
      // The in-memory bucket's object is the one spool file left; overwriting it replaces the
      // file, deleting it removes it.
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 1 })
      let again = try await client.send(
        OSSRequest(method: "PUT", bucket: "mem", key: "big.bin"), body: body.reversed())
      #expect(again.status == 200)
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 1 })
      let deleted = try await client.send(
        OSSRequest(method: "DELETE", bucket: "mem", key: "big.bin"))
      #expect(deleted.status == 204)
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 0 })
      // A wrong Content-MD5 on a spooled body is refused and leaves nothing behind.
      let wrong = try await client.send(
        OSSRequest(
          method: "PUT", bucket: "dir", key: "bad.bin",
          headers: ["Content-MD5": Data(Digest.md5([1])).base64EncodedString()]), body: body)
      #expect(wrong.ossError?.code == "InvalidDigest")
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 0 })
      let leftovers = try FileManager.default.contentsOfDirectory(
        atPath: tree.path + "/.kodo-emulator/tmp")
      #expect(leftovers.isEmpty)
    }
  }

  @Test func largeKodoFormUploadsLandByteExactInBothKindsOfBucket() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(Self.configuration(tree.path, oss: false)) { emulator in
      let body = Self.content((5 << 20) + 7, seed: 3)
      for bucket in ["mem", "dir"] {
        let token = KodoWriteTests.token(emulator, "\"scope\":\"\(bucket):form.bin\"")
        let answer = try await KodoWriteTests.form(
          emulator, token: token, key: "form.bin", body: body,
          fields: [("crc32", String(CRC32.checksum(body))), ("x-qn-meta-owner", "spool")])
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try answer.json()["hash"]?.stringValue == QETag.hash(of: body))
        let download = try await emulator.download(
          emulator.publicDownloadTarget(bucket: bucket, key: "form.bin"))
        #expect(download.body == body, "\(bucket)")
        let stat = try await emulator.get(
          EmulatorHarness.statTarget(bucket: bucket, key: "form.bin")
        ).json()
        #expect(stat["md5"]?.stringValue == Hex.encode(Digest.md5(body)))
      }
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 1 })
    }
  }

  @Test(arguments: [[4 << 20, 4 << 20, 100 << 10], [(5 << 20) + 3, 5 << 20, 1 << 20]])
  func ossMultipartCompletesByteExactWithTheDigestsOfTheWhole(_ sizes: [Int]) async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(Self.configuration(tree.path, oss: true)) { emulator in
      let client = try OSSTestClient(emulator)
      let parts = sizes.enumerated().map { Self.content($1, seed: UInt8(10 + $0)) }
      let whole = Array(parts.joined())
      for bucket in ["mem", "dir"] {
        let before = emulator.server.spoolFileCount
        let initiated = try await client.send(
          OSSRequest(
            method: "POST", bucket: bucket, key: "multi.bin", query: [OSSQueryItem("uploads", nil)])
        )
        let id = try #require(
          initiated.text.components(separatedBy: "<UploadId>").dropFirst().first?
            .components(separatedBy: "</UploadId>").first)
        let query = { (number: Int) in
          [OSSQueryItem("partNumber", String(number)), OSSQueryItem("uploadId", id)]
        }
        var items = ""
        for (offset, part) in parts.enumerated() {
          let answer = try await client.send(
            OSSRequest(method: "PUT", bucket: bucket, key: "multi.bin", query: query(offset + 1)),
            body: part)
          #expect(answer.status == 200, "\(answer.text)")
          #expect(answer.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(part)))
          let etag = try #require(answer.header("ETag"))
          items += "<Part><PartNumber>\(offset + 1)</PartNumber><ETag>\(etag)</ETag></Part>"
        }
        // An aborted upload leaves no spool file.
        let aborted = try await client.send(
          OSSRequest(
            method: "POST", bucket: bucket, key: "other.bin", query: [OSSQueryItem("uploads", nil)])
        )
        let abortedID = try #require(
          aborted.text.components(separatedBy: "<UploadId>").dropFirst().first?
            .components(separatedBy: "</UploadId>").first)
        let abortedQuery = [OSSQueryItem("partNumber", "1"), OSSQueryItem("uploadId", abortedID)]
        _ = try await client.send(
          OSSRequest(method: "PUT", bucket: bucket, key: "other.bin", query: abortedQuery),
          body: parts[0])
        let abort = try await client.send(
          OSSRequest(
            method: "DELETE", bucket: bucket, key: "other.bin",
            query: [OSSQueryItem("uploadId", abortedID)]))
        #expect(abort.status == 204)
        let done = try await client.send(
          OSSRequest(
            method: "POST", bucket: bucket, key: "multi.bin",
            query: [OSSQueryItem("uploadId", id)]),
          body: Array(("<CompleteMultipartUpload>" + items + "</CompleteMultipartUpload>").utf8))
        #expect(done.status == 200, "\(done.text)")
        #expect(done.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(whole)))
        let get = try await client.send(OSSRequest(bucket: bucket, key: "multi.bin"))
        #expect(get.body == whole, "\(bucket)")
        #expect(get.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(whole)))
        // The parts are gone; an in-memory bucket keeps the object itself in the spool.
        let kept = bucket == "mem" ? 1 : 0
        #expect(try await Self.eventually { emulator.server.spoolFileCount == before + kept })
      }
      let record = try Self.record(tree, key: "multi.bin")
      // The qetag waits for a Kodo read to ask for it (`LazyDigestTests`).
      #expect(record["hash"] == nil)
      #expect(record["crc64"]?.stringValue == String(CRC64.checksum(whole)))
      #expect(record["multipart"] == .bool(true))
    }
  }

  @Test func kodoResumableUploadsCompleteByteExactWithTheQETag() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(Self.configuration(tree.path, oss: false)) { emulator in
      let parts = [4 << 20, 4 << 20, 1_000].enumerated().map {
        Self.content($1, seed: UInt8(20 + $0))
      }
      let whole = Array(parts.joined())
      for bucket in ["mem", "dir"] {
        let key = "v2.bin"
        let token = KodoWriteTests.token(emulator, "\"scope\":\"\(bucket):\(key)\"")
        let headers = [("Host", emulator.hostHeader), ("Authorization", "UpToken " + token)]
        let base = "/buckets/\(bucket)/objects/\(URLSafeBase64.encode(key))/uploads"
        let initiated = try await emulator.response(
          to: RawHTTPRequest(method: "POST", target: base, headers: headers))
        let id = try #require(try initiated.json()["uploadId"]?.stringValue)
        var listed = [String]()
        for (offset, part) in parts.enumerated() {
          let answer = try await emulator.response(
            to: RawHTTPRequest(
              method: "PUT", target: "\(base)/\(id)/\(offset + 1)",
              headers: headers + [("Content-MD5", Hex.encode(Digest.md5(part)))], body: part))
          #expect(answer.status == 200, "\(answer.text)")
          let etag = try #require(try answer.json()["etag"]?.stringValue)
          #expect(etag == QETag.hash(of: part))
          listed.append("{\"etag\":\"\(etag)\",\"partNumber\":\(offset + 1)}")
        }
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
      // The CRC-64 waits for an OSS read to ask for it (`LazyDigestTests`).
      #expect(try Self.record(tree, key: "v2.bin")["hash"]?.stringValue == QETag.hash(of: whole))
      #expect(try Self.record(tree, key: "v2.bin")["crc64"] == nil)
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 1 })
    }
  }

  @Test func kodoV1BlocksCompleteByteExactWithTheQETag() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try await EmulatorHarness.with(Self.configuration(tree.path, oss: false)) { emulator in
      let block = Self.content(4 << 20, seed: 30)
      let tail = Self.content((1 << 20) + 5, seed: 31)
      let whole = block + tail
      let key = "v1.bin"
      let token = KodoWriteTests.token(emulator, "\"scope\":\"dir:\(key)\"")
      let headers = [("Host", emulator.hostHeader), ("Authorization", "UpToken " + token)]
      func post(_ target: String, _ body: [UInt8]) async throws -> RawHTTPResponse {
        try await emulator.response(
          to: RawHTTPRequest(method: "POST", target: target, headers: headers, body: body))
      }
      let half = block.count / 2
      let made = try await post("/mkblk/\(block.count)", Array(block[..<half]))
      #expect(made.status == 200, "\(made.text)")
      let context = try #require(try made.json()["ctx"]?.stringValue)
      let wrongOffset = try await post("/bput/\(context)/1", Array(block[half...]))
      #expect(wrongOffset.status == 400)
      let filled = try await post("/bput/\(context)/\(half)", Array(block[half...]))
      #expect(filled.status == 200, "\(filled.text)")
      #expect(
        try filled.json()["checksum"]?.stringValue == URLSafeBase64.encode(Digest.sha1(block)))
      let last = try await post("/mkblk/\(tail.count)", tail)
      let lastContext = try #require(try last.json()["ctx"]?.stringValue)
      let file = try await post(
        "/mkfile/\(whole.count)/key/\(URLSafeBase64.encode(key))",
        Array("\(context),\(lastContext)".utf8))
      #expect(file.status == 200, "\(file.text)")
      #expect(try file.json()["hash"]?.stringValue == QETag.hash(of: whole))
      let download = try await emulator.download(
        emulator.publicDownloadTarget(bucket: "dir", key: key))
      #expect(download.body == whole)
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 0 })
    }
  }

  @Test func bodiesInMemoryStayBoundedWhileLargeUploadsRunTogether() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    var configuration = Self.configuration(tree.path, oss: true)
    configuration.limits.maximumWriteBodySize = 64 << 20
    try await EmulatorHarness.with(configuration) { emulator in
      let client = try OSSTestClient(emulator)
      let uploads = 3
      let bodies = (0..<uploads).map { Self.content(16 << 20, seed: UInt8(40 + $0)) }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, body) in bodies.enumerated() {
          group.addTask {
            let bucket = index % 2 == 0 ? "dir" : "mem"
            let put = try await client.send(
              OSSRequest(method: "PUT", bucket: bucket, key: "c\(index)"), body: body)
            #expect(put.status == 200, "\(put.text)")
          }
        }
        try await group.waitForAll()
      }
      let peak = emulator.server.bodyMemory.peak
      #expect(peak <= Int64(uploads) * Self.heldPerBody, "peak \(peak)")
      #expect(peak < Int64(bodies.reduce(0) { $0 + $1.count }))
      for (index, body) in bodies.enumerated() {
        let bucket = index % 2 == 0 ? "dir" : "mem"
        let get = try await client.send(OSSRequest(bucket: bucket, key: "c\(index)"))
        #expect(get.body == body)
      }
    }
  }

  @Test func anExpiredUploadLeavesNoSpoolFile() async throws {
    var configuration = EmulatorConfiguration(buckets: [.memory("mem")])
    configuration.uploadTTLSeconds = 1
    let clock = MutableClock(1_900_000_000)
    configuration.clock = WallClock { Date(timeIntervalSince1970: TimeInterval(clock.value)) }
    try await EmulatorHarness.with(configuration) { emulator in
      let token = KodoWriteTests.token(emulator, "\"scope\":\"mem:k\"", deadline: 2_000_000_000)
      let base = "/buckets/mem/objects/\(URLSafeBase64.encode("k"))/uploads"
      let headers = [("Host", emulator.hostHeader), ("Authorization", "UpToken " + token)]
      let initiated = try await emulator.response(
        to: RawHTTPRequest(method: "POST", target: base, headers: headers))
      let id = try #require(try initiated.json()["uploadId"]?.stringValue)
      let part = try await emulator.response(
        to: RawHTTPRequest(
          method: "PUT", target: "\(base)/\(id)/1", headers: headers,
          body: Self.content(2 << 20, seed: 50)))
      #expect(part.status == 200, "\(part.text)")
      #expect(emulator.server.spoolFileCount == 1)
      clock.value += 5
      let listed = try await emulator.response(
        to: RawHTTPRequest(method: "GET", target: "\(base)/\(id)", headers: headers))
      #expect(listed.status == 612)
      #expect(try await Self.eventually { emulator.server.spoolFileCount == 0 })
    }
  }

  @Test func theSpoolFolderIsPrivateAndRemovedOnStop() async throws {
    let path = try await EmulatorHarness.with(EmulatorConfiguration(buckets: [.memory("mem")])) {
      emulator in
      let path = emulator.server.spoolPath
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
      return path
    }
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
