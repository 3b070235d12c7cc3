public import Foundation
public import KodoCore
public import KodoEmulator
public import StorageCore

/// An in-process emulator on a free port, and helpers to send it signed requests byte for byte.
///
/// ```swift
/// try await EmulatorHarness.with(EmulatorConfiguration(buckets: [.objects("b", objects)])) {
///   emulator in
///   let response = try await emulator.get("/list?bucket=b")
/// }
/// ```
public struct EmulatorHarness: Sendable {
  /// How a request is authorised.
  public enum Signing: Sendable, Equatable {
    /// `Authorization: Qiniu AK:sig` with an `X-Qiniu-Date` header (the given date, or now).
    case qiniu(date: Date? = nil)
    /// `Authorization: Qiniu AK:sig` without `X-Qiniu-Date`.
    case qiniuWithoutDate
    /// `Authorization: QBox AK:sig`.
    case qbox
    /// No `Authorization`.
    case none

    /// `Qiniu` signing dated now.
    public static let qiniu = Signing.qiniu(date: nil)
  }

  /// The running server.
  public let server: EmulatorServer

  /// How long the harness's emulators wait for a request on an open connection, unless the
  /// configuration chose its own limit: ten minutes.
  ///
  /// The emulator's default (30 s) is a guard against clients that hold connections, and a wall
  /// clock: here it would time the test process, not the client. Swift Testing runs every test
  /// at once on the cooperative pool (two threads on a 2-core machine); a test that opened a
  /// connection early in the run may not get a thread back to send its request until the
  /// CPU-bound tests queued before it are done, which on a loaded machine has taken over 30 s,
  /// and the emulator then closed the idle connection (`I/O on closed channel` at the write).
  /// Tests of the limit itself set their own (`HardeningTests`).
  public static let requestTimeoutMilliseconds = 600_000

  /// Starts an emulator (on a free port unless the configuration names one).
  public static func start(_ configuration: EmulatorConfiguration = EmulatorConfiguration())
    async throws -> EmulatorHarness
  {
    var configuration = configuration
    if configuration.limits.requestTimeoutMilliseconds
      == EmulatorLimits().requestTimeoutMilliseconds
    {
      configuration.limits.requestTimeoutMilliseconds = requestTimeoutMilliseconds
    }
    // The head's own deadline (10 s) would time the test process the same way: a kept-alive
    // connection waits for its next request head while the test waits for a thread.
    if configuration.limits.headTimeoutMilliseconds == EmulatorLimits().headTimeoutMilliseconds {
      configuration.limits.headTimeoutMilliseconds = requestTimeoutMilliseconds
    }
    return EmulatorHarness(server: try await EmulatorServer.start(configuration))
  }

  /// Starts an emulator, runs `body`, and shuts the emulator down, whether `body` throws or not.
  public static func with<Result: Sendable>(
    _ configuration: EmulatorConfiguration = EmulatorConfiguration(),
    _ body: (EmulatorHarness) async throws -> Result
  ) async throws -> Result {
    let harness = try await start(configuration)
    do {
      let result = try await body(harness)
      try await harness.server.shutdown()
      return result
    } catch {
      try? await harness.server.shutdown()
      throw error
    }
  }

  /// The port.
  public var port: Int { server.port }

  /// `127.0.0.1:PORT`, the `Host` header every request sends.
  public var hostHeader: String { server.authority }

  /// The credentials the server accepts.
  public var credentials: Credentials { server.credentials }

