import Foundation
import KodoBrowse
import KodoTestSupport
import OSSCore
import StorageCore
import Synchronization
import Testing

@testable import KodoCLI

/// Issue 19 §2 at the command line and in the browser, against scripted Kodo and OSS servers
/// (the audit's `mini-oss.py` modes): listings that do not fit the request (L-2), keys holding a
/// NUL in `-0` output (L-3), the browser's paging (M-3) and a redirected OSS download (M-2).
@Suite("A hostile service does not steer kodo")
struct HostileListingTests {
  static let kodoHeaders: HTTPHeaders = ["X-Reqid": "scripted"]

  /// A Kodo `/list` page holding `keys`, with `marker` when more follow.
  static func kodoPage(_ keys: [String], marker: String = "") -> ScriptedHTTPServer.Action {
    let items = keys.map { key -> String in
      var line = JSONLine()
      line.string("key", key)
      line.int("fsize", 3)
      line.string("hash", "FqH")
      line.int("putTime", 17_000_000_000_000_000)
      var bytes = line.finish()
      if bytes.last == 0x0A { bytes.removeLast() }
      return String(decoding: bytes, as: UTF8.self)
    }
    return .respond(
      .json(
        #"{"marker":"\#(marker)","items":[\#(items.joined(separator: ","))]}"#,
        headers: kodoHeaders))
  }

  /// The marker a Kodo list request was sent with ("" for the first page).
  static func marker(of request: ScriptedHTTPServer.Request) -> String {
    StuckListingTests.marker(of: request) ?? ""
  }

  static func kodo(_ server: ScriptedHTTPServer, _ arguments: [String]) async throws
    -> CLIRunner.Result
  {
    try await InProcess.run(
      arguments, environment: ["KODO_CONFIG": try writeTestConfig(baseURL: server.baseURL)])
  }

  // MARK: - OSS

  /// ListObjectsV2 of bucket `name` holding `keys` (percent-encoded as `encoding-type=url`).
  static func ossListing(_ keys: [String], name: String = "bkt", token: String? = nil)
    -> ScriptedHTTPServer.Action
  {
    let contents = keys.map { key in
      "<Contents><Key>\(percentEncoded(key))</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><Size>3</Size></Contents>"
    }.joined()
    let next = token.map { "<NextContinuationToken>\($0)</NextContinuationToken>" } ?? ""
    let xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>\(name)</Name><EncodingType>url</EncodingType><IsTruncated>\(token == nil ? "false" : "true")</IsTruncated>\(next)\(contents)</ListBucketResult>"
    return .respond(
      ScriptedHTTPServer.Response(
        status: 200, headers: ["x-oss-request-id": "5F00", "Content-Type": "application/xml"],
        body: Array(xml.utf8)))
  }

  /// Every byte but letters, digits, `/`, `.`, `-` and `_` as `%XX`.
  static func percentEncoded(_ key: String) -> String {
    var text = ""
    for byte in key.utf8 {
      if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
        || (0x61...0x7A).contains(byte)
        || "/.-_".utf8.contains(byte)
      {
        text.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        text += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
      }
    }
    return text
  }

  static func oss(
    _ server: ScriptedHTTPServer, _ arguments: [String], token: String? = nil
  ) async throws -> CLIRunner.Result {
    var environment = [
      "KODO_PROVIDER": "oss", "OSS_ENDPOINT": server.baseURL, "OSS_REGION": "cn-hangzhou",
      "OSS_ACCESS_KEY_ID": "AK-test", "OSS_ACCESS_KEY_SECRET": "SK-test",
    ]
    if let token { environment["OSS_SESSION_TOKEN"] = token }
    return try await InProcess.run(arguments, environment: environment)
  }

