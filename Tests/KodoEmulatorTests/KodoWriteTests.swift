import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// Kodo writes against in-memory, writable-directory and read-only buckets: form upload,
/// resumable v2, rs operations and `/batch`.
@Suite struct KodoWriteTests {
  static func configuration(_ extra: [EmulatorBucket] = [], writable: Set<String> = [])
    -> EmulatorConfiguration
  {
    var configuration = EmulatorConfiguration(
      buckets: [.memory("mem"), .objects("seeded", SampleObjects.objects)] + extra)
    configuration.writableBuckets = writable
    return configuration
  }

  /// An upload token for `policy` (a JSON object's members, without braces).
  static func token(_ emulator: EmulatorHarness, _ members: String, deadline: Int64? = nil)
    -> String
  {
    let deadline = deadline ?? Int64(Date().timeIntervalSince1970) + 3_600
    return emulator.credentials.signWithData(
      Array(("{" + members + ",\"deadline\":\(deadline)}").utf8))
  }

  /// A form upload of `body` with `fields` (name, value) before the file.
  static func form(
    _ emulator: EmulatorHarness, token: String, key: String?, body: [UInt8],
    fields: [(String, String)] = [], fileName: String = "file.bin", mime: String? = nil
  ) async throws -> RawHTTPResponse {
    let boundary = "----kodo-test-boundary"
    var bytes = [UInt8]()
    func field(_ name: String, _ value: String) {
      bytes += Array(
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8
      )
    }
    field("token", token)
    if let key { field("key", key) }
    for (name, value) in fields { field(name, value) }
    bytes += Array(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(fileName)\"\r\n"
        .utf8)
    if let mime { bytes += Array("Content-Type: \(mime)\r\n".utf8) }
    bytes += Array("\r\n".utf8) + body + Array("\r\n--\(boundary)--\r\n".utf8)
    return try await emulator.response(
      to: RawHTTPRequest(
        method: "POST", target: "/",
        headers: [
          ("Host", emulator.hostHeader),
          ("Content-Type", "multipart/form-data; boundary=" + boundary),
        ], body: bytes))
  }

  static func rs(_ emulator: EmulatorHarness, _ path: String) async throws -> RawHTTPResponse {
    try await emulator.response(to: emulator.request("POST", path))
  }

  static func entry(_ bucket: String, _ key: String) -> String {
    EncodedEntryURI.encode(bucket: bucket, key: key)
  }

