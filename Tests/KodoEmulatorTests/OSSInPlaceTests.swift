import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// `--protocol oss` changes in place: RestoreObject's answers, and a copy onto itself that
/// holds only while the source is the object read (`x-oss-copy-source-if-match`).
@Suite struct OSSInPlaceTests {
  private func with(_ body: (OSSTestClient) async throws -> Void) async throws {
    let configuration = OSSTestClient.configuration([
      .objects(
        "b",
        [
          EmulatorObject(key: "hot.txt", body: Array("hot".utf8), mimeType: "text/plain"),
          EmulatorObject(key: "cold.bin", body: Array("cold".utf8), type: 2),
          EmulatorObject(key: "thawing.bin", body: Array("t".utf8), type: 3, restoreStatus: 1),
        ]),
      .synthetic("ro", count: 3),
    ])
    try await EmulatorHarness.with(configuration) { emulator in
      try await body(try OSSTestClient(emulator))
    }
  }

  private static func restore(_ bucket: String, _ key: String, days: Int = 2) -> OSSRequest {
    OSSWriteRequests.restore(
      bucket: bucket, key: key, body: OSSWriteRequests.restoreBody(days: days))
  }

  @Test func restoreObjectAnswersAsOSSDoes() async throws {
    try await with { client in
      let body = OSSWriteRequests.restoreBody(days: 2)
      let first = try await client.send(Self.restore("b", "cold.bin"), body: body)
      #expect(first.status == 202, "\(first.text)")
      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "b", key: "cold.bin"))
      #expect(head.header("x-oss-restore")?.hasPrefix("ongoing-request=\"false\"") == true)
      let again = try await client.send(Self.restore("b", "cold.bin"), body: body)
      #expect(again.status == 200, "a restored copy is extended: \(again.text)")
      let thawing = try await client.send(Self.restore("b", "thawing.bin"), body: body)
      #expect(thawing.status == 409, "\(thawing.text)")
      #expect(thawing.ossError?.code == "RestoreAlreadyInProgress")
      let hot = try await client.send(Self.restore("b", "hot.txt"), body: body)
      #expect(hot.status == 400, "\(hot.text)")
      #expect(hot.ossError?.code == "OperationNotSupported")
      let missing = try await client.send(Self.restore("b", "nope"), body: body)
      #expect(missing.status == 404)
      #expect(missing.ossError?.code == "NoSuchKey")
      let badDays = OSSWriteRequests.restoreBody(days: 0)
      let malformed = try await client.send(
        OSSWriteRequests.restore(bucket: "b", key: "cold.bin", body: badDays), body: badDays)
      #expect(malformed.status == 400)
      #expect(malformed.ossError?.code == "MalformedXML")
      let wrongDigest = try await client.send(Self.restore("b", "cold.bin", days: 3), body: body)
      #expect(wrongDigest.ossError?.code == "InvalidDigest")
      let readOnly = try await client.send(Self.restore("ro", "x"), body: body)
      #expect(readOnly.status == 403)
    }
  }

  @Test func aCopyOntoItselfHoldsOnlyWhileTheETagMatches() async throws {
    try await with { client in
      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "b", key: "hot.txt"))
      let etag = try #require(head.header("ETag"))
      func replace(ifMatch: String) -> OSSRequest {
        OSSWriteRequests.copy(
          from: ObjectLocation(bucket: "b", key: "hot.txt"), bucket: "b", key: "hot.txt",
          headers: [
            "x-oss-metadata-directive": "REPLACE", "Content-Type": "text/csv",
            "x-oss-copy-source-if-match": ifMatch,
          ])
      }
      let stale = try await client.send(replace(ifMatch: "\"0123456789ABCDEF\""))
      #expect(stale.status == 412, "\(stale.text)")
      #expect(stale.ossError?.code == "PreconditionFailed")
      let unchanged = try await client.send(OSSRequest(bucket: "b", key: "hot.txt"))
      #expect(unchanged.header("Content-Type") == "text/plain")
      let current = try await client.send(replace(ifMatch: etag))
      #expect(current.status == 200, "\(current.text)")
      let answered = try OSSAnswers.resultETag(
        current.body, root: "CopyObjectResult", requestID: nil)
      #expect("\"" + answered + "\"" == etag, "\(current.text)")
      let changed = try await client.send(OSSRequest(bucket: "b", key: "hot.txt"))
      #expect(changed.header("Content-Type") == "text/csv")
      #expect(changed.header("ETag") == etag, "the content, and so the ETag, stays")
      #expect(changed.body == Array("hot".utf8))
    }
  }
}
