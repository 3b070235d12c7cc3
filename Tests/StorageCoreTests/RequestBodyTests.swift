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

/// Request bodies through `CurlTransport` and the pipeline against `ScriptedHTTPServer` on
/// 127.0.0.1: the bytes that arrive, `Content-Length`, observers, rewinds and the retry gate.
@Suite(.timeLimit(.minutes(10)))
struct RequestBodyTests {
  typealias Server = ScriptedHTTPServer

  static let loopback = CurlTransport.Configuration(proxy: .none)

  /// Deterministic bytes that are not a repeating pattern of a power-of-two period.
  static func sample(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  /// A temporary file holding `bytes`, open for reading; removed and closed by `body`'s end.
  static func withFile<R>(_ bytes: [UInt8], _ body: (Int32) async throws -> R) async throws -> R {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("kodo-body-\(UUID().uuidString)").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let descriptor = open(path, O_RDONLY)
    try #require(descriptor >= 0)
    defer {
      close(descriptor)
      unlink(path)
    }
    return try await body(descriptor)
  }

  /// Keeps every byte it is shown and counts restarts: a digest whose text is its byte count.
  struct Collecting: RunningDigest {
    var bytes: [UInt8] = []
    mutating func update(_ chunk: UnsafeRawBufferPointer) { bytes += chunk }
    var text: String { String(bytes.count) + ":" + String(bytes.reduce(0) { $0 &+ UInt64($1) }) }
  }

  static func text(_ bytes: [UInt8]) -> String {
    Collecting(bytes: bytes).text
  }

  // MARK: - What arrives

  @Test func bytesGoOutExactlyWithTheirContentLength() async throws {
    let payload = Self.sample(300_001)
    try await Server.withServer { _ in
      .respond(.text("ok"))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      let response = try await transport.send(
        HTTPRequest(method: "PUT", url: server.url("/b"), body: .bytes(payload)))
      #expect(response.status == 200)
      let received = try #require(server.requests.first)
      #expect(received.method == "PUT")
      #expect(received.body == payload)
      #expect(received.headers["Content-Length"] == "300001")
      #expect(received.headers["Transfer-Encoding"] == nil)
      #expect(received.headers["Expect"] == nil)
    }
  }

  @Test func aFileRangeSendsExactlyThatRangeWithPread() async throws {
    let content = Self.sample(1_200_000)
    try await Self.withFile(content) { descriptor in
      try await Server.withServer { _ in
        .respond(.text("ok"))
      } body: { server in
        let transport = CurlTransport(configuration: Self.loopback)
        let digest = StreamedDigest(Collecting())
        let body = RequestBody.file(descriptor: descriptor, offset: 1000, length: 700_000)
          .observed(by: digest)
        #expect(body.length == 700_000 && body.isRewindable)
        _ = try await transport.send(
          HTTPRequest(method: "POST", url: server.url("/f"), body: body))
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.body == Array(content[1000..<701_000]))
        #expect(received.headers["Content-Length"] == "700000")
        #expect(digest.text == Self.text(Array(content[1000..<701_000])))
        // pread leaves the descriptor's own offset alone.
        #expect(lseek(descriptor, 0, SEEK_CUR) == 0)
      }
    }
  }

