import CCurl
import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An ``HTTPTransport`` backed by libcurl. The only file in the package that imports `CCurl`.
///
/// What it does on the wire:
/// - Sends exactly the request's method, URL bytes (no re-encoding, no dot-segment removal),
///   header fields in the given order, and body. It adds `User-Agent` (from the configuration),
///   `Accept-Encoding` (every encoding libcurl can decode; the body is returned decoded) and
///   `Host`; it suppresses `Expect: 100-continue` and libcurl's implicit `Content-Type` for
///   bodies. A `POST`, `PUT` or `PATCH` with an empty body carries `Content-Length: 0`; `HEAD`
///   asks for no body.
/// - Speaks HTTP/2 where a TLS server offers it, HTTP/1.1 with keep-alive otherwise.
/// - Verifies TLS certificates and host names unless ``Configuration/verifyTLS`` is turned off
///   explicitly.
/// - Honours the usual proxy environment variables, which libcurl reads itself because this
///   transport never sets a proxy: `http_proxy` (lower case only), `https_proxy`/`HTTPS_PROXY`,
///   `ALL_PROXY`/`all_proxy` and `NO_PROXY`/`no_proxy`. Only ``ProxyPolicy/none`` turns that off.
/// - Follows no redirects in ``send(_:)``; ``download(_:to:)`` follows up to
///   ``Configuration/maxDownloadRedirects`` `http`/`https` redirects (libcurl does not forward
///   custom `Authorization` headers to another host).
/// - Reports every answer that arrives, whatever its status; throws `KodoError` only when no
///   complete answer arrived.
///
/// Connection reuse: each libcurl easy handle keeps its own cache of live connections, so the
/// transport keeps a pool of idle easy handles (guarded by a `Mutex`) and hands one to each
/// transfer, most recently used first. Sequential requests to one host therefore ride one
/// keep-alive connection, and concurrent requests each get a handle of their own, so no handle is
/// ever used by two threads at once. A libcurl share handle with `CURL_LOCK_DATA_CONNECT` was not
/// used because libcurl documents sharing connections between concurrently running threads as
/// unsupported.
///
/// Threads: the blocking `curl_easy_perform` runs on a private serial dispatch queue per transfer
/// (such queues get a thread of their own even when the global pool is busy), never on the Swift
/// cooperative pool; a checked continuation carries the result back.
///
/// Cancellation: cancelling the calling task sets a flag that the transfer's progress, header and
/// write callbacks check (the progress callback runs at least about once a second even when
/// nothing arrives), so the transfer aborts within about a second and the call throws
/// `KodoError(.cancelled, …)`.
public final class CurlTransport: HTTPTransport {
  /// How a ``CurlTransport`` connects, times out and identifies itself.
  public struct Configuration: Sendable, Equatable {
    /// The longest time to resolve the host, connect and finish the TLS handshake. Default 10 s.
    public var connectTimeout: Duration
    /// How long the transfer may run slower than ``minimumBytesPerSecond`` (including waiting for
    /// the answer to start) before it is abandoned. Default 30 s; rounded up to whole seconds.
    public var idleTimeout: Duration
    /// The speed below which the transfer counts as idle. Default 1 byte per second.
    public var minimumBytesPerSecond: Int
    /// The longest a whole transfer may take, or `nil` (the default) for no limit, so that big
    /// downloads are not cut off; ``idleTimeout`` still catches a stalled transfer.
    public var totalTimeout: Duration?
    /// The `User-Agent` header value. Default ``KodoVersion/userAgent`` (`kodo/<version>`).
    public var userAgent: String
    /// Whether to verify the server's TLS certificate and host name. Default `true`; only an
    /// explicit `false` turns verification off.
    public var verifyTLS: Bool
    /// A PEM file of CA certificates to trust instead of the system's, or `nil` (the default) for
    /// libcurl's built-in CA store.
    public var caCertificatesPath: String?
    /// The most redirects ``CurlTransport/download(_:to:)`` follows (only to `http`/`https`).
    /// Default 5. ``CurlTransport/send(_:)`` never follows redirects.
    public var maxDownloadRedirects: Int
    /// The most idle easy handles (each with its live connections) kept for reuse. Default 32.
    public var maxIdleHandles: Int
    /// Whether requests may go through a proxy named in the environment. Default
    /// ``ProxyPolicy/environment``.
    public var proxy: ProxyPolicy

