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

/// An ``HTTPTransport`` backed by libcurl. Only the files in `Transport/Curl/` import `CCurl`.
///
/// What it does on the wire:
/// - Sends exactly the request's method, URL bytes (no re-encoding, no dot-segment removal),
///   header fields in the given order, and body. It adds `User-Agent` (from the configuration),
///   `Accept-Encoding` (every encoding libcurl can decode; the body is returned decoded) and
///   `Host`; it suppresses `Expect: 100-continue` and libcurl's implicit `Content-Type` for
///   bodies. A `POST`, `PUT` or `PATCH` with an empty body carries `Content-Length: 0`; `HEAD`
///   asks for no body.
/// - Reads the body (``RequestBody``: bytes, a file range with `pread`, a stream) as it is sent,
///   through libcurl's read callback, never copying it whole; its length is the
///   `Content-Length`, and a stream of unknown length goes out chunked. The body's observers see
///   the bytes as they go (upload progress, running digests) and start again when libcurl
///   rewinds a rewindable body to send it once more on a fresh connection.
/// - Speaks HTTP/2 where a TLS server offers it, HTTP/1.1 with keep-alive otherwise.
/// - Verifies TLS certificates and host names unless ``Configuration/verifyTLS`` is turned off
///   explicitly.
/// - Honours the usual proxy environment variables, which libcurl reads itself because this
///   transport never sets a proxy: `http_proxy` (lower case only), `https_proxy`/`HTTPS_PROXY`,
///   `ALL_PROXY`/`all_proxy` and `NO_PROXY`/`no_proxy`. Only ``ProxyPolicy/none`` turns that off.
/// - Follows no redirects in ``send(_:)``; ``download(_:to:)`` follows up to
///   ``Configuration/maxDownloadRedirects`` redirects itself, by `RedirectPolicy`'s rule (never
///   from https to http; no credential, token or signature header to another origin).
/// - Reports every answer that arrives, whatever its status; throws `StorageError` only when no
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
/// `StorageError(.cancelled, …)`.
public final class CurlTransport: HTTPTransport {
  /// The configuration the transport was created with.
  public let configuration: Configuration

  private let idleHandles = Mutex<[EasyHandle]>([])
  private let counters = Mutex(Metrics())