  @Test func formUploadStoresAndServesTheObject() async throws {
    try await EmulatorHarness.with(Self.configuration()) { emulator in
      let body = Array("hello kodo\n".utf8)
      let token = Self.token(emulator, "\"scope\":\"mem:中文/a b.txt\"")
      let answer = try await Self.form(
        emulator, token: token, key: "中文/a b.txt", body: body,
        fields: [("crc32", "836152152"), ("x-qn-meta-owner", "kodo")])
      #expect(answer.status == 200, "\(answer.text)")
      #expect(answer.header("X-Reqid") != nil && answer.header("X-Log") != nil)
      let json = try answer.json()
      #expect(json["hash"]?.stringValue == QETag.hash(of: body))
      #expect(json["key"]?.stringValue == "中文/a b.txt")
      let stat = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "mem", key: "中文/a b.txt")
      ).json()
      #expect(stat["fsize"]?.int64Value == Int64(body.count))
      #expect(stat["mimeType"]?.stringValue == "text/plain")
      #expect(stat["x-qn-meta"]?["owner"]?.stringValue == "kodo")
      let download = try await emulator.download(
        emulator.publicDownloadTarget(bucket: "mem", key: "中文/a b.txt"))
      #expect(download.body == body)
      // A wrong CRC is refused with 406 and nothing is stored.
      let bad = try await Self.form(
        emulator, token: Self.token(emulator, "\"scope\":\"mem:x\""), key: "x", body: body,
        fields: [("crc32", "1")])
      #expect(bad.status == 406)
      #expect(
        try await emulator.get(EmulatorHarness.statTarget(bucket: "mem", key: "x")).status
          == 612)
    }
  }

  @Test func tokensAreCheckedAsKodoChecksThem() async throws {
    try await EmulatorHarness.with(Self.configuration()) { emulator in
      let body = Array("data".utf8)
      let expired = Self.token(emulator, "\"scope\":\"mem\"", deadline: 1_000)
      #expect(try await Self.form(emulator, token: expired, key: "a", body: body).status == 401)
      var forged = Self.token(emulator, "\"scope\":\"mem\"")
      forged.replaceSubrange(
        forged.index(
          forged.startIndex, offsetBy: 30)...forged.index(forged.startIndex, offsetBy: 30),
        with: "A")
      #expect(try await Self.form(emulator, token: forged, key: "a", body: body).status == 401)
      let pinned = Self.token(emulator, "\"scope\":\"mem:a\"")
      #expect(try await Self.form(emulator, token: pinned, key: "b", body: body).status == 403)
      let limited = Self.token(emulator, "\"scope\":\"mem\",\"fsizeLimit\":3")
      #expect(try await Self.form(emulator, token: limited, key: "a", body: body).status == 413)
      let images = Self.token(emulator, "\"scope\":\"mem\",\"mimeLimit\":\"image/*\"")
      #expect(try await Self.form(emulator, token: images, key: "a.txt", body: body).status == 403)
      #expect(
        try await Self.form(emulator, token: images, key: "a.jpg", body: body, mime: "image/jpeg")
          .status == 200)
      let custom = Self.token(
        emulator,
        "\"scope\":\"mem\",\"returnBody\":\"{\\\"k\\\":\\\"$(key)\\\",\\\"s\\\":$(fsize)}\"")
      let answer = try await Self.form(emulator, token: custom, key: "r\"q", body: body)
      #expect(answer.status == 200)
      #expect(answer.text == "{\"k\":\"r\\\"q\",\"s\":4}")
    }
  }

  @Test func insertOnlyRefusesOtherContentAndAcceptsTheSame() async throws {
    try await EmulatorHarness.with(Self.configuration()) { emulator in
      let bucketScope = Self.token(emulator, "\"scope\":\"mem\"")
      #expect(try await Self.form(emulator, token: bucketScope, key: "k", body: [1]).status == 200)
      let before = try await emulator.get(EmulatorHarness.statTarget(bucket: "mem", key: "k"))
        .json()
      #expect(try await Self.form(emulator, token: bucketScope, key: "k", body: [1]).status == 200)
      let after = try await emulator.get(EmulatorHarness.statTarget(bucket: "mem", key: "k")).json()
      // The same content again succeeds and leaves the object as it was.
      #expect(before["putTime"]?.int64Value == after["putTime"]?.int64Value)
      #expect(try await Self.form(emulator, token: bucketScope, key: "k", body: [2]).status == 614)
      let insertOnly = Self.token(emulator, "\"scope\":\"mem:k\",\"insertOnly\":1")
      #expect(try await Self.form(emulator, token: insertOnly, key: "k", body: [2]).status == 614)
      let overwrite = Self.token(emulator, "\"scope\":\"mem:k\"")
      #expect(try await Self.form(emulator, token: overwrite, key: "k", body: [2]).status == 200)
      let download = try await emulator.download("/dl/mem/k")
      #expect(download.body == [2])
    }
  }

  @Test func aReadOnlyBucketRefusesWrites() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try tree.write("a.txt", Array("a".utf8))
    let configuration = Self.configuration([.directory("ro", path: tree.path)])
    try await EmulatorHarness.with(configuration) { emulator in
      let token = Self.token(emulator, "\"scope\":\"ro\"")
      let form = try await Self.form(emulator, token: token, key: "b", body: [1])
      #expect(form.status == 403)
      let delete = try await Self.rs(emulator, "/delete/" + Self.entry("ro", "a.txt"))
      #expect(delete.status == 403)
      #expect(FileManager.default.fileExists(atPath: tree.path + "/a.txt"))
      #expect(!FileManager.default.fileExists(atPath: tree.path + "/.kodo-emulator"))
    }
  }

  @Test func rsOperationsChangeTheStore() async throws {
    try await EmulatorHarness.with(Self.configuration()) { emulator in
      let a = Self.entry("seeded", "a.txt")
      let moved = Self.entry("mem", "moved.txt")
      #expect(try await Self.rs(emulator, "/copy/\(a)/\(moved)").status == 200)
      #expect(try await Self.rs(emulator, "/copy/\(a)/\(moved)/force/false").status == 614)
      #expect(try await Self.rs(emulator, "/move/\(a)/\(moved)/force/true").status == 200)
      #expect(try await Self.rs(emulator, "/delete/\(a)").status == 612)
      let body = try await emulator.download("/dl/mem/moved.txt")
      #expect(body.body == SampleObjects.body(for: "a.txt"))
      let mime = URLSafeBase64.encode("text/x-test")
      let value = URLSafeBase64.encode("v1")
      #expect(
        try await Self.rs(emulator, "/chgm/\(moved)/mime/\(mime)/x-qn-meta-k/\(value)").status
          == 200)
      #expect(try await Self.rs(emulator, "/chtype/\(moved)/type/2").status == 200)
      #expect(try await Self.rs(emulator, "/chstatus/\(moved)/status/1").status == 200)
      #expect(try await Self.rs(emulator, "/restoreAr/\(moved)/freezeAfterDays/3").status == 200)
      let stat = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "mem", key: "moved.txt")
      ).json()
      #expect(stat["mimeType"]?.stringValue == "text/x-test")
      #expect(stat["x-qn-meta"]?["k"]?.stringValue == "v1")
      #expect(stat["type"]?.int64Value == 2)
      #expect(stat["status"]?.int64Value == 1)
      #expect(stat["restoreStatus"]?.int64Value == 2)
      #expect(try await Self.rs(emulator, "/delete/\(moved)").status == 200)
      #expect(try await Self.rs(emulator, "/delete/\(moved)").status == 612)
    }
  }

  @Test func batchAnswers298WhenSomeOpsFail() async throws {
    try await EmulatorHarness.with(Self.configuration()) { emulator in
      var form = QueryString()
      form.append("op", "/delete/" + Self.entry("seeded", "a.txt"))
      form.append("op", "delete/" + Self.entry("seeded", "missing"))
      form.append(
        "op", "/copy/\(Self.entry("seeded", "b0.txt"))/\(Self.entry("mem", "c"))/force/false")
      let answer = try await emulator.response(
        to: emulator.request("POST", "/batch", body: Array(form.encoded.utf8)))
      #expect(answer.status == 298, "\(answer.text)")
      let results = try #require(try answer.json().arrayValue)
      #expect(results.map { $0["code"]?.int64Value } == [200, 612, 200])
      #expect(results[1]["data"]?["error"]?.stringValue != nil)
      var allGood = QueryString()
      allGood.append("op", "/delete/" + Self.entry("mem", "c"))
      let second = try await emulator.response(
        to: emulator.request("POST", "/batch", body: Array(allGood.encoded.utf8)))
      #expect(second.status == 200)
    }
  }

  @Test func resumableV2UploadsInParts() async throws {
    try await EmulatorHarness.with(Self.configuration()) { emulator in
      let key = "big/文件.bin"
      let token = Self.token(emulator, "\"scope\":\"mem:\(key)\"")
      let auth = [("Authorization", "UpToken " + token)]
      let base = "/buckets/mem/objects/\(URLSafeBase64.encode(key))/uploads"
      func send(
        _ method: String, _ target: String, _ body: [UInt8] = [], _ extra: [(String, String)] = []
      )
        async throws -> RawHTTPResponse
      {
        try await emulator.response(
          to: RawHTTPRequest(
            method: method, target: target,
            headers: [("Host", emulator.hostHeader)] + auth + extra, body: body))
      }
      let initiated = try await send("POST", base)
      #expect(initiated.status == 200, "\(initiated.text)")
      let id = try #require(try initiated.json()["uploadId"]?.stringValue)
      let first = [UInt8](repeating: 7, count: 1 << 20)
      let second = Array("tail".utf8)
      let wrongMD5 = try await send(
        "PUT", "\(base)/\(id)/1", first, [("Content-MD5", String(repeating: "0", count: 32))])
      #expect(wrongMD5.status == 400)
      let one = try await send(
        "PUT", "\(base)/\(id)/1", first, [("Content-MD5", Hex.encode(Digest.md5(first)))])
      #expect(one.status == 200, "\(one.text)")
      let two = try await send("PUT", "\(base)/\(id)/2", second)
      let etag1 = try #require(try one.json()["etag"]?.stringValue)
      let etag2 = try #require(try two.json()["etag"]?.stringValue)
      let listed = try await send("GET", "\(base)/\(id)")
      #expect(try listed.json()["parts"]?.arrayValue?.count == 2)
      let backwards = try await send(
        "POST", "\(base)/\(id)",
        Array(
          "{\"parts\":[{\"etag\":\"\(etag2)\",\"partNumber\":2},{\"etag\":\"\(etag1)\",\"partNumber\":1}]}"
            .utf8))
      #expect(backwards.status == 400)
      let completed = try await send(
        "POST", "\(base)/\(id)",
        Array(
          "{\"parts\":[{\"etag\":\"\(etag1)\",\"partNumber\":1},{\"etag\":\"\(etag2)\",\"partNumber\":2}],\"fname\":null,\"mimeType\":null,\"metadata\":null,\"customVars\":null}"
            .utf8))
      #expect(completed.status == 200, "\(completed.text)")
      // The hash follows the parts: SHA-1 of each, combined as the qetag combines blocks.
      let expected = QETag.hash(blockDigests: [Digest.sha1(first), Digest.sha1(second)])
      #expect(try completed.json()["hash"]?.stringValue == expected)
      let download = try await emulator.download(
        emulator.publicDownloadTarget(bucket: "mem", key: key))
      #expect(download.body == first + second)
      #expect(try await send("GET", "\(base)/\(id)").status == 612)
    }
  }

  @Test func uploadSessionsExpire() async throws {
    var configuration = Self.configuration()
    configuration.uploadTTLSeconds = 1
    let clock = MutableClock(1_900_000_000)
    configuration.clock = WallClock { Date(timeIntervalSince1970: TimeInterval(clock.value)) }
    try await EmulatorHarness.with(configuration) { emulator in
      let token = Self.token(emulator, "\"scope\":\"mem:k\"", deadline: 2_000_000_000)
      let base = "/buckets/mem/objects/\(URLSafeBase64.encode("k"))/uploads"
      let headers = [("Host", emulator.hostHeader), ("Authorization", "UpToken " + token)]
      let initiated = try await emulator.response(
        to: RawHTTPRequest(method: "POST", target: base, headers: headers))
      let id = try #require(try initiated.json()["uploadId"]?.stringValue)
      clock.value += 5
      let part = try await emulator.response(
        to: RawHTTPRequest(method: "PUT", target: "\(base)/\(id)/1", headers: headers, body: [1]))
      #expect(part.status == 612)
    }
  }
}