    /// A configuration; every parameter has the documented default.
    public init(
      connectTimeout: Duration = .seconds(10),
      idleTimeout: Duration = .seconds(30),
      minimumBytesPerSecond: Int = 1,
      totalTimeout: Duration? = nil,
      userAgent: String = KodoVersion.userAgent,
      verifyTLS: Bool = true,
      caCertificatesPath: String? = nil,
      maxDownloadRedirects: Int = 5,
      maxIdleHandles: Int = 32,
      proxy: ProxyPolicy = .environment
    ) {
      self.connectTimeout = connectTimeout
      self.idleTimeout = idleTimeout
      self.minimumBytesPerSecond = minimumBytesPerSecond
      self.totalTimeout = totalTimeout
      self.userAgent = userAgent
      self.verifyTLS = verifyTLS
      self.caCertificatesPath = caCertificatesPath
      self.maxDownloadRedirects = maxDownloadRedirects
      self.maxIdleHandles = maxIdleHandles
      self.proxy = proxy
    }
  }

  /// Where a ``CurlTransport`` takes its proxy from.
  public enum ProxyPolicy: Sendable, Equatable {
    /// libcurl reads `http_proxy`, `https_proxy`/`HTTPS_PROXY`, `ALL_PROXY`/`all_proxy` and
    /// `NO_PROXY`/`no_proxy` itself, for every request (libcurl ignores upper-case `HTTP_PROXY`).
    case environment
    /// Never use a proxy, whatever the environment says (`CURLOPT_NOPROXY "*"`); for talking to
    /// a loopback server, as the tests do.
    case none
  }

  /// Counters over the life of one transport, for observing connection reuse.
  ///
  /// A test can send 100 requests to one server and expect `newConnections == 1`.
  public struct Metrics: Sendable, Equatable {
    /// Transfers that were started (whether or not they succeeded).
    public var requests: Int
    /// Connections opened, summed over transfers (libcurl's `CURLINFO_NUM_CONNECTS`); a transfer
    /// that reused a kept-alive connection adds 0.
    public var newConnections: Int

    /// Counters from their values.
    public init(requests: Int = 0, newConnections: Int = 0) {
      self.requests = requests
      self.newConnections = newConnections
    }
  }

  /// The configuration the transport was created with.
  public let configuration: Configuration

  private let idleHandles = Mutex<[EasyHandle]>([])
  private let counters = Mutex(Metrics())

  /// `curl_global_init`, run once per process before the first handle is made.
  private static let globalInitCode: UInt32 = kodo_curl_global_init_all().rawValue

  /// A transport with `configuration`.
  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  deinit {
    let handles = idleHandles.withLock { handles in
      let all = handles
      handles.removeAll()
      return all
    }
    for handle in handles { curl_easy_cleanup(handle.raw) }
  }

  /// The counters so far.
  public var metrics: Metrics { counters.withLock { $0 } }

