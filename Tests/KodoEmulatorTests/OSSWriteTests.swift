import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// `--protocol oss` writes: PutObject, multipart, DeleteObject, DeleteMultipleObjects,
/// CopyObject, UploadPartCopy and presigned PUT, with OSS's error codes.
@Suite struct OSSWriteTests {
  private func with(_ body: (EmulatorHarness, OSSTestClient) async throws -> Void) async throws {
    let configuration = OSSTestClient.configuration([
      .memory("mem"), .objects("seeded", SampleObjects.objects), .synthetic("ro", count: 10),
    ])
    try await EmulatorHarness.with(configuration) { emulator in
      try await body(emulator, try OSSTestClient(emulator))
    }
  }

  private static func md5(_ bytes: [UInt8]) -> String {
    Data(Digest.md5(bytes)).base64EncodedString()
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func putObjectChecksDigestAndOverwrite(_ version: OSSSigner.Version) async throws {
    try await with { emulator, _ in
      let client = try OSSTestClient(emulator, version: version)
      let body = Array("hello oss\n".utf8)
      let key = "中文/文件 名.txt"
      let put = try await client.send(
        OSSRequest(
          method: "PUT", bucket: "mem", key: key,
          headers: [
            "Content-MD5": Self.md5(body), "Content-Type": "text/plain",
            "x-oss-meta-author": "kodo", "x-oss-storage-class": "IA",
          ]), body: body)
      #expect(put.status == 200, "\(put.text)")
      let etag = "\"" + Hex.encode(Digest.md5(body)).uppercased() + "\""
      #expect(put.header("ETag") == etag)
      #expect(put.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(body)))
      let get = try await client.send(OSSRequest(bucket: "mem", key: key))
      #expect(get.body == body)
      #expect(get.header("ETag") == etag)
      #expect(get.header("x-oss-meta-author") == "kodo")
      #expect(get.header("x-oss-storage-class") == "IA")
      #expect(get.header("x-oss-object-type") == "Normal")
      let badDigest = try await client.send(
        OSSRequest(method: "PUT", bucket: "mem", key: "x", headers: ["Content-MD5": Self.md5([1])]),
        body: body)
      #expect(badDigest.status == 400)
      #expect(badDigest.ossError?.code == "InvalidDigest")
      let forbidden = try await client.send(
        OSSRequest(
          method: "PUT", bucket: "mem", key: key, headers: ["x-oss-forbid-overwrite": "true"]),
        body: [1])
      #expect(forbidden.status == 409)
      #expect(forbidden.ossError?.code == "FileAlreadyExists")
      let readOnly = try await client.send(
        OSSRequest(method: "PUT", bucket: "ro", key: "x"), body: [1])
      #expect(readOnly.status == 403)
      #expect(readOnly.ossError?.code == "AccessDenied")
    }
  }

  @Test func multipartUploadCombinesPartsAndChecksThem() async throws {
    try await with { _, client in
      let key = "big.bin"
      let initiated = try await client.send(
        OSSRequest(method: "POST", bucket: "mem", key: key, query: [OSSQueryItem("uploads", nil)]))
      #expect(initiated.status == 200, "\(initiated.text)")
      let id = try #require(
        initiated.text.components(separatedBy: "<UploadId>").dropFirst().first?
          .components(separatedBy: "</UploadId>").first)
      let parts: [[UInt8]] = [
        [UInt8](repeating: 1, count: 100 * 1_024), [UInt8](repeating: 2, count: 10),
        [UInt8](repeating: 3, count: 5),
      ]
      var etags = [String]()
      for (offset, part) in parts.enumerated() {
        let answer = try await client.send(
          OSSRequest(
            method: "PUT", bucket: "mem", key: key,
            query: [
              OSSQueryItem("partNumber", String(offset + 1)), OSSQueryItem("uploadId", id),
            ]), body: part)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(part)))
        etags.append(try #require(answer.header("ETag")))
      }
      let listed = try await client.send(
        OSSRequest(bucket: "mem", key: key, query: [OSSQueryItem("uploadId", id)]))
      #expect(listed.text.contains("<HashCrc64ecma>\(CRC64.checksum(parts[0]))</HashCrc64ecma>"))
      let uploads = try await client.send(
        OSSRequest(bucket: "mem", query: [OSSQueryItem("uploads", nil)]))
      #expect(uploads.text.contains("<UploadId>\(id)</UploadId>"))
      func completion(_ numbers: [Int]) -> [UInt8] {
        let items = numbers.map {
          "<Part><PartNumber>\($0)</PartNumber><ETag>\(etags[$0 - 1])</ETag></Part>"
        }
        return Array(
          ("<CompleteMultipartUpload>" + items.joined() + "</CompleteMultipartUpload>").utf8)
      }
      let complete = OSSRequest(
        method: "POST", bucket: "mem", key: key, query: [OSSQueryItem("uploadId", id)])
      let backwards = try await client.send(complete, body: completion([2, 1]))
      #expect(backwards.ossError?.code == "InvalidPartOrder")
      let tooSmall = try await client.send(complete, body: completion([2, 3]))
      #expect(tooSmall.ossError?.code == "EntityTooSmall")
      var wrong = completion([1, 3])
      wrong = Array(
        String(decoding: wrong, as: UTF8.self).replacingOccurrences(
          of: etags[2], with: etags[1]
        ).utf8)
      #expect(try await client.send(complete, body: wrong).ossError?.code == "InvalidPart")
      let done = try await client.send(complete, body: completion([1, 3]))
      #expect(done.status == 200, "\(done.text)")
      let whole = parts[0] + parts[2]
      #expect(done.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(whole)))
      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "mem", key: key))
      #expect(head.header("x-oss-object-type") == "Multipart")
      #expect(head.header("ETag")?.hasSuffix("-2\"") == true)
      #expect(head.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(whole)))
      #expect(try await client.send(OSSRequest(bucket: "mem", key: key)).body == whole)
      let again = try await client.send(complete, body: completion([1, 3]))
      #expect(again.ossError?.code == "NoSuchUpload")
    }
  }

  @Test func deletesAndCopies() async throws {
    try await with { _, client in
      let delete = try await client.send(
        OSSRequest(method: "DELETE", bucket: "seeded", key: "a.txt"))
      #expect(delete.status == 204)
      #expect(try await client.send(OSSRequest(bucket: "seeded", key: "a.txt")).status == 404)
      #expect(
        try await client.send(OSSRequest(method: "DELETE", bucket: "seeded", key: "a.txt")).status
          == 204)
      let body = Array(
        "<Delete><Quiet>false</Quiet><Object><Key>b0.txt</Key></Object><Object><Key>q?x#y&amp;z=1.txt</Key></Object></Delete>"
          .utf8)
      let withoutMD5 = try await client.send(
        OSSRequest(method: "POST", bucket: "seeded", query: [OSSQueryItem("delete", nil)]),
        body: body)
      #expect(withoutMD5.status == 400)
      let deleted = try await client.send(
        OSSRequest(
          method: "POST", bucket: "seeded", query: [OSSQueryItem("delete", nil)],
          headers: ["Content-MD5": Self.md5(body)]), body: body)
      #expect(deleted.status == 200, "\(deleted.text)")
      #expect(deleted.text.contains("<Key>q?x#y&amp;z=1.txt</Key>"))
      #expect(try await client.send(OSSRequest(bucket: "seeded", key: "b0.txt")).status == 404)

      let copy = try await client.send(
        OSSRequest(
          method: "PUT", bucket: "mem", key: "copied.txt",
          headers: [
            "x-oss-copy-source": "/seeded/" + PercentEncoding.encodePath("d e/space file.txt")
          ]))
      #expect(copy.status == 200, "\(copy.text)")
      let copied = try await client.send(OSSRequest(bucket: "mem", key: "copied.txt"))
      #expect(copied.body == SampleObjects.body(for: "d e/space file.txt"))
      let replaced = try await client.send(
        OSSRequest(
          method: "PUT", bucket: "mem", key: "copied.txt",
          headers: [
            "x-oss-copy-source": "/mem/copied.txt", "x-oss-metadata-directive": "REPLACE",
            "Content-Type": "text/x-new", "x-oss-meta-k": "v",
          ]))
      #expect(replaced.status == 200, "\(replaced.text)")
      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "mem", key: "copied.txt"))
      #expect(head.header("Content-Type") == "text/x-new")
      #expect(head.header("x-oss-meta-k") == "v")
      let exists = try await client.send(
        OSSRequest(
          method: "PUT", bucket: "mem", key: "copied.txt",
          headers: ["x-oss-copy-source": "/seeded/z/last.txt", "x-oss-forbid-overwrite": "true"]))
      #expect(exists.ossError?.code == "FileAlreadyExists")
    }
  }

  @Test func uploadPartCopyAndPresignedPut() async throws {
    try await with { emulator, client in
      let initiated = try await client.send(
        OSSRequest(method: "POST", bucket: "mem", key: "pc", query: [OSSQueryItem("uploads", nil)]))
      let id = try #require(
        initiated.text.components(separatedBy: "<UploadId>").dropFirst().first?
          .components(separatedBy: "</UploadId>").first)
      let part = try await client.send(
        OSSRequest(
          method: "PUT", bucket: "mem", key: "pc",
          query: [OSSQueryItem("partNumber", "1"), OSSQueryItem("uploadId", id)],
          headers: ["x-oss-copy-source": "/seeded/a.txt", "x-oss-copy-source-range": "bytes=0-6"]))
      #expect(part.status == 200, "\(part.text)")
      #expect(part.text.contains("<CopyPartResult>"))
      let partETag =
        "\"" + Hex.encode(Digest.md5(Array(SampleObjects.body(for: "a.txt")[0...6]))).uppercased()
        + "\""
      #expect(part.header("ETag") == partETag)
      let aborted = try await client.send(
        OSSRequest(
          method: "DELETE", bucket: "mem", key: "pc", query: [OSSQueryItem("uploadId", id)]))
      #expect(aborted.status == 204)

      for version in [OSSSigner.Version.v1, .v4] {
        let signer = try OSSTestClient(emulator, version: version)
        let target = try signer.presignedTarget(
          OSSRequest(method: "PUT", bucket: "mem", key: "pre-\(version)"))
        let put = try await emulator.response(
          to: RawHTTPRequest(
            method: "PUT", target: target, headers: [("Host", emulator.hostHeader)], body: [9, 9]))
        #expect(put.status == 200, "\(put.text)")
        #expect(
          try await client.send(OSSRequest(bucket: "mem", key: "pre-\(version)")).body == [9, 9])
      }
    }
  }
}
