import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// `--protocol oss`: HeadObject, GetObjectMeta and GetObject (whole and by range).
@Suite struct OSSObjectTests {
  private static let rich = EmulatorObject(
    key: "docs/报告 v1+final.pdf", body: Array(repeating: 42, count: 1_000),
    mimeType: "application/pdf", putTime: 13_603_956_734_587_420,
    md5: "0123456789abcdef0123456789abcdef", meta: ["Author": "alice", "origin": "scan"])

  private func with(_ body: (EmulatorHarness) async throws -> Void) async throws {
    let directory = try OSSHostileKeys.directory()
    defer { directory.remove() }
    let configuration = OSSTestClient.configuration([
      .directory("hostile", path: directory.path), .objects("memory", [Self.rich]),
      .synthetic("big", count: 3_000),
    ])
    try await EmulatorHarness.with(configuration) { emulator in try await body(emulator) }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func headAndGetEveryHostileKey(_ version: OSSSigner.Version) async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator, version: version)
      for key in OSSHostileKeys.keys {
        let body = OSSHostileKeys.body(key)
        for encodeSlashes in [false, true] {
          let head = try await client.send(
            OSSRequest(method: "HEAD", bucket: "hostile", key: key), encodeSlashes: encodeSlashes)
          #expect(head.status == 200, "\(key)")
          #expect(head.body.isEmpty)
          #expect(head.header("Content-Length") == String(body.count), "\(key)")
          #expect(head.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(body)), "\(key)")
          #expect(head.header("x-oss-object-type") == "Normal")
          #expect(head.header("x-oss-storage-class") == "Standard")
          // Not an MD5 the store knows: the qetag's digest (the SHA-1 of a small body), cut.
          let tag = Digest.sha1(body).prefix(16).map { String(format: "%02X", $0) }.joined()
          #expect(head.header("ETag") == "\"" + tag + "\"", "\(key)")
          #expect(head.header("x-oss-request-id") != nil)
          let get = try await client.send(
            OSSRequest(bucket: "hostile", key: key), encodeSlashes: encodeSlashes)
          #expect(get.status == 200, "\(key)")
          #expect(get.body == body, "\(key)")
        }
      }
    }
  }

  @Test func headCarriesEveryHeaderAReadOnlyClientReads() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      let head = try await client.send(
        OSSRequest(method: "HEAD", bucket: "memory", key: Self.rich.key))
      let parsed = try OSSAnswers.objectHead(
        HTTPHeaders(head.headers.map { ($0.name, $0.value) }))
      #expect(parsed.size == 1_000)
      #expect(parsed.contentType == "application/pdf")
      #expect(parsed.etag == "0123456789ABCDEF0123456789ABCDEF")
      #expect(parsed.md5 == "0123456789abcdef0123456789abcdef")
      #expect(head.header("Content-MD5") == "ASNFZ4mrze8BI0VniavN7w==")
      #expect(parsed.crc64 == CRC64.checksum(Self.rich.body))
      #expect(parsed.objectType == "Normal")
      #expect(parsed.storageClass == "Standard")
      #expect(parsed.meta == ["author": "alice", "origin": "scan"])
      #expect(head.header("Last-Modified") == "Sat, 09 Feb 2013 07:41:13 GMT")

      let meta = try await client.send(
        OSSRequest(
          method: "HEAD", bucket: "memory", key: Self.rich.key,
          query: [OSSQueryItem("objectMeta", nil)]))
      #expect(meta.status == 200)
      #expect(meta.header("Content-Length") == "1000")
      #expect(meta.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(Self.rich.body)))
      #expect(meta.header("ETag") == "\"0123456789ABCDEF0123456789ABCDEF\"")
      #expect(meta.header("x-oss-object-type") == nil)
    }
  }

  @Test func rangesFollowOSSWithAndWithoutStandardBehaviour() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      let body = Self.rich.body
      func get(_ range: String, standard: Bool) async throws -> RawHTTPResponse {
        var headers: HTTPHeaders = ["Range": range]
        if standard { headers.set("x-oss-range-behavior", "standard") }
        return try await client.send(
          OSSRequest(bucket: "memory", key: Self.rich.key, headers: headers))
      }
      for standard in [false, true] {
        let middle = try await get("bytes=10-19", standard: standard)
        #expect(middle.status == 206)
        #expect(middle.body == Array(body[10...19]))
        #expect(middle.header("Content-Range") == "bytes 10-19/1000")
        #expect(middle.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(body)))
        let suffix = try await get("bytes=-5", standard: standard)
        #expect(suffix.status == 206 && suffix.body.count == 5)
      }
      // Past the end: OSS ignores the range (200, whole object) unless told to be standard.
      let legacyEnd = try await get("bytes=990-2000", standard: false)
      #expect(legacyEnd.status == 200 && legacyEnd.body == body)
      let standardEnd = try await get("bytes=990-2000", standard: true)
      #expect(standardEnd.status == 206 && standardEnd.body == Array(body[990...]))
      let legacyStart = try await get("bytes=1000-", standard: false)
      #expect(legacyStart.status == 200 && legacyStart.body == body)
      let standardStart = try await get("bytes=1000-", standard: true)
      #expect(standardStart.status == 416)
      #expect(standardStart.ossError?.code == "InvalidRange")
      #expect(standardStart.header("Content-Range") == "bytes */1000")
    }
  }

  @Test func responseOverridesSetHeadersButNeverSplitTheAnswer() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      let overridden = try await client.send(
        OSSRequest(
          bucket: "memory", key: Self.rich.key,
          query: [
            OSSQueryItem("response-content-type", "text/plain"),
            OSSQueryItem("response-content-disposition", "attachment; filename=\"r.pdf\""),
          ]))
      #expect(overridden.status == 200)
      #expect(overridden.header("Content-Type") == "text/plain")
      #expect(overridden.header("Content-Disposition") == "attachment; filename=\"r.pdf\"")
      let injected = try await client.send(
        OSSRequest(
          bucket: "memory", key: Self.rich.key,
          query: [OSSQueryItem("response-content-type", "text/plain\r\nX-Injected: 1")]))
      #expect(injected.status == 400)
      #expect(injected.header("X-Injected") == nil)
      #expect(injected.ossError?.code == "InvalidArgument")
    }
  }

  @Test func conditionalRequests() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      let etag = "\"0123456789ABCDEF0123456789ABCDEF\""
      let modified = "Sat, 09 Feb 2013 07:41:13 GMT"
      func status(_ headers: HTTPHeaders, method: String = "GET") async throws -> Int {
        try await client.send(
          OSSRequest(method: method, bucket: "memory", key: Self.rich.key, headers: headers)
        ).status
      }
      #expect(try await status(["If-None-Match": etag]) == 304)
      #expect(try await status(["If-None-Match": etag], method: "HEAD") == 304)
      #expect(try await status(["If-None-Match": "\"other\""]) == 200)
      #expect(try await status(["If-Match": etag]) == 200)
      #expect(try await status(["If-Match": "\"other\""]) == 412)
      #expect(try await status(["If-Modified-Since": modified]) == 304)
      #expect(try await status(["If-Modified-Since": "Fri, 08 Feb 2013 00:00:00 GMT"]) == 200)
      #expect(try await status(["If-Unmodified-Since": "Fri, 08 Feb 2013 00:00:00 GMT"]) == 412)
      #expect(try await status(["If-Unmodified-Since": modified]) == 200)
      let notModified = try await client.send(
        OSSRequest(bucket: "memory", key: Self.rich.key, headers: ["If-None-Match": etag]))
      #expect(notModified.body.isEmpty)
      #expect(notModified.header("ETag") == etag)
      #expect(notModified.header("x-oss-request-id") != nil)
    }
  }

  @Test func missingKeysAndBucketsAnswerAsOSS() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      let missing = try await client.send(OSSRequest(bucket: "hostile", key: "no such key"))
      #expect(missing.status == 404)
      #expect(missing.header("Content-Type") == "application/xml")
      let error = try #require(missing.ossError)
      #expect(error.code == "NoSuchKey")
      #expect(error.ec == "0026-00000001")
      #expect(error.fields["Key"] == "no such key")
      #expect(error.requestID == missing.header("x-oss-request-id"))
      #expect(missing.header("x-oss-ec") == "0026-00000001")

      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "hostile", key: "nope"))
      #expect(head.status == 404)
      #expect(head.body.isEmpty)
      #expect(head.ossError?.code == "NoSuchKey")

      for request in [
        OSSRequest(bucket: "nosuch", key: "a.txt"), OSSRequest(bucket: "nosuch"),
        OSSRequest(bucket: "nosuch", query: [OSSQueryItem("bucketInfo", nil)]),
      ] {
        let response = try await client.send(request)
        #expect(response.status == 404)
        #expect(response.ossError?.code == "NoSuchBucket")
        #expect(response.ossError?.fields["BucketName"] == "nosuch")
      }
    }
  }

  @Test func syntheticObjectsHeadAndGetWithTheirAttributes() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      let page = try OSSAnswers.listObjects(
        try await client.send(
          OSSRequest(
            bucket: "big", query: [OSSQueryItem("list-type", "2"), OSSQueryItem("max-keys", "400")])
        ).body, encodingType: nil)
      let standard = try #require(
        page.objects.first { $0.storageClass == "Standard" && $0.type == "Multipart" })
      let get = try await client.send(OSSRequest(bucket: "big", key: standard.key))
      #expect(get.status == 200)
      #expect(get.body.count == Int(standard.size))
      #expect(get.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(get.body)))
      #expect(get.header("ETag") == "\"" + (standard.etag ?? "") + "\"")
      let appendable = try #require(page.objects.first { $0.type == "Appendable" })
      let head = try await client.send(
        OSSRequest(method: "HEAD", bucket: "big", key: appendable.key))
      #expect(head.header("x-oss-next-append-position") == String(appendable.size))
      let archived = try #require(
        page.objects.first { $0.storageClass == "Archive" && $0.restore == nil })
      let frozen = try await client.send(OSSRequest(bucket: "big", key: archived.key))
      #expect(frozen.status == 403)
      #expect(frozen.ossError?.code == "InvalidObjectState")
      let restored = try #require(page.objects.first { $0.restore?.ongoing == false })
      let restoredHead = try await client.send(
        OSSRequest(method: "HEAD", bucket: "big", key: restored.key))
      #expect(restoredHead.header("x-oss-restore")?.hasPrefix("ongoing-request=\"false\"") == true)
      #expect(try await client.send(OSSRequest(bucket: "big", key: restored.key)).status == 200)
    }
  }
}