  /// Sends `request` and buffers the whole (decoded) response body.
  ///
  /// - Throws: `KodoError` when no complete answer arrived (see ``CurlTransport``).
  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try await transfer(request, destination: nil)
  }

  /// Sends `request`; a 2xx body is written to `fileDescriptor` with `write(2)` as it arrives,
  /// any other status's body is buffered in the response and the descriptor is left untouched.
  ///
  /// Redirects are followed (see ``Configuration/maxDownloadRedirects``). The response's
  /// `streamedByteCount` is the number of bytes written. SIGPIPE is blocked on the transfer's
  /// thread, so a closed pipe surfaces as `KodoError(.outputClosed, …)` rather than a signal.
  ///
  /// - Throws: `KodoError`: `.outputClosed` when the reader of `fileDescriptor` went away,
  ///   `.localIO` for any other write failure, and otherwise as ``send(_:)``.
  public func download(_ request: HTTPRequest, to fileDescriptor: Int32) async throws
    -> HTTPResponse
  {
    try await transfer(request, destination: fileDescriptor)
  }

  // MARK: - Running a transfer

  private func transfer(_ request: HTTPRequest, destination: Int32?) async throws -> HTTPResponse {
    try Self.validate(request)
    let flag = CancellationFlag()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<HTTPResponse, any Error>) in
        // A serial queue of its own per transfer: it is served by a thread that may block in
        // curl_easy_perform without starving the cooperative pool or other transfers.
        DispatchQueue(label: "kodo.curl.transfer").async {
          let result = Result { () throws(KodoError) -> HTTPResponse in
            try self.performBlocking(request, destination: destination, cancellation: flag)
          }
          continuation.resume(with: result.mapError { $0 as any Error })
        }
      }
    } onCancel: {
      flag.cancel()
    }
  }

  private func performBlocking(
    _ request: HTTPRequest, destination: Int32?, cancellation: CancellationFlag
  ) throws(KodoError) -> HTTPResponse {
    if cancellation.isCancelled { throw Self.cancelledError() }
    guard Self.globalInitCode == CURLE_OK.rawValue else {
      throw KodoError(
        .configuration,
        "libcurl failed to initialise (" + Self.curlText(CURLcode(Self.globalInitCode))
          + "); check the libcurl installation")
    }
    let handle = try checkOut()
    defer { checkIn(handle) }

    let context = TransferContext(
      destination: destination, cancellation: cancellation, body: request.body)
    var headerList: UnsafeMutablePointer<curl_slist>? = nil
    defer { curl_slist_free_all(headerList) }

    return try withExtendedLifetime(context) { () throws(KodoError) -> HTTPResponse in
      headerList = try Self.makeHeaderList(for: request)
      try configure(handle, request: request, context: context, headers: headerList)

      let code = SignalPipeGuard.run { curl_easy_perform(handle.raw) }
      var connects = 0
      if kodo_curl_easy_getinfo_long(handle.raw, CURLINFO_NUM_CONNECTS, &connects) != CURLE_OK {
        connects = 0
      }
      counters.withLock {
        $0.requests += 1
        $0.newConnections += connects
      }

      guard code == CURLE_OK else {
        throw Self.error(
          for: code, handle: handle, request: request, context: context,
          totalTimeout: configuration.totalTimeout)
      }
      var status = 0
      let statusCode = kodo_curl_easy_getinfo_long(handle.raw, CURLINFO_RESPONSE_CODE, &status)
      guard statusCode == CURLE_OK, (100...999).contains(status) else {
        throw KodoError(
          .protocolError,
          Self.endpoint(of: handle, request: request)
            + " sent an answer without a valid HTTP status")
      }
      return HTTPResponse(
        status: status, headers: HTTPHeaders(context.headerFields), body: context.body,
        streamedByteCount: context.streamedByteCount)
    }
  }

  // MARK: - The handle pool

  private func checkOut() throws(KodoError) -> EasyHandle {
    if let handle = idleHandles.withLock({ $0.popLast() }) { return handle }
    guard let raw = curl_easy_init() else {
      throw KodoError(.localIO, "libcurl could not create a transfer handle (out of memory)")
    }
    return EasyHandle(raw: raw)
  }

  private func checkIn(_ handle: EasyHandle) {
    // Clears every option (and so every pointer into this transfer's memory) but keeps the
    // handle's live connections, DNS cache and TLS session cache.
    curl_easy_reset(handle.raw)
    let limit = max(0, configuration.maxIdleHandles)
    let kept = idleHandles.withLock { handles in
      guard handles.count < limit else { return false }
      handles.append(handle)
      return true
    }
    if !kept { curl_easy_cleanup(handle.raw) }
  }

  // MARK: - Options

  private func configure(
    _ handle: EasyHandle, request: HTTPRequest, context: TransferContext,
    headers: UnsafeMutablePointer<curl_slist>?
  ) throws(KodoError) {
    let userData = Unmanaged.passUnretained(context).toOpaque()
    let isDownload = context.destination != nil

    try handle.set(CURLOPT_URL, string: request.url, name: "CURLOPT_URL")
    // Keep `/./` and `/../` in object keys: the path goes out exactly as given.
    try handle.set(CURLOPT_PATH_AS_IS, 1, name: "CURLOPT_PATH_AS_IS")
    try handle.set(CURLOPT_PROTOCOLS_STR, string: "http,https", name: "CURLOPT_PROTOCOLS_STR")
    try handle.set(CURLOPT_NOSIGNAL, 1, name: "CURLOPT_NOSIGNAL")
    try handle.set(
      CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(context.errorBuffer),
      name: "CURLOPT_ERRORBUFFER")

    // Method and body.
    switch request.method {
    case "GET" where request.body.isEmpty:
      try handle.set(CURLOPT_HTTPGET, 1, name: "CURLOPT_HTTPGET")
    case "HEAD" where request.body.isEmpty:
      try handle.set(CURLOPT_NOBODY, 1, name: "CURLOPT_NOBODY")
    default:
      let sendsBody = !request.body.isEmpty || Self.methodsWithBody.contains(request.method)
      if sendsBody {
        try handle.set(CURLOPT_POST, 1, name: "CURLOPT_POST")
        try handle.set(
          CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(request.body.count),
          name: "CURLOPT_POSTFIELDSIZE_LARGE")
        try handle.set(CURLOPT_POSTFIELDS, pointer: context.requestBody, name: "CURLOPT_POSTFIELDS")
      }
      if request.method != "POST" || !sendsBody {
        try handle.set(CURLOPT_CUSTOMREQUEST, string: request.method, name: "CURLOPT_CUSTOMREQUEST")
      }
    }
    try handle.set(CURLOPT_HTTPHEADER, list: headers, name: "CURLOPT_HTTPHEADER")
    try handle.set(CURLOPT_USERAGENT, string: configuration.userAgent, name: "CURLOPT_USERAGENT")
    // "" offers every encoding this libcurl can decode and makes it decode the body.
    try handle.set(CURLOPT_ACCEPT_ENCODING, string: "", name: "CURLOPT_ACCEPT_ENCODING")
    // HTTP/2 over TLS when the server offers it. A libcurl built without HTTP/2 refuses the
    // option; HTTP/1.1 is then the right outcome, so that refusal is not an error.
    _ = kodo_curl_easy_setopt_long(handle.raw, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
    try handle.set(CURLOPT_TCP_KEEPALIVE, 1, name: "CURLOPT_TCP_KEEPALIVE")
    try handle.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1, name: "CURLOPT_SUPPRESS_CONNECT_HEADERS")

    // Redirects: only downloads follow them, and only to http/https.
    if isDownload {
      try handle.set(CURLOPT_FOLLOWLOCATION, 1, name: "CURLOPT_FOLLOWLOCATION")
      try handle.set(
        CURLOPT_MAXREDIRS, max(0, configuration.maxDownloadRedirects), name: "CURLOPT_MAXREDIRS")
      try handle.set(
        CURLOPT_REDIR_PROTOCOLS_STR, string: "http,https", name: "CURLOPT_REDIR_PROTOCOLS_STR")
    } else {
      try handle.set(CURLOPT_FOLLOWLOCATION, 0, name: "CURLOPT_FOLLOWLOCATION")
    }

    // Proxy: never set CURLOPT_PROXY, so libcurl keeps reading the environment, unless the
    // configuration opts out of proxies altogether.
    if configuration.proxy == .none {
      try handle.set(CURLOPT_NOPROXY, string: "*", name: "CURLOPT_NOPROXY")
    }

    // TLS.
    let verify = configuration.verifyTLS
    try handle.set(CURLOPT_SSL_VERIFYPEER, verify ? 1 : 0, name: "CURLOPT_SSL_VERIFYPEER")
    try handle.set(CURLOPT_SSL_VERIFYHOST, verify ? 2 : 0, name: "CURLOPT_SSL_VERIFYHOST")
    if let path = configuration.caCertificatesPath {
      try handle.set(CURLOPT_CAINFO, string: path, name: "CURLOPT_CAINFO")
    }

    // Time limits: none of them may be 0, which libcurl reads as "no limit".
    try handle.set(
      CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.wholeMilliseconds,
      name: "CURLOPT_CONNECTTIMEOUT_MS")
    try handle.set(
      CURLOPT_LOW_SPEED_LIMIT, max(1, configuration.minimumBytesPerSecond),
      name: "CURLOPT_LOW_SPEED_LIMIT")
    try handle.set(
      CURLOPT_LOW_SPEED_TIME, configuration.idleTimeout.wholeSecondsRoundedUp,
      name: "CURLOPT_LOW_SPEED_TIME")
    try handle.set(
      CURLOPT_TIMEOUT_MS, configuration.totalTimeout?.wholeMilliseconds ?? 0,
      name: "CURLOPT_TIMEOUT_MS")

    // Callbacks.
    try handle.set(
      CURLOPT_HEADERFUNCTION, callback: curlHeaderCallback, name: "CURLOPT_HEADERFUNCTION")
    try handle.set(CURLOPT_HEADERDATA, pointer: userData, name: "CURLOPT_HEADERDATA")
    try handle.set(
      CURLOPT_WRITEFUNCTION, callback: curlWriteCallback, name: "CURLOPT_WRITEFUNCTION")
    try handle.set(CURLOPT_WRITEDATA, pointer: userData, name: "CURLOPT_WRITEDATA")
    try handle.check(
      kodo_curl_easy_setopt_xferinfo_callback(handle.raw, curlProgressCallback),
      name: "CURLOPT_XFERINFOFUNCTION")
    try handle.set(CURLOPT_XFERINFODATA, pointer: userData, name: "CURLOPT_XFERINFODATA")
    try handle.set(CURLOPT_NOPROGRESS, 0, name: "CURLOPT_NOPROGRESS")
  }

  /// Methods that carry `Content-Length: 0` even with an empty body.
  private static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

  /// The caller's header fields in order, plus `Expect:` (no 100-continue) and `Content-Type:`
  /// (no implicit form type) unless the caller set those fields.
  private static func makeHeaderList(
    for request: HTTPRequest
  ) throws(KodoError) -> UnsafeMutablePointer<curl_slist>? {
    var lines: [String] = []
    for field in request.headers {
      // `Name;` is libcurl's spelling of a field with an empty value (`Name:` would remove it).
      lines.append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
    }
    if request.headers["Expect"] == nil { lines.append("Expect:") }
    if request.headers["Content-Type"] == nil { lines.append("Content-Type:") }

    var list: UnsafeMutablePointer<curl_slist>? = nil
    for line in lines {
      guard let extended = curl_slist_append(list, line) else {
        curl_slist_free_all(list)
        throw KodoError(.localIO, "libcurl could not store the request headers (out of memory)")
      }
      list = extended
    }
    return list
  }

  /// Rejects what cannot be sent as given: a non-HTTP URL, NUL bytes, line breaks in a header.
  private static func validate(_ request: HTTPRequest) throws(KodoError) {
    let parts = URLParts(request.url)
    guard parts.scheme == "http" || parts.scheme == "https", !parts.authority.isEmpty else {
      throw KodoError(
        .invalidInput, "cannot send a request to a URL that is not http:// or https:// with a host")
    }
    guard !request.url.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
      throw KodoError(.invalidInput, "the request URL contains a NUL or line-break byte")
    }
    guard !request.method.isEmpty, request.method.utf8.allSatisfy(RequestSigning.isTokenByte) else {
      throw KodoError(
        .invalidInput, "the request method " + DisplayText.quoted(request.method) + " is not valid")
    }
    for field in request.headers {
      guard !field.name.isEmpty, field.name.utf8.allSatisfy(RequestSigning.isTokenByte) else {
        throw KodoError(
          .invalidInput,
          "the request header name " + DisplayText.quoted(field.name) + " is not valid")
      }
      // The value is never shown: it may be a credential.
      guard !field.value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
        throw KodoError(
          .invalidInput,
          "the value of request header " + DisplayText.quoted(field.name)
            + " contains a NUL or line-break byte")
      }
    }
  }

  // MARK: - Errors

  private static func cancelledError() -> KodoError {
    KodoError(.cancelled, "the request was cancelled")
  }

  private static let tlsErrors: [CURLcode] = [
    CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
    CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
    CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
    CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
    CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT,
  ]

  private static let droppedConnectionErrors: [CURLcode] = [
    CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2,
    CURLE_HTTP2_STREAM, CURLE_SEND_FAIL_REWIND, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR,
  ]

  private static let malformedAnswerErrors: [CURLcode] = [
    CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_UNSUPPORTED_PROTOCOL,
    CURLE_RANGE_ERROR, CURLE_BAD_DOWNLOAD_RESUME,
  ]

  /// The `KodoError` for a failed `curl_easy_perform`. Never mentions request headers or the
  /// query (which may carry a download token).
  private static func error(
    for code: CURLcode, handle: EasyHandle, request: HTTPRequest, context: TransferContext,
    totalTimeout: Duration?
  ) -> KodoError {
    switch context.failure {
    case .cancelled?:
      return cancelledError()
    case .write(let number)?:
      if number == EPIPE {
        return KodoError(
          .outputClosed, "the output was closed before the download finished (broken pipe)")
      }
      return KodoError(.localIO, "cannot write the download: " + errnoText(number))
    case nil:
      break
    }
    if code == CURLE_ABORTED_BY_CALLBACK || context.cancellation.isCancelled {
      return cancelledError()
    }

    let place = endpoint(of: handle, request: request)
    let why = detail(for: code, context: context)
    switch code {
    case CURLE_COULDNT_RESOLVE_HOST:
      return KodoError(
        .unavailable,
        "cannot resolve host " + place + " (" + why
          + "); check the host name, your DNS and proxy settings")
    case CURLE_COULDNT_RESOLVE_PROXY:
      return KodoError(
        .unavailable,
        "cannot resolve the proxy host (" + why
          + "); check https_proxy, http_proxy and ALL_PROXY")
    case CURLE_COULDNT_CONNECT:
      var osErrno = 0
      let reason =
        kodo_curl_easy_getinfo_long(handle.raw, CURLINFO_OS_ERRNO, &osErrno) == CURLE_OK
          && osErrno != 0 ? errnoText(Int32(clamping: osErrno)) : why
      return KodoError(
        .unavailable,
        "cannot connect to " + place + " (" + reason + "); check the host and your network")
    case CURLE_OPERATION_TIMEDOUT:
      return timeoutError(
        handle: handle, endpoint: place, detail: why, totalTimeout: totalTimeout)
    case CURLE_PROXY:
      return KodoError(
        .unavailable,
        "the proxy failed to reach " + place + " (" + why + "); check your proxy settings")
    case _ where tlsErrors.contains(code):
      return KodoError(
        .unavailable,
        "TLS with " + place + " failed (" + why
          + "); check the server certificate, the CA certificates and the system clock")
    case _ where droppedConnectionErrors.contains(code):
      return KodoError(
        .temporary,
        "the connection to " + place + " dropped before a complete answer arrived (" + why
          + ")")
    case CURLE_TOO_MANY_REDIRECTS:
      return KodoError(.protocolError, place + " redirected too many times (" + why + ")")
    case _ where malformedAnswerErrors.contains(code):
      return KodoError(
        .protocolError, place + " sent an answer that cannot be understood (" + why + ")")
    case CURLE_URL_MALFORMAT:
      return KodoError(.invalidInput, "the request URL is malformed (" + why + ")")
    case CURLE_OUT_OF_MEMORY:
      return KodoError(.localIO, "out of memory during the request to " + place)
    case CURLE_WRITE_ERROR:
      return KodoError(.localIO, "cannot store the answer from " + place + " (" + why + ")")
    default:
      return KodoError(
        .unavailable,
        "the request to " + place + " failed (curl error \(code.rawValue): " + why + ")")
    }
  }

  /// A connect timeout, an idle (low-speed) timeout or the total timeout, told apart by how far
  /// the transfer got and how long it ran.
  private static func timeoutError(
    handle: EasyHandle, endpoint: String, detail: String, totalTimeout: Duration?
  ) -> KodoError {
    var connectMicroseconds: curl_off_t = 0
    let connected =
      kodo_curl_easy_getinfo_off_t(handle.raw, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
      == CURLE_OK && connectMicroseconds > 0
    if !connected {
      return KodoError(
        .unavailable,
        "timed out connecting to " + endpoint + " (" + detail
          + "); check the host and your network")
    }
    var totalMicroseconds: curl_off_t = 0
    if let totalTimeout,
      kodo_curl_easy_getinfo_off_t(handle.raw, CURLINFO_TOTAL_TIME_T, &totalMicroseconds)
        == CURLE_OK,
      totalMicroseconds / 1000 >= totalTimeout.wholeMilliseconds
    {
      return KodoError(
        .unavailable,
        "the transfer from " + endpoint + " did not finish within " + totalTimeout.spoken + " ("
          + detail + "); allow more time or try again")
    }
    return KodoError(
      .unavailable,
      "the transfer from " + endpoint + " stalled (" + detail
        + "); the server or the network may be overloaded, try again")
  }

  /// `host:port` of the URL being fetched (after redirects), without user info, path or query.
  private static func endpoint(of handle: EasyHandle, request: HTTPRequest) -> String {
    var url = request.url
    var effective: UnsafePointer<CChar>? = nil
    if kodo_curl_easy_getinfo_string(handle.raw, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK,
      let effective
    {
      url = String(cString: effective)
    }
    let parts = URLParts(url)
    var host = parts.host
    if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
    let port = parts.port.map { ":\($0)" } ?? ""
    return DisplayText.escaped(host + port)
  }

  /// libcurl's own description: the error buffer when it says something, else the code's text.
  private static func detail(for code: CURLcode, context: TransferContext) -> String {
    var text = String(cString: context.errorBuffer)
    while let last = text.last, last == "\n" || last == "." || last == " " { text.removeLast() }
    return DisplayText.escaped(text.isEmpty ? curlText(code) : text)
  }

  private static func curlText(_ code: CURLcode) -> String {
    guard let text = curl_easy_strerror(code) else { return "curl error \(code.rawValue)" }
    return String(cString: text)
  }
}

/// The text of an `errno` value.
private func errnoText(_ number: Int32) -> String {
  guard let text = strerror(number) else { return "errno \(number)" }
  return String(cString: text)
}

// MARK: - Easy handles

/// A libcurl easy handle.
///
/// `@unchecked Sendable` invariant: a handle is used by one thread at a time. It is either in the
/// transport's idle pool (only touched under its mutex) or checked out by exactly one transfer,
/// which configures, performs and resets it on one thread and then puts it back.
private struct EasyHandle: @unchecked Sendable {
  let raw: UnsafeMutableRawPointer

  func check(_ code: CURLcode, name: String) throws(KodoError) {
    guard code == CURLE_OK else {
      let text = curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
      throw KodoError(
        .configuration,
        "libcurl rejected option " + name + " (" + text
          + "); check that libcurl is 7.85 or newer and built with http and https")
    }
  }

  func set(_ option: CURLoption, _ value: Int, name: String) throws(KodoError) {
    try check(kodo_curl_easy_setopt_long(raw, option, value), name: name)
  }

  func set(_ option: CURLoption, offset: curl_off_t, name: String) throws(KodoError) {
    try check(kodo_curl_easy_setopt_off_t(raw, option, offset), name: name)
  }

  /// libcurl copies string options, so the C string need only live for the call.
  func set(_ option: CURLoption, string: String, name: String) throws(KodoError) {
    try check(string.withCString { kodo_curl_easy_setopt_string(raw, option, $0) }, name: name)
  }

  func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?, name: String) throws(KodoError)
  {
    try check(kodo_curl_easy_setopt_pointer(raw, option, pointer), name: name)
  }

  func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?, name: String)
    throws(KodoError)
  {
    try check(kodo_curl_easy_setopt_slist(raw, option, list), name: name)
  }

  func set(_ option: CURLoption, callback: kodo_curl_data_callback, name: String)
    throws(KodoError)
  {
    try check(kodo_curl_easy_setopt_data_callback(raw, option, callback), name: name)
  }
}