  /// A request with `Host`, `Content-Type` (when given) and the chosen authorisation, signed over
  /// exactly `target`.
  public func request(
    _ method: String = "GET", _ target: String, signing: Signing = .qiniu,
    credentials: Credentials? = nil,
    contentType: String? = RequestSigning.formContentType, headers: [(String, String)] = [],
    body: [UInt8] = []
  ) -> RawHTTPRequest {
    var allHeaders: [(String, String)] = [("Host", hostHeader)]
    if let contentType { allHeaders.append(("Content-Type", contentType)) }
    allHeaders.append(contentsOf: headers)
    let signer = credentials ?? self.credentials
    switch signing {
    case .qiniu(let date):
      allHeaders.append(("X-Qiniu-Date", RequestSigning.qiniuDate(date ?? Date())))
      allHeaders.append(
        ("Authorization", qiniuAuthorization(method, target, allHeaders, body, signer)))
    case .qiniuWithoutDate:
      allHeaders.append(
        ("Authorization", qiniuAuthorization(method, target, allHeaders, body, signer)))
    case .qbox:
      let signable = SignableRequest(
        method: method, url: target, host: hostHeader, contentType: contentType,
        headers: allHeaders, body: body)
      allHeaders.append(
        ("Authorization", RequestSigning.qboxAuthorization(for: signable, credentials: signer)))
    case .none:
      break
    }
    return RawHTTPRequest(method: method, target: target, headers: allHeaders, body: body)
  }

  private func qiniuAuthorization(
    _ method: String, _ target: String, _ headers: [(String, String)], _ body: [UInt8],
    _ credentials: Credentials
  ) -> String {
    let signable = SignableRequest(
      method: method, url: target, host: hostHeader,
      contentType: headers.first(where: { $0.0 == "Content-Type" })?.1, headers: headers,
      body: body)
    return RequestSigning.qiniuAuthorization(for: signable, credentials: credentials)
  }

  /// Sends a request on a new connection.
  public func send(_ request: RawHTTPRequest, timeout: Duration = .seconds(300)) async throws
    -> RawHTTPResult
  {
    try await RawHTTPClient.send(request, port: port, timeout: timeout)
  }

  /// Sends a request and returns its response.
  ///
  /// - Throws: `RawHTTPError` when the connection ends without a complete response.
  public func response(to request: RawHTTPRequest) async throws -> RawHTTPResponse {
    let result = try await send(request)
    guard let response = result.response else {
      throw RawHTTPError(description: "no response to \(request.target): \(result.summary)")
    }
    return response
  }

  /// `GET target`, signed as asked.
  public func get(_ target: String, signing: Signing = .qiniu) async throws -> RawHTTPResponse {
    try await response(to: request("GET", target, signing: signing))
  }

  /// An unsigned `GET` with only a `Host` header, as a download client sends it.
  public func download(_ target: String, method: String = "GET", headers: [(String, String)] = [])
    async throws -> RawHTTPResponse
  {
    try await response(
      to: RawHTTPRequest(
        method: method, target: target, headers: [("Host", hostHeader)] + headers))
  }

  /// The path and query of a private download URL for `key` in `bucket`, signed until `deadline`.
  public func privateDownloadTarget(bucket: String, key: String, deadline: Int64) -> String {
    let url = DownloadURL.privateURL(
      baseURL: DownloadURL.publicURL(domain: server.downloadDomain(for: bucket), key: key),
      deadline: deadline, credentials: credentials)
    return URLParts(url).pathAndQuery
  }

  /// The path of a public download URL for `key` in `bucket`.
  public func publicDownloadTarget(bucket: String, key: String) -> String {
    URLParts(DownloadURL.publicURL(domain: server.downloadDomain(for: bucket), key: key)).path
  }

  /// `/stat/<EncodedEntryURI>`.
  public static func statTarget(bucket: String, key: String) -> String {
    "/stat/" + EncodedEntryURI.encode(bucket: bucket, key: key)
  }

  /// `/list?bucket=…` with each given parameter percent-encoded (RFC 3986), in order.
  public static func listTarget(
    bucket: String, prefix: String? = nil, delimiter: String? = nil, marker: String? = nil,
    limit: Int? = nil
  ) -> String {
    var query = QueryString()
    query.append("bucket", bucket)
    if let prefix { query.append("prefix", prefix) }
    if let delimiter { query.append("delimiter", delimiter) }
    if let marker { query.append("marker", marker) }
    if let limit { query.append("limit", String(limit)) }
    return "/list?" + query.encoded
  }
}
