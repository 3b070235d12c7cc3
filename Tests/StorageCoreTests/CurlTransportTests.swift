import Foundation
import KodoTestSupport
import Synchronization
import Testing

@testable import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `CurlTransport` against `ScriptedHTTPServer` on 127.0.0.1. No test asserts a duration; the
/// suite's time limit only guards against hangs.
@Suite(.timeLimit(.minutes(10)))
struct CurlTransportTests {
  typealias Server = ScriptedHTTPServer

  /// The defaults, except that no proxy from the environment may divert loopback requests.
  static let loopback = CurlTransport.Configuration(proxy: .none)

  /// A transport that gives up quickly, for tests that expect a timeout.
  static let impatient = CurlTransport.Configuration(
    connectTimeout: .seconds(1), idleTimeout: .seconds(1), proxy: .none)

  @Test func defaultsAreTheDocumentedOnes() {
    let defaults = CurlTransport.Configuration()
    #expect(defaults.connectTimeout == .seconds(10))
    #expect(defaults.idleTimeout == .seconds(30))
    #expect(defaults.minimumBytesPerSecond == 1)
    #expect(defaults.totalTimeout == nil)
    #expect(defaults.userAgent == KodoVersion.userAgent)
    #expect(defaults.verifyTLS)
    #expect(defaults.caCertificatesPath == nil)
    #expect(defaults.maxDownloadRedirects == 5)
    #expect(defaults.proxy == .environment)
    #expect(CurlTransport().metrics == CurlTransport.Metrics(requests: 0, newConnections: 0))
  }

  // MARK: - Requests go out exactly as given

  @Test func getSendsMethodTargetAndHeadersExactly() async throws {
    let target = "/bucket/a%2Bb/c%20d/%E4%B8%AD%E6%96%87?marker=x%2By&prefix=a%20b&limit=10"
    try await Server.withServer { _ in
      .respond(.json(#"{"ok":true}"#, headers: ["X-Reqid": "req-1", "X-Log": "a;b"]))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      let request = HTTPRequest(
        url: server.url(target),
        headers: HTTPHeaders([
          ("X-First", "1"), ("Authorization", "QBox ak:sig"), ("X-Empty", ""), ("X-Last", "z"),
        ]))
      let response = try await transport.send(request)

      let received = try #require(server.requests.first)
      #expect(received.method == "GET")
      #expect(received.target == target)
      #expect(received.head.hasPrefix("GET " + target + " HTTP/1.1\r\n"))
      #expect(received.headers["Host"] == "127.0.0.1:\(server.port)")
      #expect(received.headers["User-Agent"] == KodoVersion.userAgent)
      #expect(KodoVersion.userAgent.hasPrefix("kodo/"))
      #expect(received.headers["Accept-Encoding"]?.contains("gzip") == true)
      #expect(received.headers["Authorization"] == "QBox ak:sig")
      #expect(received.headers["X-Empty"] == "")
      #expect(received.headers["Expect"] == nil)
      #expect(received.headers["Content-Length"] == nil)
      #expect(received.headers["Content-Type"] == nil)
      let names = received.headers.fields.map(\.name)
      let positions = ["X-First", "Authorization", "X-Empty", "X-Last"].compactMap {
        names.firstIndex(of: $0)
      }
      #expect(positions.count == 4)
      #expect(positions == positions.sorted())

      #expect(response.status == 200)
      #expect(response.headers["x-reqid"] == "req-1")
      #expect(response.headers["X-LOG"] == "a;b")
      #expect(response.headers["X-Reqid"] == "req-1")
      #expect(response.headers["content-type"] == "application/json")
      #expect(response.body == Array(#"{"ok":true}"#.utf8))
      #expect(response.streamedByteCount == 0)
    }
  }

  @Test func postSendsBodyWithContentLengthAndTheGivenContentType() async throws {
    let body = Array("a=1&key=b%2Fc".utf8)
    try await Server.withServer { request in
      .respond(.text("posted \(request.body.count)"))
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(
          method: "POST", url: server.url("/stat?x=1"),
          headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body))
      let received = try #require(server.requests.first)
      #expect(received.method == "POST")
      #expect(received.target == "/stat?x=1")
      #expect(received.headers["Content-Length"] == String(body.count))
      #expect(received.headers["Content-Type"] == "application/x-www-form-urlencoded")
      #expect(received.headers.fields.filter { $0.name.lowercased() == "content-type" }.count == 1)
      #expect(received.body == body)
      #expect(response.body == Array("posted \(body.count)".utf8))
    }
  }