  static func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-hostile-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
  }

  // MARK: - L-2: answers that do not fit the request

  @Test(arguments: [["ls", "-r", "b/pre/"], ["find", "b/pre/"], ["du", "b/pre/"]])
  func kodoKeysOutsideThePrefixEndTheListing(_ arguments: [String]) async throws {
    try await ScriptedHTTPServer.withServer { _ in
      Self.kodoPage(["/abs12", "pre/a.txt", "qqnotprefix.txt"])
    } body: { server in
      let result = try await Self.kodo(server, arguments)
      #expect(result.status == 76, "\(result)")
      #expect(result.stderr.contains("is not under the prefix asked for"), "\(result.stderr)")
      #expect(!result.stdout.contains("abs12") && !result.stdout.contains("notprefix"))
    }
  }

  @Test func getRecursiveWritesNothingForAListingOutsideThePrefix() async throws {
    let downloads = Mutex(0)
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await ScriptedHTTPServer.withServer { request in
      if request.path == "/list" { return Self.kodoPage(["/abs12", "qqnotprefix.txt"]) }
      downloads.withLock { $0 += 1 }
      return .respond(.text("abc", headers: Self.kodoHeaders))
    } body: { server in
      let result = try await Self.kodo(
        server, ["get", "-r", "--domain", server.baseURL, "b/q/", directory])
      #expect(result.status == 76, "\(result)")
    }
    #expect(downloads.withLock { $0 } == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  // The CLI sent 145,000 requests in a minute to a server that repeats its keys with new markers.
  @Test(arguments: [["k9"], ["k0"]])
  func keysThatGoBackOrRepeatWithNewMarkersEndTheListing(_ second: [String]) async throws {
    let requests = Mutex(0)
    try await ScriptedHTTPServer.withServer { request in
      let count = requests.withLock { count -> Int in
        count += 1
        return count
      }
      return Self.marker(of: request).isEmpty
        ? Self.kodoPage(["k9"], marker: "m1") : Self.kodoPage(second, marker: "m\(count)")
    } body: { server in
      let result = try await Self.kodo(server, ["ls", "-r", "b"])
      #expect(result.status == 76, "\(result)")
      #expect(result.stderr.contains("increasing order"), "\(result.stderr)")
      #expect(result.stdout == "k9\n" || result.stdout.hasSuffix(" k9\n"), "\(result.stdout)")
    }
    // The two pages read, and at most the read-ahead's two requests beyond them (how many of
    // those went out depends on how fast the second page was decoded): never an endless loop.
    #expect(requests.withLock { $0 } <= 4)
  }

  @Test func anOSSAnswerAboutAnotherBucketEndsTheListing() async throws {
    try await ScriptedHTTPServer.withServer { _ in
      Self.ossListing(["zzz/other-prefix.txt", "../up.txt"], name: "someone-else")
    } body: { server in
      let result = try await Self.oss(server, ["ls", "-r", "bkt/pre/"])
      #expect(result.status == 76, "\(result)")
      #expect(result.stderr.contains(#"another bucket, "someone-else""#), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }

  // MARK: - L-3: a NUL in a key

  @Test(arguments: [
    ["ls", "-r", "-0", "bkt/p/"], ["find", "bkt/p/", "--name", "*.jpg", "-0"],
  ])
  func aKeyHoldingANULIsLeftOutOfNULSeparatedOutput(_ arguments: [String]) async throws {
    let keys = ["p/a", "p/nul\u{0}x.jpg", "p/ok.jpg"]
    let expected = arguments[0] == "ls" ? "p/a\0p/ok.jpg\0" : "p/ok.jpg\0"
    try await ScriptedHTTPServer.withServer { _ in
      Self.ossListing(keys)
    } body: { server in
      let result = try await Self.oss(server, arguments)
      #expect(result.status == 65, "\(result)")
      #expect(result.stdout == expected, "\(result.stdout.debugDescription)")
      #expect(result.stderr.contains(#"left "p/nul\u{0}x.jpg" out of the -0 output"#))
      #expect(result.stderr.contains("1 key holding a NUL byte left out"), "\(result.stderr)")
    }
    try await ScriptedHTTPServer.withServer { _ in
      Self.kodoPage(keys)
    } body: { server in
      let result = try await Self.kodo(server, arguments.map { $0 == "bkt/p/" ? "b/p/" : $0 })
      #expect(result.status == 65, "\(result)")
      #expect(result.stdout == expected, "\(result.stdout.debugDescription)")
    }
  }

  // MARK: - M-1: a skew refusal moves the clock by at most a day

  /// OSS's `RequestTimeTooSkewed` refusal, its `ServerTime` `time`.
  static func skewRefusal(_ time: String) -> ScriptedHTTPServer.Action {
    let xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>RequestTimeTooSkewed</Code><Message>The difference between the request time and the current time is too large.</Message><RequestId>5F00</RequestId><HostId>bkt</HostId><MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds><RequestTime>2024-01-01T00:00:00.000Z</RequestTime><ServerTime>\(time)</ServerTime></Error>"
    return .respond(
      ScriptedHTTPServer.Response(
        status: 403, headers: ["x-oss-request-id": "5F00", "Content-Type": "application/xml"],
        body: Array(xml.utf8)))
  }

  // One hostile ServerTime (or Date) made every later link live until the year 10000.
  @Test func aServiceTimeYearsAwayIsNotTakenAndTheLinksStayShort() async throws {
    let requests = Mutex(0)
    try await ScriptedHTTPServer.withServer { _ in
      requests.withLock { $0 += 1 }
      return Self.skewRefusal("9999-12-31T23:59:59.000Z")
    } body: { server in
      let result = try await Self.oss(server, ["ls", "bkt"])
      #expect(result.status == 77, "\(result)")
      #expect(result.stderr.contains("more than the 24 hours kodo corrects for"), "\(result)")
      #expect(!result.stderr.contains("signing with the service's time"), "\(result)")
    }
    #expect(requests.withLock { $0 } == 1, "the refusal is final")
  }

  // The audit's reproduction: one download answer's Date moved the clock that signs the next
  // downloads' links (`e=` until 2036, or the year 10000).
  @Test func aDownloadAnswersDateDoesNotStretchTheNextLinks() async throws {
    let deadlines = Mutex<[Int64]>([])
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await ScriptedHTTPServer.withServer { request in
      if request.path == "/list" {
        let items = ["p/a.txt", "p/b.txt", "p/c.txt"].map {
          // The qetag of "abc": with a hash to check against, get -r asks for no stat.
          #"{"key":"\#($0)","fsize":3,"hash":"FqmZPjZHBoFquj4lcXhQwmyc0Nid","mimeType":"text/plain","putTime":17000000000000000}"#
        }
        return .respond(
          .json(
            #"{"marker":"","items":[\#(items.joined(separator: ","))]}"#,
            headers: Self.kodoHeaders))
      }
      let deadline = (request.query ?? "").split(separator: "&").first { $0.hasPrefix("e=") }
        .flatMap { Int64($0.dropFirst(2)) }
      deadlines.withLock { $0.append(deadline ?? -1) }
      return .respond(.text("abc", headers: ["Date": "Fri, 31 Dec 9999 23:59:59 GMT"]))
    } body: { server in
      let result = try await Self.kodo(
        server, ["get", "-r", "--parallel", "1", "--domain", server.baseURL, "b/p/", directory])
      #expect(result.status == 0, "\(result)")
    }
    let now = Int64(Date().timeIntervalSince1970)
    let seen = deadlines.withLock { $0 }
    #expect(seen.count == 3)
    for deadline in seen {
      #expect(deadline > now && deadline <= now + 3_600 + 60, "e=\(deadline), now \(now)")
    }
  }

  // MARK: - M-2: a redirected OSS download

  @Test func aRedirectedOSSDownloadCarriesNoTokenToTheOtherHost() async throws {
    let token = "STSTOKEN-XYZ-123"
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await ScriptedHTTPServer.withServer { _ in
      .respond(.text("abc", headers: ["Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"]))
    } body: { other in
      try await ScriptedHTTPServer.withServer { request in
        if request.method == "HEAD" {
          return .respond(
            .init(
              status: 200,
              headers: [
                "x-oss-request-id": "5F00", "Content-Length": "3",
                "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT",
              ], body: Array("abc".utf8)))
        }
        return .respond(.init(status: 302, headers: ["Location": other.url(request.path)]))
      } body: { server in
        let result = try await Self.oss(
          server, ["get", "bkt", "a.txt", "-o", directory + "/a.txt"], token: token)
        #expect(result.status == 0, "\(result)")
        #expect(server.requests.last?.headers["x-oss-security-token"] == token)
        let followed = try #require(other.requests.first)
        #expect(followed.headers["x-oss-security-token"] == nil)
        #expect(followed.headers["Authorization"] == nil)
        #expect(followed.headers["x-oss-date"] == nil)
      }
    }
  }

  // MARK: - M-3: the browser's paging

  /// Pages as the browser asks for them, one at a time from the last page's marker, until one
  /// fails or the folder is complete (at most `limit` pages).
  static func browse(_ provider: any StorageProvider, limit: Int = 50) async -> (
    pages: Int, failure: String?
  ) {
    let paging = BrowsePaging()
    var marker: String?
    for count in 1...limit {
      switch await paging.nextPage(from: provider, bucket: "bkt", prefix: "", marker: marker) {
      case .failure(let failure): return (count - 1, failure.message)
      case .success(let page):
        guard let next = page.nextMarker else { return (count, nil) }
        marker = next
      }
    }
    return (limit, nil)
  }

  @Test func theBrowserStopsAtMarkersThatGoRoundInCircles() async throws {
    // mini-oss.py cycle: tokens A → B → A, 1000 keys a page.
    try await ScriptedHTTPServer.withServer { request in
      let token = (request.query ?? "").split(separator: "&").first {
        $0.hasPrefix("continuation-token=")
      }.map { String($0.dropFirst("continuation-token=".count)) }
      let next = ["A": "B", "B": "A"][token ?? ""] ?? "A"
      return Self.ossListing((0..<5).map { "k-\(token ?? "")-\($0)" }, token: next)
    } body: { server in
      let provider = try Self.provider(server)
      let (pages, failure) = await Self.browse(provider)
      #expect(pages == 2)
      #expect(failure?.contains("goes round in circles") == true, "\(failure ?? "")")
      // The browser shows the failure on the folder and asks for no more.
      var state = State(
        location: .folder(bucket: "bkt", prefix: ""), size: Size(width: 80, height: 24))
      let paging = BrowsePaging()
      var effects = state.update(.start)
      var requested = 0
      while requested < 50,
        case .listPage(let id, let bucket, let prefix, let marker)? = effects.first(where: {
          if case .listPage = $0 { true } else { false }
        })
      {
        requested += 1
        let result = await paging.nextPage(
          from: provider, bucket: bucket, prefix: prefix, marker: marker)
        effects = state.update(.pageLoaded(id: id, result))
      }
      #expect(requested == 3)
      #expect(state.folder?.failure?.contains("goes round in circles") == true)
      #expect(state.folder?.count == 10, "the two pages before the cycle are kept")
    }
  }

  @Test func theBrowserStopsAtEndlessEmptyPagesAndRepeatedKeys() async throws {
    // mini-oss.py empty: empty pages, a new token each time; and keys repeated with new tokens.
    let requests = Mutex(0)
    for keys in [[String](), ["k"]] {
      requests.withLock { $0 = 0 }
      try await ScriptedHTTPServer.withServer { _ in
        let count = requests.withLock { count -> Int in
          count += 1
          return count
        }
        return Self.ossListing(keys, token: "T\(count)")
      } body: { server in
        let provider = try Self.provider(server)
        let (_, failure) = await Listing.$maximumEmptyPages.withValue(50) {
          await Self.browse(provider, limit: 200)
        }
        #expect(
          failure?.contains(keys.isEmpty ? "is not progressing" : "increasing order") == true,
          "\(failure ?? "")")
      }
      #expect(requests.withLock { $0 } <= 51)
    }
  }

  /// An OSS client for a scripted server (path-style, as for an IP endpoint).
  static func provider(_ server: ScriptedHTTPServer) throws -> any StorageProvider {
    try OSSClient(
      credentials: Credentials(accessKey: "AK-test", secretKey: "SK-test"),
      transport: CurlTransport(configuration: CurlTransport.Configuration(proxy: .none)),
      options: OSSClient.Options(
        addressing: OSSAddressing(endpoint: try OSSEndpoint(server.baseURL), pathStyle: true),
        region: "cn-hangzhou", retry: RetryPolicy(maxAttempts: 1)))
  }
}
