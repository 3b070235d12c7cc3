import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

let vectorCredentials = Credentials(accessKey: "MY_ACCESS_KEY", secretKey: "MY_SECRET_KEY")
/// 2024-01-01T00:00:00Z, the vectors' X-Qiniu-Date.
let vectorClock = WallClock.fixed(unixSeconds: 1_704_067_200)

func client(
  _ transport: StubTransport,
  hosts: ServiceHosts = ServiceHosts(
    uc: "https://uc.qiniuapi.com", rs: "https://rs-z0.qiniuapi.com",
    rsf: "https://rsf-z0.qiniuapi.com"),
  retries: Int = 4, ucHosts: [String] = RegionQuery.defaultUCHosts, cache: String? = nil,
  observer: (@Sendable (ClientNotice) -> Void)? = nil
) -> KodoClient {
  KodoClient(
    credentials: vectorCredentials, transport: transport,
    options: KodoClient.Options(
      hosts: hosts, ucHosts: ucHosts,
      retry: RetryPolicy(maxAttempts: retries, baseDelay: .milliseconds(1), sleep: { _ in }),
      clock: vectorClock, regionCacheDirectory: cache, observer: observer))
}

func kodoError(_ body: () async throws -> Void) async -> StorageError? {
  do {
    try await body()
    return nil
  } catch let error as StorageError {
    return error
  } catch {
    Issue.record("unexpected error type: \(error)")
    return nil
  }
}