  /// `curl_global_init`, run once per process before the first handle is made.
  static let globalInitCode: UInt32 = kodo_curl_global_init_all().rawValue

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
  /// - Throws: `StorageError` when no complete answer arrived (see ``CurlTransport``).
  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try await transfer(request, destination: nil, expectedLength: nil)
  }

  /// Sends `request` as ``send(_:)`` does; `watcher` sees the body so far each time more of a
  /// 2xx answer arrives (from libcurl's write callback), until it has seen enough.
  public func send(_ request: HTTPRequest, watchingBody watcher: BodyWatcher) async throws
    -> HTTPResponse
  {
    try await transfer(request, destination: nil, expectedLength: nil, watcher: watcher)
  }

  /// Sends `request`; a 2xx body (206 only, for a request with a `Range`) is written to
  /// `fileDescriptor` with `write(2)` as it arrives,
  /// exactly as the server stores it (no `Accept-Encoding`, nothing decompressed), any other
  /// status's body is buffered in the response and the descriptor is left untouched.
  ///
  /// Redirects are followed (see ``Configuration/maxDownloadRedirects``). The response's
  /// `streamedByteCount` is the number of bytes written. With `expectedLength`, the transfer
  /// stops before a byte past that length is written, and a shorter body is an error too.
  /// SIGPIPE is blocked on the transfer's thread, so a closed pipe surfaces as
  /// `StorageError(.outputClosed, …)` rather than a signal.
  ///
  /// - Throws: `StorageError`, with `writtenBytes` set: `.outputClosed` when the reader of
  ///   `fileDescriptor` went away, `.localIO` for any other write failure, `.protocolError` for a
  ///   body of another length than expected, and otherwise as ``send(_:)``.
  public func download(
    _ request: HTTPRequest, to fileDescriptor: Int32, expectedLength: Int64?,
    digest: StreamedDigest?
  ) async throws -> HTTPResponse {
    try await downloadFollowingRedirects(request) { hop in
      try await transfer(
        hop, destination: fileDescriptor, expectedLength: expectedLength, digest: digest)
    }
  }

  // MARK: - Running a transfer

  private func transfer(
    _ request: HTTPRequest, destination: Int32?, expectedLength: Int64?,
    digest: StreamedDigest? = nil, watcher: BodyWatcher? = nil
  ) async throws -> HTTPResponse {
    try Self.validate(request)
    let flag = CancellationFlag()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<HTTPResponse, any Error>) in
        // A serial queue of its own per transfer: it is served by a thread that may block in
        // curl_easy_perform without starving the cooperative pool or other transfers.
        DispatchQueue(label: "kodo.curl.transfer").async {
          let result = Result { () throws(StorageError) -> HTTPResponse in
            try self.performBlocking(
              request, destination: destination, expectedLength: expectedLength,
              digest: digest, watcher: watcher, cancellation: flag)
          }
          continuation.resume(with: result.mapError { $0 as any Error })
        }
      }
    } onCancel: {
      flag.cancel()
    }
  }

  private func performBlocking(
    _ request: HTTPRequest, destination: Int32?, expectedLength: Int64?,
    digest: StreamedDigest?, watcher: BodyWatcher?, cancellation: CancellationFlag
  ) throws(StorageError) -> HTTPResponse {
    if cancellation.isCancelled { throw Self.cancelledError() }
    guard Self.globalInitCode == CURLE_OK.rawValue else {
      throw StorageError(
        .configuration,
        "libcurl failed to initialise (" + Self.curlText(CURLcode(Self.globalInitCode))
          + "); check the libcurl installation")
    }
    let handle = try checkOut()
    defer { checkIn(handle) }

    let reader = try Self.sendsBody(request) ? BodyReader(request.body) : nil
    let context = TransferContext(
      destination: destination, digest: digest, watcher: watcher, cancellation: cancellation,
      body: reader,
      limits: TransferContext.Limits(
        body: configuration.maximumBodySize, errorBody: configuration.maximumErrorBodySize,
        headers: configuration.maximumHeaderSize, expectedLength: expectedLength,
        partialOnly: destination != nil && request.headers["Range"] != nil))
    var headerList: UnsafeMutablePointer<curl_slist>? = nil
    defer { curl_slist_free_all(headerList) }

    return try withExtendedLifetime(context) { () throws(StorageError) -> HTTPResponse in
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
        var failure = Self.error(
          for: code, handle: handle, request: request, context: context,
          totalTimeout: overallTimeout(request, isDownload: destination != nil))
        if destination != nil { failure.writtenBytes = context.streamedByteCount }
        failure.neverSent = Self.failedBeforeSending(code, handle: handle, context: context)
        throw failure
      }
      var status = 0
      let statusCode = kodo_curl_easy_getinfo_long(handle.raw, CURLINFO_RESPONSE_CODE, &status)
      guard statusCode == CURLE_OK, (100...999).contains(status) else {
        throw StorageError(
          .protocolError,
          Self.endpoint(of: handle, request: request)
            + " sent an answer without a valid HTTP status")
      }
      if let expectedLength, (200..<300).contains(status),
        !context.limits.partialOnly || status == 206,
        context.streamedByteCount != expectedLength
      {
        var failure = StorageError(
          .protocolError,
          Self.endpoint(of: handle, request: request) + " sent "
            + String(context.streamedByteCount) + " bytes where "
            + String(expectedLength) + " were expected; the answer was cut short")
        failure.writtenBytes = context.streamedByteCount
        throw failure
      }
      return HTTPResponse(
        status: status, headers: HTTPHeaders(context.headerFields), body: context.body,
        streamedByteCount: context.streamedByteCount)
    }
  }

  // MARK: - The handle pool

  private func checkOut() throws(StorageError) -> EasyHandle {
    if let handle = idleHandles.withLock({ $0.popLast() }) { return handle }
    guard let raw = curl_easy_init() else {
      throw StorageError(.localIO, "libcurl could not create a transfer handle (out of memory)")
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
  ) throws(StorageError) {
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
      if context.bodyReader != nil {
        try configureBody(handle, length: request.body.length, userData: userData)
      }
      if request.method != "POST" || context.bodyReader == nil {
        try handle.set(CURLOPT_CUSTOMREQUEST, string: request.method, name: "CURLOPT_CUSTOMREQUEST")
      }
    }
    try handle.set(CURLOPT_HTTPHEADER, list: headers, name: "CURLOPT_HTTPHEADER")
    try handle.set(CURLOPT_USERAGENT, string: configuration.userAgent, name: "CURLOPT_USERAGENT")
    // API answers: "" offers every encoding this libcurl can decode and makes it decode the
    // body. Downloads deliver the stored bytes exactly, as `curl -o` does: nothing is asked for
    // or decoded (an object stored gzip-encoded stays gzip-encoded).
    if !isDownload {
      try handle.set(CURLOPT_ACCEPT_ENCODING, string: "", name: "CURLOPT_ACCEPT_ENCODING")
    }
    // HTTP/2 over TLS when the server offers it. A libcurl built without HTTP/2 refuses the
    // option; HTTP/1.1 is then the right outcome, so that refusal is not an error.
    _ = kodo_curl_easy_setopt_long(handle.raw, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
    try handle.set(CURLOPT_TCP_KEEPALIVE, 1, name: "CURLOPT_TCP_KEEPALIVE")
    try handle.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1, name: "CURLOPT_SUPPRESS_CONNECT_HEADERS")

    // Redirects: libcurl follows none; downloads follow them hop by hop
    // (`downloadFollowingRedirects`), by `RedirectPolicy`'s rule.
    try handle.set(CURLOPT_FOLLOWLOCATION, 0, name: "CURLOPT_FOLLOWLOCATION")

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
    let overall = overallTimeout(request, isDownload: isDownload)
    try handle.set(
      CURLOPT_TIMEOUT_MS, overall?.wholeMilliseconds ?? 0, name: "CURLOPT_TIMEOUT_MS")

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

  /// Whether `request` sends a body (possibly an empty one, with `Content-Length: 0`).
  static func sendsBody(_ request: HTTPRequest) -> Bool {
    switch request.method {
    case "GET", "HEAD": !request.body.isEmpty
    default: !request.body.isEmpty || methodsWithBody.contains(request.method)
    }
  }

  /// The limit on a whole transfer: ``Configuration/totalTimeout`` for downloads and for uploads
  /// of a body larger than 1 MiB or of unknown length (which may rightly take long; the idle
  /// timeout still ends a stalled one), ``Configuration/requestTimeout`` for API requests.
  func overallTimeout(_ request: HTTPRequest, isDownload: Bool) -> Duration? {
    let largeBody = request.body.length.map { $0 > 1 << 20 } ?? true
    return isDownload || largeBody ? configuration.totalTimeout : configuration.requestTimeout
  }

  /// The body goes out through the read callback, which reads it as libcurl sends it (and the
  /// seek callback, which rewinds it when libcurl must send it again). A known length is the
  /// `Content-Length`; an unknown one is sent chunked.
  private func configureBody(
    _ handle: EasyHandle, length: Int64?, userData: UnsafeMutableRawPointer
  ) throws(StorageError) {
    try handle.set(CURLOPT_POST, 1, name: "CURLOPT_POST")
    try handle.set(
      CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(length ?? -1),
      name: "CURLOPT_POSTFIELDSIZE_LARGE")
    try handle.set(CURLOPT_READFUNCTION, callback: curlReadCallback, name: "CURLOPT_READFUNCTION")
    try handle.set(CURLOPT_READDATA, pointer: userData, name: "CURLOPT_READDATA")
    try handle.check(
      kodo_curl_easy_setopt_seek_callback(handle.raw, curlSeekCallback),
      name: "CURLOPT_SEEKFUNCTION")
    try handle.set(CURLOPT_SEEKDATA, pointer: userData, name: "CURLOPT_SEEKDATA")
  }

  /// The caller's header fields in order, plus `Expect:` (no 100-continue) and `Content-Type:`
  /// (no implicit form type) unless the caller set those fields.
  private static func makeHeaderList(
    for request: HTTPRequest
  ) throws(StorageError) -> UnsafeMutablePointer<curl_slist>? {
    var lines: [String] = []
    for field in request.headers {
      // `Name;` is libcurl's spelling of a field with an empty value (`Name:` would remove it).
      lines.append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
    }
    if request.headers["Expect"] == nil { lines.append("Expect:") }
    if request.headers["Content-Type"] == nil { lines.append("Content-Type:") }
    if sendsBody(request), request.body.length == nil, request.headers["Transfer-Encoding"] == nil {
      lines.append("Transfer-Encoding: chunked")
    }

    var list: UnsafeMutablePointer<curl_slist>? = nil
    for line in lines {
      guard let extended = curl_slist_append(list, line) else {
        curl_slist_free_all(list)
        throw StorageError(.localIO, "libcurl could not store the request headers (out of memory)")
      }
      list = extended
    }
    return list
  }

  /// Rejects what cannot be sent as given: a non-HTTP URL, NUL bytes, line breaks in a header.
  private static func validate(_ request: HTTPRequest) throws(StorageError) {
    guard URLParts(request.url).isHTTPWithHost else {
      throw StorageError(
        .invalidInput, "cannot send a request to a URL that is not http:// or https:// with a host")
    }
    guard !request.url.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
      throw StorageError(.invalidInput, "the request URL contains a NUL or line-break byte")
    }
    guard !request.method.isEmpty, request.method.utf8.allSatisfy(HTTPToken.isTokenByte) else {
      throw StorageError(
        .invalidInput, "the request method " + DisplayText.quoted(request.method) + " is not valid")
    }
    for field in request.headers {
      guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPToken.isTokenByte) else {
        throw StorageError(
          .invalidInput,
          "the request header name " + DisplayText.quoted(field.name) + " is not valid")
      }
      // The value is never shown: it may be a credential.
      guard !field.value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
        throw StorageError(
          .invalidInput,
          "the value of request header " + DisplayText.quoted(field.name)
            + " contains a NUL or line-break byte")
      }
    }
  }
}