/// A clock tests move by hand.
final class MutableClock: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds: Int64

  init(_ seconds: Int64) { self.seconds = seconds }

  var value: Int64 {
    get { lock.withLock { seconds } }
    set { lock.withLock { seconds = newValue } }
  }
}

/// Resumable v1: `mkblk`, `bput`, `mkfile`, and 701 for a context the emulator does not hold.
@Suite struct KodoResumableV1Tests {
  @Test func blocksAreJoinedByMkfile() async throws {
    try await EmulatorHarness.with(KodoWriteTests.configuration()) { emulator in
      let token = KodoWriteTests.token(emulator, "\"scope\":\"mem\"")
      func post(_ target: String, _ body: [UInt8]) async throws -> RawHTTPResponse {
        try await emulator.response(
          to: RawHTTPRequest(
            method: "POST", target: target,
            headers: [("Host", emulator.hostHeader), ("Authorization", "UpToken " + token)],
            body: body))
      }
      let block1 = [UInt8](repeating: 5, count: QETag.blockSize)
      let block2 = Array("the tail".utf8)
      let first = try await post("/mkblk/\(block1.count)", Array(block1[..<1_000]))
      #expect(first.status == 200, "\(first.text)")
      let firstJSON = try first.json()
      #expect(firstJSON["offset"]?.int64Value == 1_000)
      let ctx1 = try #require(firstJSON["ctx"]?.stringValue)
      let rest = try await post("/bput/\(ctx1)/1000", Array(block1[1_000...]))
      #expect(rest.status == 200, "\(rest.text)")
      #expect(try rest.json()["crc32"]?.int64Value == Int64(CRC32Check.of(Array(block1[1_000...]))))
      let second = try await post("/mkblk/\(block2.count)", block2)
      let ctx2 = try #require(try second.json()["ctx"]?.stringValue)
      #expect(try await post("/bput/nonsense/0", [1]).status == 701)
      let key = URLSafeBase64.encode("v1/文件.bin")
      let mime = URLSafeBase64.encode("application/x-test")
      let size = block1.count + block2.count
      let made = try await post(
        "/mkfile/\(size)/mimeType/\(mime)/key/\(key)", Array("\(ctx1),\(ctx2)".utf8))
      #expect(made.status == 200, "\(made.text)")
      #expect(try made.json()["hash"]?.stringValue == QETag.hash(of: block1 + block2))
      let download = try await emulator.download(
        emulator.publicDownloadTarget(bucket: "mem", key: "v1/文件.bin"))
      #expect(download.body == block1 + block2)
      #expect(download.header("Content-Type") == "application/x-test")
      // The blocks are gone once used.
      #expect(
        try await post("/mkfile/\(size)/key/\(key)", Array("\(ctx1),\(ctx2)".utf8)).status == 701)
    }
  }
}

