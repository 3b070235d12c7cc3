import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

/// KodoClient over the real CurlTransport against a scripted server on 127.0.0.1.
@Suite("Client over libcurl on loopback")
struct ClientLoopbackTests {
  static func kodoClient(
    _ server: ScriptedHTTPServer, retries: Int = 4, idle: Duration = .seconds(30)
  ) -> KodoClient {
    var configuration = CurlTransport.Configuration()
    configuration.proxy = .none
    configuration.idleTimeout = idle
    return KodoClient(
      credentials: Credentials(accessKey: "ak", secretKey: "sk"),
      transport: CurlTransport(configuration: configuration),
      options: KodoClient.Options(
        hosts: ServiceHosts(uc: server.baseURL, rs: server.baseURL, rsf: server.baseURL),
        retry: RetryPolicy(maxAttempts: retries, baseDelay: .milliseconds(1))))
  }

  static let kodoHeaders: HTTPHeaders = ["X-Reqid": "loopback"]

  /// Pages of keys `k00` … (in byte order, as a listing must be); every third page is empty but
  /// carries a marker.
  static func pagedScript(count: Int) -> ScriptedHTTPServer.Script {
    { request in
      let marker = request.query?.split(separator: "&").first { $0.hasPrefix("marker=") }.map {
        String($0.dropFirst(7))
      }
      let index = marker.flatMap { Int($0.dropFirst(1)) } ?? 0
      let next = index + 1 < count ? "\"p\(index + 1)\"" : "\"\""
      let items =
        index % 3 == 1
        ? ""
        : #"{"key":"k\#(index < 10 ? "0" : "")\#(index)","fsize":1,"hash":"h","mimeType":"m","putTime":1}"#
      return .respond(.json(#"{"marker":\#(next),"items":[\#(items)]}"#, headers: kodoHeaders))
    }
  }

  @Test func pagesToTheEndThroughEmptyPagesOnOneConnection() async throws {
    try await ScriptedHTTPServer.withServer(script: Self.pagedScript(count: 30)) {
      (server) async throws in
      var keys: [String] = []
      for try await element in Self.kodoClient(server).listPages(bucket: "b") {
        keys += element.page.items.map(\.key)
      }
      #expect(keys == (0..<30).filter { $0 % 3 != 1 }.map { "k\($0 < 10 ? "0" : "")\($0)" })
      #expect(server.requests.count == 30)
      // The next page's request may go while this answer is still arriving: on a second one.
      #expect(server.acceptedConnections <= 2, "the connections are reused across pages")
    }
  }

  @Test func theNextPageIsAskedForOnceTheMarkerHasArrivedBeforeTheRestOfTheAnswer() async throws {
    let markers = Mutex<[String]>([])
    let sawSecondEarly = Mutex(false)
    let script: ScriptedHTTPServer.Script = { request in
      let marker =
        request.query?.split(separator: "&").first { $0.hasPrefix("marker=") }.map {
          String($0.dropFirst(7))
        } ?? ""
      markers.withLock { $0.append(marker) }
      guard marker.isEmpty else {
        return .respond(
          .json(
            #"{"marker":"","items":[{"key":"k2","fsize":1,"hash":"h","mimeType":"m","putTime":1}]}"#,
            headers: Self.kodoHeaders))
      }
      let first = Array(#"{"marker":"p1","items":["#.utf8)
      let rest = Array(#"{"key":"k1","fsize":1,"hash":"h","mimeType":"m","putTime":1}]}"#.utf8)
      let head = Array(
        ("HTTP/1.1 200 OK\r\nX-Reqid: loopback\r\nContent-Type: application/json\r\n"
          + "Content-Length: \(first.count + rest.count)\r\n\r\n").utf8)
      // The rest of the first page waits until the second page has been asked for.
      return .split(head + first) {
        let deadline = Patience.deadline
        while ContinuousClock.now < deadline {
          if markers.withLock({ $0.contains("p1") }) {
            sawSecondEarly.withLock { $0 = true }
            break
          }
          try? await Task.sleep(for: .milliseconds(1))
        }
        return rest
      }
    }
    try await ScriptedHTTPServer.withServer(script: script) { (server) async throws in
      var keys: [String] = []
      for try await element in Self.kodoClient(server).listPages(bucket: "b") {
        keys += element.page.items.map(\.key)
      }
      #expect(keys == ["k1", "k2"])
      #expect(
        sawSecondEarly.withLock { $0 }, "the second request left before the first answer ended")
      #expect(markers.withLock { $0 } == ["", "p1"])
    }
  }

  @Test func retriesRecoverFromDropsAndServerErrors() async throws {
    let counter = Mutex(0)
    let script: ScriptedHTTPServer.Script = { _ in
      let attempt = counter.withLock { count -> Int in
        count += 1
        return count
      }
      switch attempt {
      case 1: return .close
      case 2: return .respond(.json(#"{"error":"busy"}"#, status: 503, headers: Self.kodoHeaders))
      case 3:
        return .truncatedBody(
          headers: Self.kodoHeaders, body: Array(#"{"mark"#.utf8), declaredLength: 40)
      default: return .respond(.json(#"["a"]"#, headers: Self.kodoHeaders))
      }
    }
    try await ScriptedHTTPServer.withServer(script: script) { (server) async throws in
      #expect(try await Self.kodoClient(server).bucketNames().map(\.name) == ["a"])
      #expect(server.requests.count == 4)
    }
  }

  @Test func retriesGiveUpWithTheTemporaryError() async throws {
    let script: ScriptedHTTPServer.Script = { _ in
      .respond(.text("<html>bad gateway</html>", status: 502, headers: Self.kodoHeaders))
    }
    try await ScriptedHTTPServer.withServer(script: script) { (server) async throws in
      let error = await kodoError {
        _ = try await Self.kodoClient(server, retries: 3).bucketNames()
      }
      #expect(error?.kind == .temporary)
      #expect(server.requests.count == 3)
    }
  }

  @Test func aServerThatNeverAnswersTimesOut() async throws {
    let script: ScriptedHTTPServer.Script = { _ in .hang }
    try await ScriptedHTTPServer.withServer(script: script) { (server) async throws in
      let error = await kodoError {
        _ = try await Self.kodoClient(server, retries: 1, idle: .seconds(1)).bucketNames()
      }
      #expect(error?.kind == .unavailable)
    }
  }

  @Test func cancellationStopsARequest() async throws {
    let script: ScriptedHTTPServer.Script = { _ in .hang }
    try await ScriptedHTTPServer.withServer(script: script) { (server) async throws in
      let client = Self.kodoClient(server, retries: 1, idle: .seconds(120))
      let task = Task { try await client.bucketNames() }
      try await server.waitForRequests(1)
      task.cancel()
      let result = await task.result
      if case .failure(let error as StorageError) = result {
        #expect(error.kind == .cancelled)
      } else {
        Issue.record("expected a cancellation error, got \(result)")
      }
    }
  }

  @Test func signedRequestsCarryTheExactBytesSigned() async throws {
    let script: ScriptedHTTPServer.Script = { _ in
      .respond(.json(#"{"marker":""}"#, headers: Self.kodoHeaders))
    }
    try await ScriptedHTTPServer.withServer(script: script) { (server) async throws in
      _ = try await Self.kodoClient(server).listPage(bucket: "b", prefix: "a+b &c/中")
      let request = try #require(server.requests.first)
      #expect(request.target == "/list?bucket=b&prefix=a%2Bb%20%26c%2F%E4%B8%AD&limit=1000")
      let signable = SignableRequest(
        method: request.method, url: server.baseURL + request.target, host: request.headers["Host"],
        contentType: request.headers["Content-Type"],
        headers: request.headers.fields.map { ($0.name, $0.value) })
      let expected = RequestSigning.qiniuAuthorization(
        for: signable, credentials: Credentials(accessKey: "ak", secretKey: "sk"))
      #expect(request.headers["Authorization"] == expected)
      #expect(request.headers["User-Agent"] == KodoVersion.userAgent)
    }
  }
}
