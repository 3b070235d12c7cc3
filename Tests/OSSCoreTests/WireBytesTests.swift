import KodoEmulator
import OSSCore
import StorageCore
import Testing

/// OSS's query strings, Authorization headers and metadata headers are cut at bytes: a
/// delimiter followed by U+0301 is still a delimiter, as it is to OSS (issue 20).
@Suite("OSS protocol text at bytes")
struct OSSWireBytesTests {
  @Test func aQueryParameterAfterACombiningMarkIsAParameter() throws {
    let request = try #require(
      OSSIncomingRequest(
        method: "GET", pathStyleTarget: "/b/k?a=1&%CC%81b=2&\u{301}c", headers: [:]))
    #expect(
      request.query.map(\.name).map { Array($0.utf8) }
        == ["a", "\u{301}b", "\u{301}c"].map { Array($0.utf8) })
    #expect(request.query.map(\.value) == ["1", "2", nil])
    #expect(request.parameter("a") == "1")
  }

  @Test func anAuthorizationHeaderIsCutAtItsBytes() {
    let verifier = OSSVerifier(region: "cn-hangzhou") { _ in nil }
    let request = OSSIncomingRequest(
      method: "GET", bucket: "b", key: "k", query: [],
      headers: [
        "Authorization": "OSS \u{301}ak:signature", "Date": "Sun, 06 Nov 1994 08:49:37 GMT",
      ])
    #expect(throws: OSSVerificationFailure.self) {
      _ = try verifier.verify(request, now: 784_111_777)
    }
    do {
      _ = try verifier.verify(request, now: 784_111_777)
    } catch {
      // The scheme is "OSS " whatever follows it: the key is looked up (and unknown).
      #expect(error.code == "InvalidAccessKeyId", "\(error)")
    }
  }

  @Test func metadataHeadersKeepTheirNamesByteForByte() throws {
    let head = try OSSAnswers.objectHead([
      "Content-Length": "1", "Last-Modified": "Fri, 24 Feb 2012 06:07:48 GMT",
      "X-OSS-Meta-\u{301}a": "mark", "x-oss-meta-\u{212A}": "kelvin",
      "x-oss-meta-k": "k", "x-oss-meta-": "empty",
    ])
    #expect(head.meta.count == 3, "\(head.meta)")
    #expect(head.meta.first { Array($0.key.utf8) == Array("\u{301}a".utf8) }?.value == "mark")
    #expect(head.meta.first { Array($0.key.utf8) == Array("\u{212A}".utf8) }?.value == "kelvin")
  }

  @Test func endpointsAndRegionsAreReadAtBytes() throws {
    #expect(try OSSEndpoint("oss-cn-hangzhou.aliyuncs.com").regionID == "cn-hangzhou")
    #expect(try OSSEndpoint("oss-cn-hangzhou-internal.aliyuncs.com").regionID == "cn-hangzhou")
    #expect(try OSSEndpoint("cn-hangzhou.oss.aliyuncs.com").regionID == "cn-hangzhou")
    #expect(try OSSEndpoint("http://127.0.0.1:9000").isIPAddress)
    #expect(try OSSEndpoint("http://[::1]:9000").isIPAddress)
    #expect(throws: StorageError.self) { try OSSEndpoint("http://h:\u{301}80") }
    #expect(try OSSRegion.id("oss-cn-beijing-internal") == "cn-beijing")
  }
}