  @Test func emptyPostSendsContentLengthZeroAndNoContentType() async throws {
    try await Server.withServer { _ in
      .respond(.json("{}"))
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(method: "POST", url: server.url("/delete/abc")))
      let received = try #require(server.requests.first)
      #expect(received.method == "POST")
      #expect(received.headers["Content-Length"] == "0")
      #expect(received.headers["Content-Type"] == nil)
      #expect(received.body.isEmpty)
      #expect(response.status == 200)
    }
  }

  @Test func largePostIsNotHeldBackByExpectContinue() async throws {
    let body = [UInt8](repeating: 0x61, count: 2 * 1024 * 1024)
    try await Server.withServer { request in
      .respond(.text("\(request.body.count)"))
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(
          method: "POST", url: server.url("/upload"),
          headers: ["Content-Type": "application/octet-stream"], body: body))
      let received = try #require(server.requests.first)
      #expect(received.headers["Expect"] == nil)
      #expect(received.body == body)
      #expect(response.body == Array("\(body.count)".utf8))
    }
  }

  @Test func otherMethodsAreSentAsGiven() async throws {
    try await Server.withServer { _ in
      .respond(.json("{}"))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      _ = try await transport.send(HTTPRequest(method: "DELETE", url: server.url("/d")))
      _ = try await transport.send(
        HTTPRequest(method: "PUT", url: server.url("/p"), body: Array("data".utf8)))
      let requests = server.requests
      #expect(requests.map(\.method) == ["DELETE", "PUT"])
      #expect(requests[0].headers["Content-Length"] == nil)
      #expect(requests[1].body == Array("data".utf8))
    }
  }

  @Test func headAsksForNoBody() async throws {
    try await Server.withServer { _ in
      .respond(.text("hello"))
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(method: "HEAD", url: server.url("/object")))
      #expect(server.requests.first?.method == "HEAD")
      #expect(response.status == 200)
      #expect(response.headers["Content-Length"] == "5")
      #expect(response.body.isEmpty)
    }
  }

  // MARK: - Responses

  @Test(arguments: [404, 503, 612])
  func nonSuccessStatusesAreReturnedNotThrown(status: Int) async throws {
    let json = #"{"error":"no such file or directory"}"#
    try await Server.withServer { _ in
      .respond(.json(json, status: status, headers: ["X-Reqid": "r-\(status)"]))
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(url: server.url("/x")))
      #expect(response.status == status)
      #expect(response.headers["X-Reqid"] == "r-\(status)")
      #expect(response.body == Array(json.utf8))
    }
  }

  @Test func gzipBodyIsDecoded() async throws {
    let text = String(repeating: "kodo object listing line\n", count: 4000)
    try await Server.withServer { _ in
      .respond(.init(headers: ["Content-Type": "text/plain"], body: Array(text.utf8), gzip: true))
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(url: server.url("/gz")))
      #expect(response.status == 200)
      #expect(response.headers["Content-Encoding"] == "gzip")
      #expect(response.body == Array(text.utf8))
    }
  }

  @Test func headersOfInterimResponsesAreDropped() async throws {
    let answer =
      "HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
      + "HTTP/1.1 200 OK\r\nX-Final: yes\r\nContent-Length: 2\r\n\r\nok"
    try await Server.withServer { _ in
      .raw(Array(answer.utf8), close: false)
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(url: server.url("/")))
      #expect(response.status == 200)
      #expect(response.headers["X-Interim"] == nil)
      #expect(response.headers["X-Final"] == "yes")
      #expect(response.body == Array("ok".utf8))
    }
  }

  @Test func sendDoesNotFollowRedirects() async throws {
    try await Server.withServer { _ in
      .respond(.init(status: 302, headers: ["Location": "/elsewhere"]))
    } body: { server in
      let response = try await CurlTransport(configuration: Self.loopback).send(
        HTTPRequest(url: server.url("/start")))
      #expect(response.status == 302)
      #expect(response.headers["Location"] == "/elsewhere")
      #expect(server.requests.count == 1)
    }
  }

  // MARK: - Connection reuse

  @Test func sequentialRequestsReuseOneConnection() async throws {
    try await Server.withServer { request in
      .respond(.text(request.target))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      for index in 0..<50 {
        let response = try await transport.send(HTTPRequest(url: server.url("/seq/\(index)")))
        #expect(response.body == Array("/seq/\(index)".utf8))
      }
      #expect(server.acceptedConnections == 1)
      #expect(transport.metrics == CurlTransport.Metrics(requests: 50, newConnections: 1))
      #expect(Set(server.requests.map(\.connection)) == [1])
    }
  }

  @Test func concurrentRequestsEachGetAHandleAndReuseItsConnection() async throws {
    // Each wave's answers wait until all 16 of its requests have arrived, so both waves have
    // exactly 16 transfers in flight at once whatever the scheduler does: the first wave opens 16
    // connections, and the second must reuse every one of them.
    let arrived = Mutex([String: Int]())
    try await Server.withServer { request in
      let wave = String(request.path.split(separator: "/").first ?? "")
      arrived.withLock { $0[wave, default: 0] += 1 }
      return .deferred {
        for _ in 0..<4000 where arrived.withLock({ $0[wave, default: 0] }) < 16 {
          try? await Task.sleep(for: .milliseconds(5))
        }
        return arrived.withLock({ $0[wave, default: 0] }) >= 16
          ? .respond(.text(request.target)) : .respond(.text("barrier not reached", status: 500))
      }
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      @Sendable func wave(_ name: String) async throws {
        try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
          for index in 0..<16 {
            group.addTask {
              (index, try await transport.send(HTTPRequest(url: server.url("/\(name)/\(index)"))))
            }
          }
          var seen = 0
          for try await (index, response) in group {
            #expect(response.status == 200)
            #expect(response.body == Array("/\(name)/\(index)".utf8))
            seen += 1
          }
          #expect(seen == 16)
        }
      }
      try await wave("first")
      #expect(server.acceptedConnections == 16)
      #expect(transport.metrics == CurlTransport.Metrics(requests: 16, newConnections: 16))
      try await wave("second")
      #expect(server.acceptedConnections == 16)
      #expect(transport.metrics == CurlTransport.Metrics(requests: 32, newConnections: 16))
    }
  }

  @Test func thirtyTwoRequestsAreInFlightAtOnce() async throws {
    // Every answer waits until all 32 requests have arrived, which only happens if the transport
    // runs 32 blocking transfers at once. The wait is bounded so that a failure cannot hang.
    let arrived = Mutex(0)
    try await Server.withServer { request in
      arrived.withLock { $0 += 1 }
      return .deferred {
        for _ in 0..<4000 where arrived.withLock({ $0 }) < 32 {
          try? await Task.sleep(for: .milliseconds(5))
        }
        return arrived.withLock({ $0 }) >= 32
          ? .respond(.text(request.target)) : .respond(.text("barrier not reached", status: 500))
      }
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
        for index in 0..<32 {
          group.addTask {
            (index, try await transport.send(HTTPRequest(url: server.url("/barrier/\(index)"))))
          }
        }
        for try await (index, response) in group {
          #expect(response.status == 200)
          #expect(response.body == Array("/barrier/\(index)".utf8))
        }
      }
      #expect(transport.metrics.requests == 32)
    }
  }

  // MARK: - Downloads

  @Test func downloadStreamsASuccessBodyToTheDescriptor() async throws {
    let size = 5 * 1024 * 1024
    let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 11)) }
    try await Server.withServer { _ in
      .respond(.init(headers: ["Content-Type": "application/octet-stream"], body: body))
    } body: { server in
      try await withTemporaryFile { descriptor, path in
        let response = try await CurlTransport(configuration: Self.loopback).download(
          HTTPRequest(url: server.url("/big")), to: descriptor)
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.streamedByteCount == Int64(size))
        let written = try #require(FileManager.default.contents(atPath: path))
        #expect(written.count == size)
        #expect(Array(written) == body)
      }
    }
  }

  @Test func downloadFollowsRedirectsAndKeepsTheFinalHeaders() async throws {
    try await Server.withServer { request in
      request.path == "/start"
        ? .respond(.init(status: 302, headers: ["Location": "/final", "X-Hop": "1"]))
        : .respond(.text("final body", headers: ["X-Final": "yes"]))
    } body: { server in
      try await withTemporaryFile { descriptor, path in
        let response = try await CurlTransport(configuration: Self.loopback).download(
          HTTPRequest(url: server.url("/start")), to: descriptor)
        #expect(response.status == 200)
        #expect(response.headers["X-Hop"] == nil)
        #expect(response.headers["X-Final"] == "yes")
        #expect(response.streamedByteCount == 10)
        #expect(FileManager.default.contents(atPath: path) == Data("final body".utf8))
        #expect(server.requests.map(\.path) == ["/start", "/final"])
      }
    }
  }

  @Test func failedDownloadBuffersTheErrorAndLeavesTheDescriptorAlone() async throws {
    let json = #"{"error":"no such file or directory"}"#
    try await Server.withServer { _ in
      .respond(.json(json, status: 404))
    } body: { server in
      try await withTemporaryFile { descriptor, path in
        let response = try await CurlTransport(configuration: Self.loopback).download(
          HTTPRequest(url: server.url("/missing")), to: descriptor)
        #expect(response.status == 404)
        #expect(response.body == Array(json.utf8))
        #expect(response.streamedByteCount == 0)
        #expect(FileManager.default.contents(atPath: path)?.count == 0)
      }
    }
  }

  @Test func downloadIntoAClosedPipeIsOutputClosed() async throws {
    // SIGPIPE is deliberately not ignored here: the transport must keep it from killing us.
    let body = [UInt8](repeating: 0x5A, count: 1024 * 1024)
    try await Server.withServer { _ in
      .respond(.init(body: body))
    } body: { server in
      var ends: [Int32] = [0, 0]
      #expect(pipe(&ends) == 0)
      close(ends[0])
      defer { close(ends[1]) }
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.loopback).download(
          HTTPRequest(url: server.url("/o")), to: ends[1])
      }
      #expect(error?.kind == .outputClosed)
    }
  }

  #if os(Linux)
    /// The process under test ignores SIGPIPE (SwiftNIO does that on Linux), so the download test
    /// above cannot tell whether the transport needs that; this checks the guard itself.
    @Test func sigpipeGuardKeepsTheSignalOffTheWritingThread() async throws {
      var ends: [Int32] = [0, 0]
      #expect(pipe(&ends) == 0)
      close(ends[0])
      defer { close(ends[1]) }
      let writer = ends[1]
      let outcome = await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          var pendingDuringWrite = false
          let writeErrno = SignalPipeGuard.run { () -> Int32 in
            let written = write(writer, "x", 1)
            let number = written < 0 ? errno : 0
            var pending = sigset_t()
            sigpending(&pending)
            pendingDuringWrite = sigismember(&pending, SIGPIPE) == 1
            return number
          }
          var pendingAfter = sigset_t()
          sigpending(&pendingAfter)
          var mask = sigset_t()
          pthread_sigmask(SIG_SETMASK, nil, &mask)
          continuation.resume(
            returning: [
              writeErrno == EPIPE, pendingDuringWrite, sigismember(&pendingAfter, SIGPIPE) == 0,
              sigismember(&mask, SIGPIPE) == 0,
            ])
        }
      }
      #expect(outcome == [true, true, true, true])
    }
  #endif

  @Test func downloadIntoAnUnwritableDescriptorIsLocalIO() async throws {
    try await Server.withServer { _ in
      .respond(.text("data"))
    } body: { server in
      try await withTemporaryFile { _, path in
        let readOnly = open(path, O_RDONLY)
        #expect(readOnly >= 0)
        defer { close(readOnly) }
        let error = await #expect(throws: StorageError.self) {
          try await CurlTransport(configuration: Self.loopback).download(
            HTTPRequest(url: server.url("/o")), to: readOnly)
        }
        #expect(error?.kind == .localIO)
        #expect(error?.message.contains(String(cString: strerror(EBADF))) == true)
      }
    }
  }

  // MARK: - Failures

  @Test func serverThatNeverAnswersTimesOutAsUnavailable() async throws {
    try await Server.withServer { _ in
      .hang
    } body: { server in
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.impatient).send(
          HTTPRequest(url: server.url("/hang")))
      }
      #expect(error?.kind == .unavailable)
    }
  }

  @Test func serverThatStallsAfterTheHeadersTimesOutAsUnavailable() async throws {
    try await Server.withServer { _ in
      .headersThenStall(contentLength: 1000)
    } body: { server in
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.impatient).send(
          HTTPRequest(url: server.url("/stall")))
      }
      #expect(error?.kind == .unavailable)
    }
  }

  @Test func closingWithoutAnAnswerIsTemporary() async throws {
    try await Server.withServer { _ in
      .close
    } body: { server in
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.loopback).send(
          HTTPRequest(url: server.url("/drop")))
      }
      #expect(error?.kind == .temporary)
    }
  }

  @Test func bodyShorterThanContentLengthIsTemporary() async throws {
    try await Server.withServer { _ in
      .truncatedBody(body: Array("only part".utf8), declaredLength: 100)
    } body: { server in
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.loopback).send(
          HTTPRequest(url: server.url("/short")))
      }
      #expect(error?.kind == .temporary)
    }
  }

  @Test func refusedConnectionIsUnavailableAndKeepsSecretsOut() async throws {
    // A socket bound to a port but not listening refuses connections, and keeps any other test's
    // server from taking the port meanwhile.
    #if os(Linux)
      let streamType = Int32(SOCK_STREAM.rawValue)
    #else
      let streamType = SOCK_STREAM
    #endif
    let socketDescriptor = socket(AF_INET, streamType, 0)
    try #require(socketDescriptor >= 0)
    defer { close(socketDescriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socketDescriptor, $0, length) == 0 && getsockname(socketDescriptor, $0, &length) == 0
      }
    }
    try #require(bound)
    let port = Int(UInt16(bigEndian: address.sin_port))
    let error = await #expect(throws: StorageError.self) {
      try await CurlTransport(configuration: Self.impatient).send(
        HTTPRequest(
          url: "http://127.0.0.1:\(port)/b/k?e=1&token=SECRET-TOKEN",
          headers: ["Authorization": "QBox SECRET-AK:SECRET-SIG"]))
    }
    #expect(error?.kind == .unavailable)
    let message = error?.description ?? ""
    #expect(message.contains("127.0.0.1:\(port)"))
    #expect(message.contains(String(cString: strerror(ECONNREFUSED))))
    #expect(!message.contains("SECRET"))
  }

  @Test func tlsHandshakeThatNeverCompletesIsUnavailable() async throws {
    // A plain-HTTP server never answers a TLS ClientHello, so the handshake times out.
    try await Server.withServer { _ in
      .close
    } body: { server in
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.impatient).send(
          HTTPRequest(url: "https://127.0.0.1:\(server.port)/"))
      }
      #expect(error?.kind == .unavailable)
      #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
    }
  }

  @Test(arguments: ["HTTP/9 nonsense\r\n\r\n", "garbage, not HTTP at all\r\n\r\n"])
  func garbageAnswerIsAProtocolError(answer: String) async throws {
    try await Server.withServer { _ in
      .raw(Array(answer.utf8))
    } body: { server in
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.loopback).send(
          HTTPRequest(url: server.url("/weird")))
      }
      #expect(error?.kind == .protocolError)
    }
  }

  @Test func undecodableGzipBodyIsAProtocolError() async throws {
    try await Server.withServer { _ in
      .respond(.init(headers: ["Content-Encoding": "gzip"], body: Array("not gzip at all".utf8)))
    } body: { server in
      let error = await #expect(throws: StorageError.self) {
        try await CurlTransport(configuration: Self.loopback).send(
          HTTPRequest(url: server.url("/bad-gzip")))
      }
      #expect(error?.kind == .protocolError)
    }
  }

  @Test func requestsThatCannotBeSentAsGivenAreInvalidInput() async throws {
    let transport = CurlTransport(configuration: Self.loopback)
    let scheme = await #expect(throws: StorageError.self) {
      try await transport.send(HTTPRequest(url: "ftp://127.0.0.1/file"))
    }
    #expect(scheme?.kind == .invalidInput)
    let header = await #expect(throws: StorageError.self) {
      try await transport.send(
        HTTPRequest(url: "http://127.0.0.1:1/", headers: ["X-Bad": "SECRET\r\nX-Injected: 1"]))
    }
    #expect(header?.kind == .invalidInput)
    #expect(header?.message.contains("SECRET") == false)
    #expect(transport.metrics.requests == 0)
  }

  // MARK: - Cancellation

  @Test func cancellingTheTaskAbortsAHangingRequest() async throws {
    try await Server.withServer { _ in
      .hang
    } body: { server in
      let transport = CurlTransport(configuration: .init(idleTimeout: Patience.bound, proxy: .none))
      let task = Task { try await transport.send(HTTPRequest(url: server.url("/hang"))) }
      try await server.waitForRequests(1)
      task.cancel()
      let error = await #expect(throws: StorageError.self) { try await task.value }
      #expect(error?.kind == .cancelled)
    }
  }

  @Test func cancellingTheTaskAbortsAStalledDownload() async throws {
    try await Server.withServer { _ in
      .headersThenStall(contentLength: 1_000_000)
    } body: {
      server in
      try await withTemporaryFile { descriptor, _ in
        let transport = CurlTransport(
          configuration: .init(idleTimeout: Patience.bound, proxy: .none))
        let task = Task {
          try await transport.download(HTTPRequest(url: server.url("/slow")), to: descriptor)
        }
        try await server.waitForRequests(1)
        task.cancel()
        let error = await #expect(throws: StorageError.self) { try await task.value }
        #expect(error?.kind == .cancelled)
      }
    }
  }

  @Test func alreadyCancelledTaskSendsNothing() async throws {
    try await Server.withServer { _ in
      .respond(.text("no"))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      let task = Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await transport.send(HTTPRequest(url: server.url("/never")))
      }
      let error = await #expect(throws: StorageError.self) { try await task.value }
      #expect(error?.kind == .cancelled)
      #expect(server.requests.isEmpty)
    }
  }
}

/// Runs `body` with a new, empty temporary file open for writing, then closes and removes it.
private func withTemporaryFile(
  _ body: (_ descriptor: Int32, _ path: String) async throws -> Void
) async throws {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("kodo-curl-\(UUID().uuidString)").path
  let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_TRUNC, 0o600)
  try #require(descriptor >= 0)
  defer {
    close(descriptor)
    unlink(path)
  }
  try await body(descriptor, path)
}