  @Test func aFileThatEndsEarlyIsALocalError() async throws {
    try await Self.withFile(Self.sample(1000)) { descriptor in
      try await Server.withServer { _ in
        .respond(.text("ok"))
      } body: { server in
        let transport = CurlTransport(configuration: Self.loopback)
        let error = await #expect(throws: StorageError.self) {
          try await transport.send(
            HTTPRequest(
              method: "PUT", url: server.url("/f"),
              body: .file(descriptor: descriptor, offset: 0, length: 5000)))
        }
        #expect(error?.kind == .localIO)
        #expect(error?.message.contains("ended after 1000 of its 5000 bytes") == true)
      }
    }
  }

  /// A stream of `payload` handed out in pieces of at most `piece` bytes.
  static func stream(_ payload: [UInt8], piece: Int, length: Int64?) -> RequestBodyStream {
    let offset = Mutex(0)
    return RequestBodyStream(length: length) { buffer in
      offset.withLock { offset in
        let count = min(piece, buffer.count, payload.count - offset)
        payload.withUnsafeBytes { all in
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[offset..<(offset + count)]))
        }
        offset += count
        return count
      }
    }
  }

  @Test func aStreamOfUnknownLengthGoesChunked() async throws {
    let payload = Self.sample(200_003)
    try await Server.withServer { _ in
      .respond(.text("ok"))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      let stream = Self.stream(payload, piece: 7_777, length: nil)
      let body = RequestBody.stream(stream)
      #expect(body.length == nil && !body.isRewindable && body.canBeSent)
      _ = try await transport.send(HTTPRequest(method: "PUT", url: server.url("/s"), body: body))
      let received = try #require(server.requests.first)
      #expect(received.body == payload)
      #expect(received.headers["Transfer-Encoding"] == "chunked")
      #expect(received.headers["Content-Length"] == nil)
      #expect(stream.bytesRead == Int64(payload.count))
      #expect(!body.canBeSent)
    }
  }

  @Test func aStreamOfKnownLengthCarriesItAsContentLength() async throws {
    let payload = Self.sample(65_536 + 17)
    try await Server.withServer { _ in
      .respond(.text("ok"))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      let body = RequestBody.stream(
        Self.stream(payload, piece: 1000, length: Int64(payload.count)))
      _ = try await transport.send(HTTPRequest(method: "PUT", url: server.url("/s"), body: body))
      let received = try #require(server.requests.first)
      #expect(received.body == payload)
      #expect(received.headers["Content-Length"] == String(payload.count))
      #expect(received.headers["Transfer-Encoding"] == nil)
      // Sending it again is refused rather than sending nothing.
      let error = await #expect(throws: StorageError.self) {
        try await transport.send(HTTPRequest(method: "PUT", url: server.url("/s"), body: body))
      }
      #expect(error?.kind == .invalidInput)
      #expect(server.requests.count == 1)
    }
  }

  @Test func progressCountsEveryByteOnce() async throws {
    let payload = Self.sample(1 << 20)
    try await Server.withServer { _ in
      .respond(.text("ok"))
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      let total = Atomic<Int64>(0)
      let reports = Atomic<Int>(0)
      let progress = BodyProgress { _, delta in
        total.add(delta, ordering: .relaxed)
        reports.add(1, ordering: .relaxed)
      }
      _ = try await transport.send(
        HTTPRequest(
          method: "PUT", url: server.url("/p"), body: .bytes(payload).observed(by: progress)))
      #expect(progress.sent == Int64(payload.count))
      #expect(total.load(ordering: .relaxed) == Int64(payload.count))
      #expect(reports.load(ordering: .relaxed) > 1)
    }
  }

  // MARK: - Retries

  static func judge(_ response: HTTPResponse) -> AnswerVerdict {
    switch response.status {
    case 200..<300: return .success
    case 503:
      return .failure(StorageError(.temporary, "busy", status: 503), retry: .retry)
    default:
      return .failure(StorageError(.rejected, "no", status: response.status), retry: .final)
    }
  }

  static func pipeline() -> RequestPipeline {
    RequestPipeline(
      transport: CurlTransport(configuration: loopback), requestIDHeader: "X-Reqid",
      retry: RetryPolicy(maxAttempts: 3, sleep: { _ in }))
  }

  static func plan(
    _ bases: [String], body: RequestBody, idempotency: Idempotency = .idempotent
  ) -> RequestPlan {
    RequestPlan(
      method: "PUT", bases: bases, path: "/part", body: body, idempotency: idempotency,
      what: "the test upload", sign: nil, judge: judge)
  }

  /// Answers 503 to the first request, 200 to the rest.
  static func busyOnce() -> Server.Script {
    let count = Mutex(0)
    return { _ in
      let number = count.withLock { count in
        count += 1
        return count
      }
      return number == 1 ? .respond(.text("busy", status: 503)) : .respond(.text("ok"))
    }
  }

  @Test func aFileBodyIsSentWholeAgainAfterA5xxAndItsDigestRestarts() async throws {
    let content = Self.sample(400_000)
    try await Self.withFile(content) { descriptor in
      try await Server.withServer(script: Self.busyOnce()) { server in
        let digest = StreamedDigest(Collecting())
        let body = RequestBody.file(descriptor: descriptor, offset: 100, length: 300_000)
          .observed(by: digest)
        let (response, _) = try await Self.pipeline().perform(
          Self.plan([server.baseURL], body: body))
        #expect(response.status == 200)
        let requests = server.requests
        #expect(requests.count == 2)
        for request in requests {
          #expect(request.body == Array(content[100..<300_100]))
          #expect(request.headers["Content-Length"] == "300000")
        }
        // The digest describes the last attempt's bytes, not both attempts'.
        #expect(digest.text == Self.text(Array(content[100..<300_100])))
      }
    }
  }

  @Test func aStreamIsNotSentAgainAfterItsFirstByte() async throws {
    let payload = Self.sample(50_000)
    try await Server.withServer(script: Self.busyOnce()) { server in
      let body = RequestBody.stream(
        Self.stream(payload, piece: 4096, length: Int64(payload.count)))
      let error = await #expect(throws: StorageError.self) {
        try await Self.pipeline().perform(Self.plan([server.baseURL], body: body))
      }
      #expect(error?.status == 503)
      #expect(server.requests.count == 1)
      #expect(server.requests.first?.body == payload)
    }
  }

  /// A base URL where nothing listens: a server's, after it stopped.
  static func deadBase() async throws -> String {
    let server = try await Server.start { _ in .close }
    let base = server.baseURL
    try await server.shutdown()
    return base
  }

  @Test func anUnsafeRequestIsNotRepeatedAfterAnAnswer() async throws {
    try await Server.withServer(script: Self.busyOnce()) { server in
      let error = await #expect(throws: StorageError.self) {
        try await Self.pipeline().perform(
          Self.plan([server.baseURL], body: .bytes([1, 2, 3]), idempotency: .unsafe))
      }
      #expect(error?.status == 503)
      #expect(server.requests.count == 1)
    }
  }

  @Test func anUnsafeRequestIsRepeatedWhenItNeverLeft() async throws {
    let dead = try await Self.deadBase()
    try await Server.withServer { _ in
      .respond(.text("done"))
    } body: { server in
      let (response, base) = try await Self.pipeline().perform(
        Self.plan([dead, server.baseURL], body: .bytes([1, 2, 3]), idempotency: .unsafe))
      #expect(response.status == 200)
      #expect(base == server.baseURL)
      #expect(server.requests.count == 1)
      #expect(server.requests.first?.body == [1, 2, 3])
    }
  }

  @Test func aStreamIsSentAgainWhenNoByteOfItWasRead() async throws {
    let dead = try await Self.deadBase()
    let payload = Self.sample(20_000)
    try await Server.withServer { _ in
      .respond(.text("ok"))
    } body: { server in
      let stream = Self.stream(payload, piece: 3000, length: nil)
      let (response, base) = try await Self.pipeline().perform(
        Self.plan([dead, server.baseURL], body: .stream(stream)))
      #expect(response.status == 200 && base == server.baseURL)
      #expect(server.requests.count == 1)
      #expect(server.requests.first?.body == payload)
      #expect(stream.bytesRead == Int64(payload.count))
    }
  }

  @Test func aRefusedConnectionSaysTheRequestNeverLeft() async throws {
    let dead = try await Self.deadBase()
    let transport = CurlTransport(configuration: Self.loopback)
    let error = await #expect(throws: StorageError.self) {
      try await transport.send(HTTPRequest(method: "POST", url: dead + "/x", body: [1]))
    }
    #expect(error?.kind == .unavailable)
    #expect(error?.neverSent == true)
  }

  @Test func aDroppedConnectionDoesNotSayTheRequestNeverLeft() async throws {
    try await Server.withServer { _ in
      .close
    } body: { server in
      let transport = CurlTransport(configuration: Self.loopback)
      let error = await #expect(throws: StorageError.self) {
        try await transport.send(HTTPRequest(method: "POST", url: server.url("/x"), body: [1]))
      }
      #expect(error?.neverSent == false)
    }
  }
}