// MARK: - Per-transfer state

/// Set when the calling task is cancelled; read by the transfer's callbacks on its own thread.
private final class CancellationFlag: Sendable {
  private let cancelled = Atomic<Bool>(false)

  var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

  func cancel() { cancelled.store(true, ordering: .relaxed) }
}

/// Everything one transfer's callbacks read and write. Lives on the transfer's thread only; libcurl
/// gets it as an unretained pointer for the duration of `curl_easy_perform`.
private final class TransferContext {
  /// Why a callback stopped the transfer.
  enum Failure {
    case cancelled
    case write(Int32)
  }

  let destination: Int32?
  let cancellation: CancellationFlag
  /// `CURL_ERROR_SIZE` bytes that libcurl fills with a description of a failure.
  let errorBuffer: UnsafeMutablePointer<CChar>
  /// A copy of the request body that outlives `curl_easy_perform` (at least one byte, so that an
  /// empty body is still a valid pointer).
  let requestBody: UnsafeMutableRawPointer

  /// The status of the response being received (0 before its status line).
  var currentStatus = 0
  /// The header fields of the response being received.
  var headerFields: [(String, String)] = []
  var body: [UInt8] = []
  var streamedByteCount: Int64 = 0
  var failure: Failure?

  init(destination: Int32?, cancellation: CancellationFlag, body: [UInt8]) {
    self.destination = destination
    self.cancellation = cancellation
    let errorSize = Int(CURL_ERROR_SIZE) + 1
    errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: errorSize)
    errorBuffer.initialize(repeating: 0, count: errorSize)
    requestBody = UnsafeMutableRawPointer.allocate(
      byteCount: max(1, body.count), alignment: MemoryLayout<UInt8>.alignment)
    body.withUnsafeBytes { bytes in
      if let base = bytes.baseAddress { requestBody.copyMemory(from: base, byteCount: bytes.count) }
    }
  }

  deinit {
    errorBuffer.deallocate()
    requestBody.deallocate()
  }

  /// Whether the transfer should stop because the task was cancelled (and remembers why).
  func shouldAbort() -> Bool {
    guard cancellation.isCancelled else { return false }
    if failure == nil { failure = .cancelled }
    return true
  }

  /// One header line from libcurl: a status line starts a new response (after a redirect or an
  /// interim 1xx), so it drops what the previous response left.
  func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
    var line = String(decoding: bytes, as: UTF8.self)
    while let last = line.last, last == "\r\n" || last == "\n" || last == "\r" {
      line.removeLast()
    }
    if line.hasPrefix("HTTP/") {
      let words = line.split(separator: " ", omittingEmptySubsequences: true)
      currentStatus = words.count > 1 ? Int(words[1]) ?? 0 : 0
      headerFields.removeAll()
      if streamedByteCount == 0 { body.removeAll() }
      return
    }
    guard !line.isEmpty else { return }
    if let first = line.first, first == " " || first == "\t" {
      // An obsolete folded continuation of the previous field.
      if let last = headerFields.indices.last {
        headerFields[last].1 += " " + line.trimmingHTTPWhitespace()
      }
      return
    }
    guard let colon = line.firstIndex(of: ":") else { return }
    let name = String(line[..<colon])
    let value = line[line.index(after: colon)...].trimmingHTTPWhitespace()
    headerFields.append((name, value))
  }

  /// Body bytes from libcurl; returns whether they were all taken.
  func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let destination, (200..<300).contains(currentStatus) else {
      body.append(contentsOf: bytes)
      return true
    }
    guard let base = bytes.baseAddress else { return true }
    var offset = 0
    while offset < bytes.count {
      let written = write(destination, base + offset, bytes.count - offset)
      if written > 0 {
        offset += written
        streamedByteCount += Int64(written)
        continue
      }
      let number = written == 0 ? EIO : errno
      if number == EINTR { continue }
      if number == EAGAIN || number == EWOULDBLOCK {
        // A non-blocking descriptor is full: wait for room, still honouring cancellation.
        var poller = pollfd(fd: destination, events: Int16(POLLOUT), revents: 0)
        _ = poll(&poller, 1, 200)
        if shouldAbort() { return false }
        continue
      }
      failure = .write(number)
      return false
    }
    return true
  }
}

