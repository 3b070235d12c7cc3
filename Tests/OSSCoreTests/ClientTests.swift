import Foundation
import KodoTestSupport
import OSSCore
import PropertyBased
import StorageCore
import Synchronization
import Testing

/// OSSClient's requests as sent (through a stub transport): addressing, signing, the marker it
/// hides the continuation token behind, and how it names storage classes.
@Suite("OSSClient requests and values")
struct ClientTests {
  static func client(endpoint: String, transport: StubTransport, pathStyle: Bool = false) throws
    -> OSSClient
  {
    try OSSClient(
      credentials: Credentials(accessKey: "AK", secretKey: "SK", securityToken: "TOKEN"),
      transport: transport,
      options: OSSClient.Options(
        addressing: OSSAddressing(endpoint: try OSSEndpoint(endpoint), pathStyle: pathStyle),
        region: "cn-hangzhou", retry: RetryPolicy(maxAttempts: 1)))
  }

  static let page = """
    <?xml version="1.0" encoding="UTF-8"?>
    <ListBucketResult><Name>photos</Name><Prefix></Prefix><MaxKeys>2</MaxKeys>\
    <EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>\
    <NextContinuationToken>tok%2B1%20x</NextContinuationToken><KeyCount>2</KeyCount>\
    <Contents><Key>a%2Bb%20c</Key><LastModified>2025-06-02T10:00:00.000Z</LastModified>\
    <ETag>"ABC"</ETag><Type>Multipart</Type><Size>3</Size><StorageClass>ColdArchive</StorageClass>\
    </Contents><CommonPrefixes><Prefix>dir%2F</Prefix></CommonPrefixes></ListBucketResult>
    """

  @Test func listingIsVirtualHostedOnAliyunAndItsTokenHidesBehindKodosMarker() async throws {
    let transport = StubTransport { _, _ in
      .response(
        HTTPResponse(
          status: 200, headers: ["x-oss-request-id": "R1"], body: Array(Self.page.utf8)))
    }
    let client = try Self.client(
      endpoint: "https://oss-cn-hangzhou.aliyuncs.com", transport: transport)
    let page = try await client.listPage(
      ListRequest(bucket: "photos", prefix: "p q+", delimiter: "/", limit: 2))
    #expect(page.commonPrefixes == ["dir/"])
    #expect(page.items.map(\.key) == ["a+b c"])
    #expect(page.items.first?.storageClass.name == "cold_archive")
    #expect(page.items.first?.objectType == "multipart")
    #expect(page.items.first?.etag == "ABC")
    let marker = try #require(page.nextMarker)
    #expect(!marker.contains("tok"), "the token is not shown as is")
    let sent = try #require(transport.requests.first)
    #expect(sent.url.hasPrefix("https://photos.oss-cn-hangzhou.aliyuncs.com/?"))
    #expect(sent.url.contains("encoding-type=url") && sent.url.contains("prefix=p%20q%2B"))
    #expect(sent.headers["Authorization"]?.hasPrefix("OSS4-HMAC-SHA256 Credential=AK/") == true)
    #expect(sent.headers["x-oss-security-token"] == "TOKEN")
    // The marker resumes with the decoded token, encoded once on the wire.
    _ = try await client.listPage(ListRequest(bucket: "photos", marker: marker))
    let second = try #require(transport.requests.last)
    #expect(second.url.contains("continuation-token=tok%2B1%20x"), "\(second.url)")
    await #expect(throws: StorageError.self) {
      _ = try await client.listPage(ListRequest(bucket: "photos", marker: "garbage"))
    }
  }

  /// The marker read early from the head of an answer (each prefix of it shown in turn) is the
  /// complete answer's, or none is read.
  @Test(arguments: [
    (page, true),
    (page.replacingOccurrences(of: "<IsTruncated>true", with: "<IsTruncated>false"), true),
    (
      page.replacingOccurrences(of: "tok%2B1%20x", with: "t%26%3C%3E%22o%E7%85%A7k")
        .replacingOccurrences(of: "<KeyCount>2</KeyCount>", with: ""), true
    ),
  ])
  func theEarlyMarkerIsTheAnswers(_ body: String, early: Bool) async throws {
    let transport = StubTransport { _, _ in
      .response(
        HTTPResponse(status: 200, headers: ["x-oss-request-id": "R1"], body: Array(body.utf8)))
    }
    let client = try Self.client(endpoint: "http://127.0.0.1:9000", transport: transport)
    let reported = Mutex<[String?]>([])
    let watch = MarkerWatch { marker in reported.withLock { $0.append(marker) } }
    let answer = try await MarkerWatch.$current.withValue(watch) {
      try await client.listPageAnswer(ListRequest(bucket: "photos"))
    }
    let decoded = try answer.decode()
    #expect(answer.nextMarker == decoded.nextMarker)
    #expect(reported.withLock { $0 } == (early ? [decoded.nextMarker] : []))
  }

  @Test func pathStyleAndTheBucketsBaseURL() async throws {
    let transport = StubTransport { _, _ in
      .response(
        HTTPResponse(
          status: 200,
          headers: [
            "x-oss-request-id": "R1", "Content-Length": "3",
            "Last-Modified": "Mon, 02 Jun 2025 10:00:00 GMT",
          ]))
    }
    let client = try Self.client(endpoint: "http://127.0.0.1:9000", transport: transport)
    let details = try await client.stat(bucket: "photos", key: "a b/c")
    #expect(details.object.size == 3 && details.object.storageClass.name == "standard")
    #expect(transport.requests.first?.url == "http://127.0.0.1:9000/photos/a%20b/c")
    let signer = try await client.linkSigner(
      bucket: "photos", domain: DomainChoice(), signed: false)
    #expect(signer.domain.baseURL == "http://127.0.0.1:9000/photos")
    #expect(try signer.url("a b", nil) == "http://127.0.0.1:9000/photos/a%20b")
    #expect(signer.maximumLifetime == 604_800)
  }

  @Test(arguments: [
    ("Standard", "standard"), ("IA", "ia"), ("Archive", "archive"), ("ColdArchive", "cold_archive"),
    ("DeepColdArchive", "deep_cold_archive"), ("FutureTier2", "future_tier2"),
  ])
  func storageClassNames(_ service: String, _ name: String) {
    #expect(OSSClient.storageClass(service).name == name)
    #expect(OSSClient.storageClass(service).serviceName == service)
  }

  /// The byte-level name of ASCII classes (the listing's fast path) is the one the loop over
  /// characters gives, CR LF (one character) included; other text takes the loop.
  @Test func storageClassNamesOfASCIIAreTheCharacterLoops() async {
    await seededCheck(
      count: fuzzCount(500),
      input: Gen<Character?>.element(of: Array("aZz09 -_\r\nAé\u{301}")).map { $0 ?? "a" }
        .string(of: 0...12)
    ) { service in
      #expect(
        OSSClient.storageClass(service).name == OSSClient.storageClassName(characters: service),
        "\(service.debugDescription)")
    }
  }
}
