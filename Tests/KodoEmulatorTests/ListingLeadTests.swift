import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// List answers go out in two parts, the marker first (chunked, so the client can ask for the
/// next page while the entries are written), and stay whole for HTTP/1.0 and broken deliveries.
@Suite struct ListingLeadTests {
  /// `request` sent as HTTP/1.0 on a connection of its own.
  private func sendAsHTTP10(_ request: RawHTTPRequest, port: Int) async throws -> RawHTTPResponse {
    var bytes = request.bytes
    let line = Array("HTTP/1.1\r\n".utf8)
    let at = try #require(
      (0...(bytes.count - line.count)).first { bytes[$0..<$0 + line.count].elementsEqual(line) })
    bytes.replaceSubrange(at..<at + line.count, with: Array("HTTP/1.0\r\n".utf8))
    let result = try await RawHTTPClient.withConnection(port: port) { connection in
      try await connection.send(bytes)
      return try await connection.readResponse()
    }
    return try #require(result.response, "\(result.summary)")
  }

  @Test func aKodoListAnswerIsChunkedWithItsMarkerFirstAndWholeForHTTP10() async throws {
    let configuration = EmulatorConfiguration(buckets: [.synthetic("big", count: 30)], seed: 3)
    try await EmulatorHarness.with(configuration) { emulator in
      let target = EmulatorHarness.listTarget(bucket: "big", limit: 10)
      let chunked = try await emulator.get(target)
      #expect(chunked.status == 200)
      #expect(chunked.header("Transfer-Encoding") == "chunked")
      #expect(chunked.header("Content-Length") == nil)
      #expect(chunked.text.hasPrefix(#"{"marker":""#))
      let page = try chunked.json()
      #expect(page["items"]?.arrayValue?.count == 10)
      let whole = try await sendAsHTTP10(emulator.request("GET", target), port: emulator.port)
      #expect(whole.status == 200)
      #expect(whole.header("Content-Length") == String(chunked.body.count))
      #expect(whole.header("Transfer-Encoding") == nil)
      #expect(whole.body == chunked.body)
    }
  }

  @Test func anOSSListAnswerIsChunkedWithItsTokenFirstAndWholeForHTTP10() async throws {
    let configuration = OSSTestClient.configuration([.synthetic("big", count: 30)])
    try await EmulatorHarness.with(configuration) { emulator in
      let client = try OSSTestClient(emulator, version: .v4)
      let request = OSSRequest(
        method: "GET", bucket: "big",
        query: [OSSQueryItem("list-type", "2"), OSSQueryItem("max-keys", "10")])
      let chunked = try await client.send(request)
      #expect(chunked.status == 200)
      #expect(chunked.header("Transfer-Encoding") == "chunked")
      let result = try OSSAnswers.listObjects(chunked.body, encodingType: nil)
      #expect(result.objects.count == 10 && result.isTruncated)
      let quick = try #require(OSSAnswers.listContinuation(chunked.body, encodingType: nil))
      #expect(quick.nextContinuationToken == result.nextContinuationToken)
    }
  }
}