/// CRC-32/IEEE computed independently of the emulator (bitwise, no table).
enum CRC32Check {
  static func of(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}

/// Write bodies may be large, so what all connections' bodies hold together is bounded.
@Suite struct BodyBudgetTests {
  @Test func bodiesInFlightAreBoundedAndGivenBack() async throws {
    var configuration = KodoWriteTests.configuration()
    configuration.limits.maximumBodiesInFlight = 4_000
    try await EmulatorHarness.with(configuration) { emulator in
      let token = KodoWriteTests.token(emulator, "\"scope\":\"mem\"")
      // Each fits the budget alone, one after the other: the budget is given back.
      for index in 0..<3 {
        let answer = try await KodoWriteTests.form(
          emulator, token: token, key: "k\(index)", body: [UInt8](repeating: 1, count: 3_000))
        #expect(answer.status == 200, "\(answer.text)")
      }
      let tooMuch = try await emulator.send(
        RawHTTPRequest(
          method: "POST", target: "/",
          headers: [
            ("Host", emulator.hostHeader),
            ("Content-Type", "multipart/form-data; boundary=b"),
          ], body: [UInt8](repeating: 0x41, count: 5_000)))
      #expect(tooMuch.response?.status == 413)
      let after = try await KodoWriteTests.form(emulator, token: token, key: "k", body: [2])
      #expect(after.status == 200)
    }
  }
}

/// The form parser cuts at bytes: quoted parameters holding `;` and escaped quotes, header names
/// in any case, a combining mark after a delimiter.
@Suite struct FormParsingTests {
  @Test func awkwardButValidFormsAreRead() async throws {
    try await EmulatorHarness.with(KodoWriteTests.configuration()) { emulator in
      let token = KodoWriteTests.token(
        emulator,
        "\"scope\":\"mem\",\"returnBody\":\"{\\\"f\\\":\\\"$(fname)\\\",\\\"k\\\":\\\"$(key)\\\"}\""
      )
      let boundary = "x;y"
      var body = Array(
        "--\(boundary)\r\ncontent-disposition: form-data; name=token\r\n\r\n\(token)\r\n".utf8)
      body += Array(
        "--\(boundary)\r\nCONTENT-DISPOSITION: form-data; name=\"key\"\r\n\r\n\u{301}key;\u{301}\r\n"
          .utf8)
      body += Array(
        ("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; "
          + "filename=\"a;b \\\"q\\\".txt\"\r\nContent-Type: text/plain\r\n\r\n").utf8)
      body += Array("body".utf8) + Array("\r\n--\(boundary)--\r\n".utf8)
      let answer = try await emulator.response(
        to: RawHTTPRequest(
          method: "POST", target: "/",
          headers: [
            ("Host", emulator.hostHeader),
            ("Content-Type", "multipart/form-data; boundary=\"\(boundary)\""),
          ], body: body))
      #expect(answer.status == 200, "\(answer.text)")
      let json = try answer.json()
      #expect(json["f"]?.stringValue == "a;b \"q\".txt")
      #expect(json["k"]?.stringValue == "\u{301}key;\u{301}")
    }
  }
}
