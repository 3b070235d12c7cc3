import Foundation
import KodoTestSupport
import Synchronization
import Testing

@testable import StorageCore

/// The engine over the real stack: a multipart protocol sent through the pipeline and
/// `CurlTransport` to a loopback server, its part digest a `RunningHash` MD5 in a header.
@Suite(.timeLimit(.minutes(10)))
struct EngineOverHTTPTests {
  /// Parts are `PUT /part/<n>` with `Content-MD5` in hex; complete is an unsafe `POST /complete`.
  struct HTTPMultipart: MultipartUploading {
    let base: String
    let pipeline: RequestPipeline
    var limits: PartLimits {
      PartLimits(minimumPartSize: 1000, maximumPartSize: 1 << 20, maximumPartCount: 100)
    }

    func makePartDigest() -> RunningHash { .md5() }

    func initiate() async throws(StorageError) -> UploadSession {
      UploadSession(uploadID: "s1")
    }

    static func judge(_ response: HTTPResponse) -> AnswerVerdict {
      switch response.status {
      case 200..<300: .success
      case 503: .failure(StorageError(.temporary, "busy", status: 503), retry: .retry)
      default: .failure(StorageError(.rejected, "no", status: response.status), retry: .final)
      }
    }

    func uploadPart(
      _ session: UploadSession, number: Int, body: RequestBody, digest: RunningHash
    ) async throws(StorageError) -> PartReceipt {
      let (response, _) = try await pipeline.perform(
        RequestPlan(
          method: "PUT", bases: [base], path: "/part/\(number)",
          headers: ["Content-MD5": digest.text], body: body, idempotency: .idempotent,
          what: "part \(number)", sign: nil, judge: Self.judge))
      return PartReceipt(
        number: number, size: body.length ?? 0,
        etag: String(decoding: response.body, as: UTF8.self))
    }

    func complete(_ session: UploadSession, parts: [PartReceipt]) async throws(StorageError)
      -> UploadedObject
    {
      let list = parts.map { "\($0.number)=\($0.etag)" }.joined(separator: ",")
      _ = try await pipeline.perform(
        RequestPlan(
          method: "POST", bases: [base], path: "/complete", body: Array(list.utf8),
          idempotency: .unsafe, what: "completion", sign: nil, judge: Self.judge))
      return UploadedObject(key: "k", size: parts.reduce(0) { $0 + $1.size })
    }

    func abort(_ session: UploadSession) async throws(StorageError) {}

    func listParts(_ session: UploadSession) async throws(StorageError) -> [PartReceipt] { [] }

    func isForgotten(_ error: StorageError) -> Bool { false }
  }

  @Test func partsArriveWholeWithTheirDigestsAndProgressEndsAtTheTotal() async throws {
    let content = RequestBodyTests.sample(250_000, seed: 3)
    let firstTry = Mutex<Set<String>>([])
    try await ScriptedHTTPServer.withServer { request in
      // Every part's first attempt is refused once: the pipeline sends it again.
      let first = firstTry.withLock { $0.insert(request.path).inserted }
      if request.path.hasPrefix("/part/") && first {
        return .respond(.text("busy", status: 503))
      }
      return .respond(.text("tag" + request.path.dropFirst(6)))
    } body: { server in
      let pipeline = RequestPipeline(
        transport: CurlTransport(configuration: CurlTransport.Configuration(proxy: .none)),
        requestIDHeader: "X-Reqid", retry: RetryPolicy(maxAttempts: 3, sleep: { _ in }))
      let reports = Reports()
      try await RequestBodyTests.withFile(content) { descriptor in
        let outcome = try await MultipartUpload(
          options: MultipartUpload.Options(partSize: 64_000, parallel: 2, sleep: { _ in })
        ).run(
          MultipartUpload.Source(
            descriptor: descriptor,
            identity: SourceIdentity(size: Int64(content.count), modifiedNanoseconds: 1)),
          to: HTTPMultipart(base: server.baseURL, pipeline: pipeline), events: reports.event)
        #expect(outcome.partsSent == 4)
      }
      let parts = server.requests.filter { $0.path.hasPrefix("/part/") }
      #expect(parts.count == 8)
      var assembled: [UInt8] = []
      for number in 1...4 {
        let sent = parts.filter { $0.path == "/part/\(number)" }
        #expect(sent.count == 2)
        let expected = Array(content[((number - 1) * 64_000)..<min(content.count, number * 64_000)])
        for request in sent {
          #expect(request.body == expected)
          #expect(request.headers["Content-MD5"] == Hex.encode(Digest.md5(expected)))
          #expect(request.headers["Content-Length"] == String(expected.count))
        }
        assembled += expected
      }
      #expect(assembled == content)
      let completion = try #require(server.requests.last)
      #expect(completion.path == "/complete")
      #expect(String(decoding: completion.body, as: UTF8.self) == "1=tag1,2=tag2,3=tag3,4=tag4")
      #expect(reports.progress.last == Int64(content.count))
      #expect(reports.progress.allSatisfy { $0 >= 0 && $0 <= Int64(content.count) })
    }
  }
}