@Suite("Requests match the official vectors byte for byte")
struct ClientRequestShapeTests {
  @Test(
    arguments: Vector.required("qiniu_access_token").filter {
      $0.id.hasPrefix("py-qiniu-stat-GET-")
    })
  func statRequest(_ vector: Vector) async throws {
    let stub = StubTransport(answers: [
      .response(.json(200, #"{"fsize":1,"hash":"h","mimeType":"m","putTime":1,"type":0}"#))
    ])
    let key = try #require(vector.inputs["key"]?.stringValue)
    _ = try await client(stub).stat(bucket: "my-bucket", key: key)
    let request = try #require(stub.requests.first)
    #expect(request.method == "GET")
    #expect(request.url == vector.inputs["url"]?.stringValue)
    #expect(request.headers["Authorization"] == vector.expected["authorization"]?.stringValue)
    #expect(request.headers["X-Qiniu-Date"] == "20240101T000000Z")
    #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
    #expect(request.headers["Host"] == "rs-z0.qiniuapi.com")
  }

  @Test(
    arguments: Vector.required("qiniu_access_token").filter {
      $0.id.hasPrefix("py-qiniu-list-rfc3986-")
    })
  func listRequest(_ vector: Vector) async throws {
    let stub = StubTransport(answers: [.response(.json(200, #"{"marker":"","items":[]}"#))])
    let url = try #require(vector.inputs["url"]?.stringValue)
    let prefixValue = try #require(
      URLParts(url).query?.split(separator: "&").first { $0.hasPrefix("prefix=") })
    let prefix = try #require(
      PercentEncoding.decode(String(prefixValue.dropFirst("prefix=".count))))
    _ = try await client(stub).listPage(bucket: "my-bucket", prefix: prefix, delimiter: "/")
    let request = try #require(stub.requests.first)
    #expect(request.url == url)
    #expect(request.headers["Authorization"] == vector.expected["authorization"]?.stringValue)
  }

  @Test func ucRequests() async throws {
    func vector(_ id: String) -> Vector? { Vector.required.first { $0.id == id } }
    let answers: [String: String] = [
      "/buckets": #"["a","b"]"#,
      "/v2/buckets": #"[{"tbl":"a","region":"z0","ctime":1700000000,"perm":1}]"#,
      "/v2/domains": #"["cdn.example.com"]"#, "/v2/bucketInfo": #"{"private":1,"region":"z0"}"#,
    ]
    let stub = StubTransport { request, _ in
      .response(.json(200, answers[URLParts(request.url).path] ?? "null"))
    }
    let kodo = client(stub)
    #expect(try await kodo.bucketNames().map(\.name) == ["a", "b"])
    #expect(
      try await kodo.bucketsWithDetails() == [
        Bucket(name: "a", region: "z0", createdAt: 1_700_000_000, shared: "rd")
      ])
    #expect(try await kodo.domains("my-bucket") == ["cdn.example.com"])
    let info = try await kodo.bucketInfo("my-bucket")
    #expect(info.needsSignedURLs)
    #expect(info.region == "z0")
    let ids = [
      "py-qiniu-uc-buckets-shared-rd", "py-qiniu-uc-v2-buckets-shared-rd", "py-qiniu-uc-v2-domains",
      "py-qiniu-uc-v2-bucketInfo",
    ]
    for (request, id) in zip(stub.requests, ids) {
      let expected = try #require(vector(id))
      #expect(request.method == expected.inputs["method"]?.stringValue, "\(id)")
      #expect(request.url == expected.inputs["url"]?.stringValue, "\(id)")
      #expect(
        request.headers["Authorization"] == expected.expected["authorization"]?.stringValue, "\(id)"
      )
    }
  }
}

@Suite("Decoding Kodo's answers")
struct ClientDecodingTests {
  @Test func listPageWithEveryField() async throws {
    let body = #"""
      {"marker":"bWFyaw==","commonPrefixes":["photos/2024/"],"items":[
        {"key":"photos/a.jpg","hash":"Fme3","fsize":66441,"mimeType":"image/jpeg","putTime":14563802730506377,
         "type":4,"status":1,"md5":"abc","endUser":"u","x-qn-meta":{"k":"v"},"restoreStatus":2,
         "lastModify":14563802730506378,"parts":[4194304,123],"somethingNew":{"x":[1,2]}},
        {"key":"b\u00e9\n","hash":"h","fsize":0,"mimeType":"text/plain","putTime":1,"type":9}
      ]}
      """#
    let stub = StubTransport(answers: [.response(.json(200, body))])
    let page = try await client(stub).listPage(bucket: "b", prefix: "photos/", delimiter: "/")
    #expect(page.nextMarker == "bWFyaw==")
    #expect(page.commonPrefixes == ["photos/2024/"])
    #expect(
      page.items[0]
        == ObjectEntry(
          key: "photos/a.jpg", size: 66441,
          putTime: Timestamp(hundredNanoseconds: 14_563_802_730_506_377),
          storageClass: .kodo(type: 4), mimeType: "image/jpeg", hash: "Fme3", status: .disabled,
          md5: "abc", endUser: "u", meta: ["k": "v"], restoreStatus: .restored,
          lastModified: Timestamp(hundredNanoseconds: 14_563_802_730_506_378),
          parts: [4_194_304, 123]))
    #expect(page.items[0].storageClass.name == "archive_ir")
    #expect(page.items[1].key == "bé\n")
    #expect(page.items[1].storageClass.name == "type_9")
    #expect(page.items[1].status == .enabled)
  }

  @Test func statWithLifecycle() async throws {
    let body =
      #"{"fsize":5122935,"hash":"ljfockr0lOil_bZfyaI2ZY78HWoH","mimeType":"application/octet-stream","putTime":13603956734587420,"type":0,"expiration":1700000000,"transitionToIA":1690000000,"transitionToARCHIVE":1695000000,"transitionToDeepArchive":1698000000,"transitionToArchiveIR":1692000000}"#
    let stub = StubTransport(answers: [.response(.json(200, body))])
    let stat = try await client(stub).stat(bucket: "b", key: "k")
    #expect(stat.object.key == "k")
    #expect(stat.object.size == 5_122_935)
    #expect(
      stat.object.putTime.rfc3339 == "2013-02-09T07:41:13.4587420Z")
    #expect(stat.expiration == 1_700_000_000)
    #expect(stat.transitionToIA == 1_690_000_000)
    #expect(stat.transitionToArchive == 1_695_000_000)
    #expect(stat.transitionToDeepArchive == 1_698_000_000)
    #expect(stat.transitionToArchiveIR == 1_692_000_000)
  }

  @Test(arguments: [
    #"{"marker":"x","items":[{"key":"a","fsize":"big"}]}"#,
    #"{"marker":"x","items":[{"fsize":1}]}"#,
    #"{"marker":"x","items":[{"key":"a""#, "<html>oops</html>", "", #"{"marker":1}"#,
    #"{"items":[{"key":"\ud800"}]}"#, #"{"marker":"","items":[]} trailing"#,
  ])
  func undecodableListAnswersAreProtocolErrors(_ body: String) async {
    let stub = StubTransport(answers: [.response(.json(200, body))])
    let error = await kodoError { _ = try await client(stub).listPage(bucket: "b") }
    #expect(error?.kind == .protocolError)
    #expect(error?.requestID == "req-1")
    #expect(stub.requests.count == 1, "a 200 that cannot be read is not retried")
  }
}

@Suite("Errors and retries")
struct ClientErrorTests {
  @Test(arguments: [
    (401, #"{"error":"bad token"}"#, StorageError.Kind.unauthorized),
    (403, #"{"error":"forbidden"}"#, .unauthorized),
    (612, #"{"error":"no such file or directory"}"#, .notFound),
    (631, #"{"error":"no such bucket"}"#, .notFound),
    (404, "", .notFound),
    (640, #"{"error":"invalid marker"}"#, .invalidInput),
    (400, #"{"error":"invalid argument"}"#, .invalidInput),
    (501, #"{"error":"not implemented"}"#, .rejected),
    (579, #"{"error":"callback failed"}"#, .rejected),
    (614, #"{"error":"file exists"}"#, .exists),
    (608, #"{"error":"content modified"}"#, .preconditionFailed),
  ])
  func finalStatusesAreNotRetried(_ status: Int, _ body: String, _ kind: StorageError.Kind) async {
    let stub = StubTransport(answers: [.response(.json(status, body, requestID: "rid-\(status)"))])
    let error = await kodoError { _ = try await client(stub).stat(bucket: "b", key: "some key") }
    #expect(error?.kind == kind)
    #expect(error?.status == status)
    #expect(error?.requestID == "rid-\(status)")
    #expect(error?.description.contains("request id rid-\(status)") == true)
    #expect(stub.requests.count == 1)
    if status == 612 { #expect(error?.message.contains(#""some key""#) == true) }
  }

  @Test(arguments: [500, 502, 503, 504, 599, 573])
  func retryableStatusesRecover(_ status: Int) async throws {
    let stub = StubTransport(answers: [
      .response(.json(status, #"{"error":"busy"}"#)),
      .response(.json(status, "<html>bad gateway</html>")),
      .response(.json(200, #"["a"]"#)),
    ])
    #expect(try await client(stub).bucketNames().map(\.name) == ["a"])
    #expect(stub.requests.count == 3)
  }

  @Test func retriesGiveUpWithTheTemporaryError() async {
    let stub = StubTransport(answers: [
      .response(.json(503, "<html><body>502 Bad Gateway</body></html>"))
    ])
    let error = await kodoError { _ = try await client(stub, retries: 3).bucketNames() }
    #expect(error?.kind == .temporary)
    #expect(error?.message.contains("gave up after 3 attempts") == true)
    #expect(error?.message.contains("non-JSON body") == true)
    #expect(stub.requests.count == 3)
  }

  @Test func networkFailuresAreRetriedAndTheLastOneReported() async {
    let stub = StubTransport(answers: [
      .failure(StorageError(.temporary, "connection dropped")),
      .failure(StorageError(.unavailable, "cannot connect to 127.0.0.1:1 (Connection refused)")),
    ])
    let error = await kodoError { _ = try await client(stub, retries: 3).bucketNames() }
    #expect(error?.kind == .unavailable)
    #expect(error?.message.contains("gave up after 3 attempts") == true)
    #expect(stub.requests.count == 3)
  }

  @Test func cancellationAndProtocolTransportErrorsAreFinal() async {
    for kind in [StorageError.Kind.cancelled, .protocolError, .outputClosed] {
      let stub = StubTransport(answers: [.failure(StorageError(kind, "x"))])
      let error = await kodoError { _ = try await client(stub).bucketNames() }
      #expect(error?.kind == kind)
      #expect(stub.requests.count == 1)
    }
  }

  @Test func answersWithoutRequestIDAreSuspect() async {
    let noID = HTTPResponse(
      status: 200, headers: ["Content-Type": "application/json"], body: Array(#"["a"]"#.utf8))
    let stub = StubTransport(answers: [.response(noID), .response(.json(200, #"["b"]"#))])
    let names = try? await client(stub).bucketNames().map(\.name)
    #expect(names == ["b"])
    let always = StubTransport(answers: [.response(noID)])
    let error = await kodoError { _ = try await client(always, retries: 2).bucketNames() }
    #expect(error?.kind == .protocolError)
    #expect(error?.message.contains("X-Reqid") == true)
  }

  @Test func clockSkewIsCorrectedAndReportedOnce() async throws {
    // Kodo's clock is two hours ahead of ours.
    let serverNow: Int64 = 1_704_067_200 + 7_200
    let skewed = HTTPResponse.json(
      403, #"{"error":"request time too skewed"}"#, date: "Mon, 01 Jan 2024 02:00:00 GMT")
    let notices = NoticeLog()
    let stub = StubTransport(answers: [
      .response(skewed), .response(.json(200, #"["a"]"#, date: "Mon, 01 Jan 2024 02:00:01 GMT")),
    ])
    let kodo = client(stub, observer: { notices.append($0) })
    #expect(try await kodo.bucketNames().map(\.name) == ["a"])
    #expect(stub.requests.count == 2)
    #expect(stub.requests[0].headers["X-Qiniu-Date"] == "20240101T000000Z")
    #expect(stub.requests[1].headers["X-Qiniu-Date"] == "20240101T020000Z")
    #expect(notices.skews == [7_200])
    #expect(kodo.correctedClock.unixSeconds == serverNow)
    #expect(kodo.deadline(expiresIn: 60) == serverNow + 60)
    // A second 403 skew after correcting is final.
    let stubborn = StubTransport(answers: [.response(skewed)])
    let error = await kodoError { _ = try await client(stubborn).bucketNames() }
    #expect(error?.kind == .unauthorized)
    #expect(error?.message.contains("clock") == true)
  }

  @Test func verboseEventsRedactAuthorization() async throws {
    let notices = NoticeLog()
    let stub = StubTransport(answers: [.response(.json(503, "{}")), .response(.json(200, "[]"))])
    _ = try await client(stub, observer: { notices.append($0) }).bucketNames()
    let events = notices.events
    #expect(events.count == 2)
    #expect(events[0].status == 503 && events[0].willRetry && events[0].attempt == 1)
    #expect(events[1].status == 200 && !events[1].willRetry)
    for event in events {
      #expect(event.headers["Authorization"] == "Qiniu MY_ACCESS_KEY:<redacted>")
    }
  }
}

@Suite("Listing follows markers")
struct ClientListingTests {
  @Test func pagesAreFollowedThroughEmptyPagesToTheEnd() async throws {
    let pages = [
      #"{"marker":"m1","items":[{"key":"a"}]}"#, #"{"marker":"m2","items":[]}"#,
      #"{"marker":"m3","commonPrefixes":["d/"]}"#, #"{"marker":"","items":[{"key":"z"}]}"#,
    ]
    let stub = StubTransport { _, index in .response(.json(200, pages[index])) }
    var keys: [String] = []
    var starts: [String?] = []
    for try await element in client(stub).listPages(bucket: "b", delimiter: "/", pageSize: 2) {
      starts.append(element.startMarker)
      keys += element.page.commonPrefixes + element.page.items.map(\.key)
    }
    #expect(keys == ["a", "d/", "z"])
    #expect(starts == [nil, "m1", "m2", "m3"])
    #expect(
      stub.requests.map { URLParts($0.url).query ?? "" } == [
        "bucket=b&delimiter=%2F&limit=2", "bucket=b&marker=m1&delimiter=%2F&limit=2",
        "bucket=b&marker=m2&delimiter=%2F&limit=2", "bucket=b&marker=m3&delimiter=%2F&limit=2",
      ])
  }

  /// The marker read early from the first bytes of an answer (each prefix of it shown in turn)
  /// is the complete answer's, or none is read.
  @Test(arguments: [
    (#"{"marker":"a\"b\\c\u00e9/\ud83d\ude00 ","items":[{"key":"a"}]}"#, true),
    (#"{"marker":"","items":[{"key":"a"}]}"#, true),
    (#"{"marker":null,"items":[]}"#, true),
    (#"{ "marker" : "m1" , "items":[]}"#, true),
    (#"{"items":[{"key":"a"}],"marker":"m1"}"#, false),
  ])
  func theEarlyMarkerIsTheAnswers(_ body: String, early: Bool) async throws {
    let stub = StubTransport(answers: [.response(.json(200, body))])
    let reported = Mutex<[String?]>([])
    let watch = MarkerWatch { marker in reported.withLock { $0.append(marker) } }
    let answer = try await MarkerWatch.$current.withValue(watch) {
      try await client(stub).listPageAnswer(ListRequest(bucket: "b"))
    }
    let decoded = try answer.decode()
    #expect(answer.nextMarker == decoded.nextMarker)
    #expect(reported.withLock { $0 } == (early ? [decoded.nextMarker] : []))
  }

  @Test func aRetriedPageUsesTheSameMarker() async throws {
    let stub = StubTransport { request, index in
      switch index {
      case 0: .response(.json(200, #"{"marker":"m1","items":[{"key":"a"}]}"#))
      case 1: .failure(StorageError(.temporary, "dropped"))
      case 2: .response(.json(503, "{}"))
      default: .response(.json(200, #"{"marker":"","items":[{"key":"b"}]}"#))
      }
    }
    var keys: [String] = []
    for try await element in client(stub).listPages(bucket: "b") {
      keys += element.page.items.map(\.key)
    }
    #expect(keys == ["a", "b"])
    #expect(stub.requests.dropFirst().allSatisfy { $0.url.contains("marker=m1") })
  }

  @Test func aMarkerThatDoesNotAdvanceIsAnError() async {
    let stub = StubTransport(answers: [.response(.json(200, #"{"marker":"same","items":[]}"#))])
    let error = await kodoError {
      for try await _ in client(stub).listPages(bucket: "b", marker: "same") {}
    }
    #expect(error?.kind == .protocolError)
    #expect(error?.message.contains("goes round in circles") == true)
  }

  @Test(arguments: [0, 1001, -1])
  func pageSizesOutsideTheRangeAreRejectedBeforeAnyRequest(_ size: Int) async {
    let stub = StubTransport(answers: [.response(.json(200, "{}"))])
    let error = await kodoError { _ = try await client(stub).listPage(bucket: "b", limit: size) }
    #expect(error?.kind == .invalidInput)
    #expect(stub.requests.isEmpty)
  }

  @Test(arguments: ["", "has space", "a/b", String(repeating: "x", count: 64), "中文"])
  func invalidBucketNamesAreRejectedBeforeAnyRequest(_ name: String) async {
    let stub = StubTransport(answers: [.response(.json(200, "{}"))])
    let error = await kodoError { _ = try await client(stub).stat(bucket: name, key: "k") }
    #expect(error?.kind == .invalidInput)
    #expect(stub.requests.isEmpty)
  }
}

@Suite("Region discovery")
struct RegionDiscoveryTests {
  static let answer = #"""
    {"hosts":[{"region":"z0","ttl":86400,"rs":{"domains":["rs-z0.example"],"old":["rs-old.example"]},
      "rsf":{"domains":["rsf-z0.example"]},"uc":{"domains":["uc.example"]}},
     {"region":"z1","ttl":3600,"rsf":{"domains":["rsf-z1.example"]}}]}
    """#

  @Test func discoversHostsFallingBackThroughUCHostsAndCaches() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-regions-\(UUID())"
    ).path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let stub = StubTransport { request, _ in
      if request.url.hasPrefix("http://uc-one.example") {
        return .failure(StorageError(.unavailable, "cannot resolve uc-one.example"))
      }
      if request.url.contains("/v4/query") { return .response(.json(200, Self.answer)) }
      return .response(.json(200, #"{"marker":"","items":[]}"#))
    }
    let kodo = client(
      stub, hosts: ServiceHosts(), ucHosts: ["http://uc-one.example", "http://uc-two.example"],
      cache: directory)
    _ = try await kodo.listPage(bucket: "my-bucket")
    _ = try await kodo.listPage(bucket: "my-bucket")
    let urls = stub.requests.map(\.url)
    #expect(
      urls == [
        "http://uc-one.example/v4/query?ak=MY_ACCESS_KEY&bucket=my-bucket",
        "http://uc-two.example/v4/query?ak=MY_ACCESS_KEY&bucket=my-bucket",
        "http://rsf-z0.example/list?bucket=my-bucket&limit=1000",
        "http://rsf-z0.example/list?bucket=my-bucket&limit=1000",
      ])
    #expect(stub.requests[0].headers["Authorization"] == nil, "the region query is unsigned")
    // A new client (a new process) reads the disk cache and makes no region query.
    let again = StubTransport(answers: [.response(.json(200, #"{"fsize":1}"#))])
    _ = try await client(
      again, hosts: ServiceHosts(), ucHosts: ["http://uc-one.example", "http://uc-two.example"],
      cache: directory
    )
    .stat(bucket: "my-bucket", key: "k")
    #expect(again.requests.map { URLParts($0.url).authority } == ["rs-z0.example"])
  }

  @Test func failingHostsFallBackToOldDomainsThenTheNextRegion() async throws {
    let stub = StubTransport { request, _ in
      if request.url.contains("/v4/query") { return .response(.json(200, Self.answer)) }
      if request.url.contains("rsf-z0") { return .response(.json(503, "{}")) }
      return .response(.json(200, #"{"marker":"","items":[]}"#))
    }
    _ = try await client(stub, hosts: ServiceHosts(uc: "https://uc.example")).listPage(bucket: "b")
    #expect(
      stub.requests.map { URLParts($0.url).authority } == [
        "uc.example", "rsf-z0.example", "rsf-z1.example",
      ])
  }

  @Test func configuredHostsReplaceDiscovery() async throws {
    let stub = StubTransport(answers: [.response(.json(200, #"{"marker":""}"#))])
    _ = try await client(stub, hosts: ServiceHosts(rsf: "http://127.0.0.1:9000")).listPage(
      bucket: "b")
    #expect(stub.requests.map(\.url) == ["http://127.0.0.1:9000/list?bucket=b&limit=1000"])
    #expect(stub.requests[0].headers["Host"] == "127.0.0.1:9000")
  }

  @Test func anUnknownBucketIsNotFound() async {
    let stub = StubTransport(answers: [.response(.json(631, #"{"error":"no such bucket"}"#))])
    let error = await kodoError {
      _ = try await client(stub, hosts: ServiceHosts()).listPage(bucket: "nope")
    }
    #expect(error?.kind == .notFound)
    #expect(error?.message.contains(#"no such bucket "nope""#) == true)
  }
}

@Suite("Download URLs")
struct DownloadURLTests {
  @Test func boundDomainsGetASensibleScheme() {
    #expect(BoundDomain.baseURL(for: "cdn.example.com") == "https://cdn.example.com")
    #expect(
      BoundDomain.baseURL(for: "x.bkt.clouddn.com") == "http://x.bkt.clouddn.com")
    #expect(
      BoundDomain.baseURL(for: "127.0.0.1:9000/dl/b") == "http://127.0.0.1:9000/dl/b")
    #expect(
      BoundDomain.baseURL(for: "http://127.0.0.1:9000/dl/b")
        == "http://127.0.0.1:9000/dl/b")
  }

  @Test func domainPrecedenceAndAlternatives() async throws {
    let stub = StubTransport(answers: [.response(.json(200, #"["a.example.com","b.example.com"]"#))]
    )
    let kodo = client(stub)
    #expect(
      try await kodo.downloadDomain(
        bucket: "b", choice: DomainChoice(explicit: "http://x", configured: "http://y")
      ).baseURL == "http://x")
    #expect(
      try await kodo.downloadDomain(bucket: "b", choice: DomainChoice(configured: "http://y"))
        .source == .configured)
    #expect(stub.requests.isEmpty, "an explicit or configured domain makes no request")
    let bound = try await kodo.downloadDomain(bucket: "b", choice: DomainChoice())
    #expect(
      bound
        == DownloadDomain(
          baseURL: "https://a.example.com", source: .service,
          alternatives: ["https://b.example.com"])
    )
    let none = StubTransport(answers: [.response(.json(200, "[]"))])
    let error = await kodoError {
      _ = try await client(none).downloadDomain(bucket: "b", choice: DomainChoice())
    }
    #expect(error?.kind == .configuration)
    #expect(error?.hint == .needsDownloadDomain(bucket: "b"))
    #expect(error?.message.contains("--") == false, "the library names no command-line flag")
  }

  @Test func signedURLMatchesTheVectorRule() {
    let kodo = client(StubTransport(answers: []))
    #expect(
      kodo.downloadURL(domain: "http://dl.example.com", key: "a.txt", deadline: 1_700_000_000)
        == "http://dl.example.com/a.txt?e=1700000000&token=MY_ACCESS_KEY:v1NBSTvTKFQl_guZrNnRfi7stwI="
    )
    #expect(
      kodo.downloadURL(domain: "http://dl.example.com/", key: "a b", deadline: nil)
        == "http://dl.example.com/a%20b")
  }
}

/// Collects client notices from any thread.
final class NoticeLog: @unchecked Sendable {
  private let lock = NSLock()
  private var notices: [ClientNotice] = []

  func append(_ notice: ClientNotice) {
    lock.lock()
    notices.append(notice)
    lock.unlock()
  }

  var events: [RequestEvent] {
    lock.lock()
    defer { lock.unlock() }
    return notices.compactMap { if case .request(let event) = $0 { event } else { nil } }
  }

  var skews: [Int64] {
    lock.lock()
    defer { lock.unlock() }
    return notices.compactMap { if case .clockSkew(let seconds) = $0 { seconds } else { nil } }
  }
}