@available(*, unavailable)
extension TransferContext: Sendable {}

extension StringProtocol {
  fileprivate func trimmingHTTPWhitespace() -> String {
    var slice = Substring(self)
    while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
    while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
    return String(slice)
  }
}

// MARK: - libcurl callbacks

/// CURLOPT_HEADERFUNCTION: one header line (status line, field, or the blank end of a header).
private func curlHeaderCallback(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ userData: UnsafeMutableRawPointer?
) -> Int {
  guard let userData else { return 0 }
  let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
  let length = size * count
  if context.shouldAbort() { return length == 0 ? 1 : 0 }
  context.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length))
  return length
}

/// CURLOPT_WRITEFUNCTION: decoded body bytes. Returning anything but `length` aborts the transfer.
private func curlWriteCallback(
  _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
  _ userData: UnsafeMutableRawPointer?
) -> Int {
  guard let userData else { return 0 }
  let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
  let length = size * count
  if context.shouldAbort() { return length == 0 ? 1 : 0 }
  return context.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

/// CURLOPT_XFERINFOFUNCTION: runs often during a transfer and about once a second when idle; a
/// non-zero return aborts with CURLE_ABORTED_BY_CALLBACK.
private func curlProgressCallback(
  _ userData: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloadNow: curl_off_t,
  _ uploadTotal: curl_off_t, _ uploadNow: curl_off_t
) -> Int32 {
  guard let userData else { return 0 }
  let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
  return context.shouldAbort() ? 1 : 0
}

// MARK: - Durations in libcurl's units

extension Duration {
  /// Whole milliseconds, at least 1 (libcurl reads 0 as "no limit").
  fileprivate var wholeMilliseconds: Int {
    let (seconds, attoseconds) = components
    let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
    guard !milliseconds.overflow else { return Int.max }
    return max(1, Int(clamping: milliseconds.partialValue + attoseconds / 1_000_000_000_000_000))
  }

  /// `30 s` or `1500 ms`, for messages.
  fileprivate var spoken: String {
    let milliseconds = wholeMilliseconds
    return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
  }

  /// Whole seconds rounded up, at least 1.
  fileprivate var wholeSecondsRoundedUp: Int {
    let (seconds, attoseconds) = components
    return max(1, Int(clamping: seconds) + (attoseconds > 0 ? 1 : 0))
  }
}
