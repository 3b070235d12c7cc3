import Foundation
import KodoCore
public import StorageCore
import Synchronization

/// A transport that records every request and answers from a script, for request-shape tests.
///
/// Sendable: the only mutable state, the recorded requests, is behind a lock.
public final class StubTransport: HTTPTransport, Sendable {
  /// What the script answers for one request.
  public enum Answer: Sendable {
    case response(HTTPResponse)
    case failure(StorageError)
  }

  private let recorded = Mutex([HTTPRequest]())
  private let script: @Sendable (HTTPRequest, Int) -> Answer

  /// A stub answering with `script(request, index)` (index counts from 0).
  public init(_ script: @escaping @Sendable (HTTPRequest, Int) -> Answer) {
    self.script = script
  }

  /// A stub answering the given answers in order (the last one repeats).
  public convenience init(answers: [Answer]) {
    self.init { _, index in answers[min(index, answers.count - 1)] }
  }

  /// The requests sent so far.
  public var requests: [HTTPRequest] { recorded.withLock { $0 } }

  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    // Read as a transport reads it: a file's range is recorded as its bytes.
    var request = request
    if case .file = request.body.source, let bytes = request.body.sentBytes() {
      request.body.source = .bytes(bytes)
    }
    let index = recorded.withLock { requests in
      requests.append(request)
      return requests.count - 1
    }
    switch script(request, index) {
    case .response(let response): return response
    case .failure(let error): throw error
    }
  }

  /// Shows `watcher` a 2xx body as the slowest network would: every prefix of it, one byte
  /// longer each time, until it has seen enough.
  public func send(_ request: HTTPRequest, watchingBody watcher: BodyWatcher) async throws
    -> HTTPResponse
  {
    let response = try await send(request)
    if (200..<300).contains(response.status) {
      var length = 1
      while length <= min(response.body.count, watcher.limit),
        !watcher.look(Array(response.body[..<length]))
      {
        length += 1
      }
    }
    return response
  }

  public func download(
    _ request: HTTPRequest, to fileDescriptor: Int32, expectedLength: Int64?,
    digest: StreamedDigest?
  ) async throws
    -> HTTPResponse
  {
    var response = try await send(request)
    if (200..<300).contains(response.status) {
      let body = response.body
      let written = body.withUnsafeBytes { buffer in
        buffer.baseAddress.map { write(fileDescriptor, $0, buffer.count) } ?? 0
      }
      body.withUnsafeBytes { buffer in
        digest?.update(UnsafeRawBufferPointer(rebasing: buffer.prefix(max(0, written))))
      }
      response.streamedByteCount = Int64(max(0, written))
      response.body = []
      // The transport's rule: a body of another length than expected is a bad answer.
      if let expectedLength, response.streamedByteCount != expectedLength {
        var failure = StorageError(
          .protocolError,
          "sent \(response.streamedByteCount) bytes where \(expectedLength) were expected")
        failure.writtenBytes = response.streamedByteCount
        throw failure
      }
    }
    return response
  }
}

/// JSON answers with Kodo's headers.
extension HTTPResponse {
  /// A Kodo-style JSON answer with an `X-Reqid`.
  public static func json(
    _ status: Int, _ body: String, requestID: String = "req-1", date: String? = nil
  )
    -> HTTPResponse
  {
    var headers: HTTPHeaders = ["Content-Type": "application/json", "X-Reqid": requestID]
    if let date { headers.add("Date", date) }
    return HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
  }
}
