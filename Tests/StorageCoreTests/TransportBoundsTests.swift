import Foundation
import KodoTestSupport
import StorageCore
import Testing

/// Issue 10 §2: a hostile or broken server cannot exhaust memory, disk or time. Every buffered
/// body is bounded, a download never grows past its expected length, API requests have an
/// overall deadline, downloads deliver the stored bytes exactly. Against scripted servers on
/// 127.0.0.1; no test asserts a duration.
@Suite(.timeLimit(.minutes(10)))
struct TransportBoundsTests {
  typealias Server = ScriptedHTTPServer

  static let small = CurlTransport.Configuration(
    maximumBodySize: 1 << 20, maximumErrorBodySize: 64 << 10, maximumHeaderSize: 32 << 10,
    proxy: .none)

  static func failure(_ body: () async throws -> Void) async -> StorageError? {
    do {
      try await body()
      return nil
    } catch {
      return error as? StorageError
    }
  }

  @Test func anEndlessAnswerStopsAtTheBound() async throws {
    let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
    let script: Server.Script = { _ in .stream(chunk: chunk, every: nil) }
    try await Server.withServer(script: script) { server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).send(
          HTTPRequest(url: server.url("/list")))
      }
      #expect(error?.kind == .protocolError)
      #expect(error?.message.contains("larger than 1 MiB") == true, "\(String(describing: error))")
    }
  }

  @Test func aCompressedAnswerIsCountedAfterDecompression() async throws {
    // 2 MiB once inflated, much less on the wire.
    let body = [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
    let script: Server.Script = { _ in .respond(Server.Response(body: body, gzip: true)) }
    try await Server.withServer(script: script) {
      server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).send(
          HTTPRequest(url: server.url("/list")))
      }
      #expect(error?.kind == .protocolError)
    }
  }

  @Test func anEndlessErrorBodyOnADownloadStopsAtTheErrorBound() async throws {
    let chunk = [UInt8](repeating: UInt8(ascii: "e"), count: 16 << 10)
    let script: Server.Script = { _ in .stream(status: 503, chunk: chunk, every: nil) }
    try await Server.withServer(script: script) {
      server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).download(
          HTTPRequest(url: server.url("/dl/a")), to: FileHandle.nullDevice.fileDescriptor)
      }
      #expect(error?.kind == .protocolError)
      #expect(error?.message.contains("error answer larger than 64 KiB") == true)
    }
  }

  @Test func aDownloadNeverGrowsPastItsExpectedLength() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-\(UUID())").path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer {
      close(descriptor)
      unlink(path)
    }
    let chunk = [UInt8](repeating: UInt8(ascii: "d"), count: 4096)
    let script: Server.Script = { _ in .stream(chunk: chunk, every: nil) }
    try await Server.withServer(script: script) { server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).download(
          HTTPRequest(url: server.url("/dl/a")), to: descriptor, expectedLength: 10)
      }
      #expect(error?.kind == .protocolError)
      #expect(error?.message.contains("more than the 10 bytes expected") == true)
      #expect(error?.writtenBytes == 0, "the first chunk would already pass the length")
    }
    #expect((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0)
  }

  @Test func aShortDownloadIsAnErrorThatSaysWhatWasWritten() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-\(UUID())").path
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer {
      close(descriptor)
      unlink(path)
    }
    let script: Server.Script = { _ in
      .raw(Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nfive!".utf8))
    }
    try await Server.withServer(script: script) { server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).download(
          HTTPRequest(url: server.url("/dl/a")), to: descriptor, expectedLength: 43)
      }
      #expect(error?.kind == .protocolError)
      #expect(error?.writtenBytes == 5)
    }
  }

  @Test func aFailureBeforeAnyByteSaysNothingWasWritten() async throws {
    let script: Server.Script = { _ in .close }
    try await Server.withServer(script: script) { server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).download(
          HTTPRequest(url: server.url("/dl/a")), to: FileHandle.nullDevice.fileDescriptor)
      }
      #expect(error?.kind == .temporary)
      #expect(error?.writtenBytes == 0)
    }
  }

  @Test func aTricklingAnswerMeetsTheRequestDeadline() async throws {
    var configuration = Self.small
    configuration.requestTimeout = .seconds(2)
    let script: Server.Script = { _ in
      .stream(chunk: Array("xy".utf8), every: .milliseconds(300))
    }
    try await Server.withServer(script: script) { server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: configuration).send(
          HTTPRequest(url: server.url("/list")))
      }
      #expect(error?.kind == .unavailable)
      #expect(
        error?.message.contains("did not finish within 2 s") == true, "\(String(describing: error))"
      )
    }
  }

  @Test func downloadsDeliverTheStoredBytesAndAskForNoEncoding() async throws {
    let stored = Array("stored gzip bytes, not to be inflated".utf8)
    let script: Server.Script = { _ in
      .respond(Server.Response(headers: ["Content-Encoding": "gzip"], body: stored))
    }
    try await Server.withServer(script: script) { server in
      let path = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-\(UUID())")
        .path
      let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      defer { unlink(path) }
      let response = try await CurlTransport(configuration: Self.small).download(
        HTTPRequest(url: server.url("/dl/a")), to: descriptor,
        expectedLength: Int64(stored.count))
      close(descriptor)
      #expect(response.streamedByteCount == Int64(stored.count))
      #expect(FileManager.default.contents(atPath: path) == Data(stored))
      #expect(server.requests.first?.headers["Accept-Encoding"] == nil)
    }
  }

  /// Reads the pipe `descriptor` to its end on a thread of its own (never the cooperative pool's),
  /// starting only once the pipe is (nearly) full, so that the writer has met a full pipe; closes
  /// it.
  static func drain(_ descriptor: Int32) async -> [UInt8] {
    await withCheckedContinuation { continuation in
      Thread {
        let deadline = Date().addingTimeInterval(30)
        var queued: CInt = 0
        while ioctl(descriptor, UInt(FIONREAD), &queued) == 0, queued < 60_000, Date() < deadline {
          usleep(1000)
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
          let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
          if count > 0 {
            received += chunk[..<count]
          } else if count == 0 || errno != EINTR {
            break
          }
        }
        close(descriptor)
        continuation.resume(returning: received)
      }.start()
    }
  }

  @Test func aFullNonBlockingDestinationIsWaitedOut() async throws {
    let stored = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let script: Server.Script = { _ in .respond(Server.Response(body: stored)) }
    try await Server.withServer(script: script) { server in
      var ends: [Int32] = [0, 0]
      #expect(pipe(&ends) == 0)
      // A pipe holds far less than the body: the writes meet EAGAIN and must wait for room.
      let (readEnd, writeEnd) = (ends[0], ends[1])
      #expect(fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK) == 0)
      async let drained = Self.drain(readEnd)
      let outcome: Result<HTTPResponse, any Error>
      do {
        outcome = .success(
          try await CurlTransport(configuration: Self.small).download(
            HTTPRequest(url: server.url("/dl/a")), to: writeEnd,
            expectedLength: Int64(stored.count)))
      } catch {
        outcome = .failure(error)
      }
      // Closed whatever happened, so that the reader sees the end.
      close(writeEnd)
      let received = await drained
      let response = try outcome.get()
      #expect(response.streamedByteCount == Int64(stored.count))
      #expect(received == stored)
    }
  }

  @Test func aDestinationThatCannotBeWrittenSaysWhy() async throws {
    let script: Server.Script = { _ in .respond(Server.Response(body: Array("abc".utf8))) }
    try await Server.withServer(script: script) { server in
      let descriptor = open("/dev/null", O_RDONLY)
      defer { close(descriptor) }
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).download(
          HTTPRequest(url: server.url("/dl/a")), to: descriptor, expectedLength: 3)
      }
      #expect(error?.kind == .localIO, "\(String(describing: error))")
      #expect(error?.message == "cannot write the download: Bad file descriptor")
      #expect(error?.writtenBytes == 0)
    }
  }

  @Test func aHugeHeaderLineIsABadAnswer() async throws {
    let line = "X-Big: " + String(repeating: "h", count: 1 << 20) + "\r\n"
    let script: Server.Script = { _ in
      .raw(Array(("HTTP/1.1 200 OK\r\n" + line + "Content-Length: 0\r\n\r\n").utf8))
    }
    try await Server.withServer(script: script) { server in
      let error = await Self.failure {
        _ = try await CurlTransport(configuration: Self.small).send(
          HTTPRequest(url: server.url("/list")))
      }
      #expect(error?.kind == .protocolError, "\(String(describing: error))")
    }
  }

  @Test(arguments: [
    (
      "http://cdn.example.com/a.txt?e=1700000000&token=AK:c2lnbmF0dXJl",
      "http://cdn.example.com/a.txt?e=1700000000&token=<redacted>"
    ),
    ("https://user:secret@host:9000/p?x=1", "https://<redacted>@host:9000/p?x=1"),
    (
      "http://b.oss.example.com/k?OSSAccessKeyId=AK&Expires=1&Signature=abc%2B&security-token=t",
      "http://b.oss.example.com/k?OSSAccessKeyId=AK&Expires=1&Signature=<redacted>&security-token=<redacted>"
    ),
    (
      "http://h/k?x-oss-credential=AK%2F2023&x-oss-signature=ff&x-oss-security-token=t&a=b",
      "http://h/k?x-oss-credential=<redacted>&x-oss-signature=<redacted>&x-oss-security-token=<redacted>&a=b"
    ),
  ])
  func credentialsInURLsAreRedacted(_ url: String, _ redacted: String) {
    #expect(RequestEvent.redactedURL(url) == redacted)
  }
}
