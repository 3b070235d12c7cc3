import CCurl
import SystemPackage

/// `CURLE_TOO_LARGE`: libcurl 8.6 and later answer it (instead of `CURLE_OUT_OF_MEMORY`) when a
/// header line is over its own limit. Older headers do not declare it, so its number is spelt
/// here: the code is part of libcurl's stable ABI.
private let curleTooLarge = CURLcode(rawValue: 100)

extension CurlTransport {

  static func cancelledError() -> StorageError {
    StorageError(.cancelled, "the request was cancelled")
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

  /// The `StorageError` for a failed `curl_easy_perform`. Never mentions request headers or the
  /// query (which may carry a download token).
  static func error(
    for code: CURLcode, handle: EasyHandle, request: HTTPRequest, context: TransferContext,
    totalTimeout: Duration?
  ) -> StorageError {
    switch context.failure {
    case .cancelled?:
      return cancelledError()
    case .write(let number)?:
      if number == Errno.brokenPipe.rawValue {
        return StorageError(
          .outputClosed, "the output was closed before the download finished (broken pipe)")
      }
      return StorageError(.localIO, "cannot write the download: " + errnoText(number))
    case .bodyTooLarge(let limit, let isError)?:
      return StorageError(
        .protocolError,
        endpoint(of: handle, request: request) + " sent "
          + (isError ? "an error answer" : "an answer")
          + " larger than " + byteText(limit) + "; the transfer was stopped")
    case .longerThanExpected(let expected)?:
      return StorageError(
        .protocolError,
        endpoint(of: handle, request: request) + " sent more than the " + String(expected)
          + " bytes expected; the transfer was stopped")
    case .body(let error)?:
      return error
    case .headersTooLarge(let limit)?:
      return StorageError(
        .protocolError,
        endpoint(of: handle, request: request) + " sent header fields larger than "
          + byteText(limit) + "; the transfer was stopped")
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
      return StorageError(
        .unavailable,
        "cannot resolve host " + place + " (" + why
          + "); check the host name, your DNS and proxy settings")
    case CURLE_COULDNT_RESOLVE_PROXY:
      return StorageError(
        .unavailable,
        "cannot resolve the proxy host (" + why
          + "); check https_proxy, http_proxy and ALL_PROXY")
    case CURLE_COULDNT_CONNECT:
      var osErrno = 0
      let reason =
        kodo_curl_easy_getinfo_long(handle.raw, CURLINFO_OS_ERRNO, &osErrno) == CURLE_OK
          && osErrno != 0 ? errnoText(Int32(clamping: osErrno)) : why
      return StorageError(
        .unavailable,
        "cannot connect to " + place + " (" + reason + "); check the host and your network")
    case CURLE_OPERATION_TIMEDOUT:
      return timeoutError(
        handle: handle, endpoint: place, detail: why, totalTimeout: totalTimeout)
    case CURLE_PROXY:
      return StorageError(
        .unavailable,
        "the proxy failed to reach " + place + " (" + why + "); check your proxy settings")
    case _ where tlsErrors.contains(code):
      return StorageError(
        .unavailable,
        "TLS with " + place + " failed (" + why
          + "); check the server certificate, the CA certificates and the system clock")
    case _ where droppedConnectionErrors.contains(code):
      return StorageError(
        .temporary,
        "the connection to " + place + " dropped before a complete answer arrived (" + why
          + ")")
    case CURLE_TOO_MANY_REDIRECTS:
      return StorageError(.protocolError, place + " redirected too many times (" + why + ")")
    case _ where malformedAnswerErrors.contains(code):
      return StorageError(
        .protocolError, place + " sent an answer that cannot be understood (" + why + ")")
    case CURLE_URL_MALFORMAT:
      return StorageError(.invalidInput, "the request URL is malformed (" + why + ")")
    case CURLE_OUT_OF_MEMORY where context.currentStatus != 0, curleTooLarge:
      // Once an answer has begun, libcurl's "out of memory" (before 8.6; "too large" since) is
      // its refusal of a header line over its own limit (100 KiB): a bad answer, not a local
      // failure.
      return StorageError(
        .protocolError,
        place + " sent a header line too long to read (" + why + "); the transfer was stopped")
    case CURLE_OUT_OF_MEMORY:
      return StorageError(.localIO, "out of memory during the request to " + place)
    case CURLE_WRITE_ERROR:
      return StorageError(.localIO, "cannot store the answer from " + place + " (" + why + ")")
    default:
      return StorageError(
        .unavailable,
        "the request to " + place + " failed (curl error \(code.rawValue): " + why + ")")
    }
  }

  /// Whether a transfer that failed with `code` never sent a byte of its request: it failed
  /// while resolving, connecting or shaking hands, before libcurl wrote the request.
  static func failedBeforeSending(_ code: CURLcode, handle: EasyHandle, context: TransferContext)
    -> Bool
  {
    guard context.bodyReader?.hasRead != true else { return false }
    switch code {
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
      CURLE_PROXY:
      return true
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
      return nothingWritten(handle)
    case CURLE_OPERATION_TIMEDOUT:
      // A kept-alive connection also reports no connect time: the request size tells them apart.
      var connectMicroseconds: curl_off_t = 0
      return kodo_curl_easy_getinfo_off_t(handle.raw, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
        == CURLE_OK && connectMicroseconds == 0 && nothingWritten(handle)
    default:
      return false
    }
  }

  /// Whether libcurl wrote no byte of the request (its `CURLINFO_REQUEST_SIZE` is 0).
  private static func nothingWritten(_ handle: EasyHandle) -> Bool {
    var requestBytes = 0
    return kodo_curl_easy_getinfo_long(handle.raw, CURLINFO_REQUEST_SIZE, &requestBytes)
      == CURLE_OK && requestBytes == 0
  }

  /// A connect timeout, an idle (low-speed) timeout or the total timeout, told apart by how far
  /// the transfer got and how long it ran.
  static func timeoutError(
    handle: EasyHandle, endpoint: String, detail: String, totalTimeout: Duration?
  ) -> StorageError {
    var connectMicroseconds: curl_off_t = 0
    let connected =
      kodo_curl_easy_getinfo_off_t(handle.raw, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
      == CURLE_OK && connectMicroseconds > 0
    if !connected {
      return StorageError(
        .unavailable,
        "timed out connecting to " + endpoint + " (" + detail
          + "); check the host and your network")
    }
    var totalMicroseconds: curl_off_t = 0
    if let totalTimeout,
      kodo_curl_easy_getinfo_off_t(handle.raw, CURLINFO_TOTAL_TIME_T, &totalMicroseconds)
        == CURLE_OK,
      // libcurl may report a total a hair under the limit that ended the transfer.
      totalMicroseconds / 1000 + 50 >= totalTimeout.wholeMilliseconds
    {
      return StorageError(
        .unavailable,
        "the transfer from " + endpoint + " did not finish within " + totalTimeout.spoken + " ("
          + detail + "); allow more time or try again")
    }
    return StorageError(
      .unavailable,
      "the transfer from " + endpoint + " stalled (" + detail
        + "); the server or the network may be overloaded, try again")
  }

  /// `host:port` of the URL being fetched (after redirects), without user info, path or query.
  static func endpoint(of handle: EasyHandle, request: HTTPRequest) -> String {
    var url = request.url
    var effective: UnsafePointer<CChar>? = nil
    if kodo_curl_easy_getinfo_string(handle.raw, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK,
      let effective
    {
      url = String(cString: effective)
    }
    let parts = URLParts(url)
    var host = parts.host
    if let (_, tail) = WireText.cutAtLast(host, at: "@") { host = String(tail) }
    let port = parts.port.map { ":\($0)" } ?? ""
    return DisplayText.escaped(host + port)
  }

  /// libcurl's own description: the error buffer when it says something, else the code's text.
  static func detail(for code: CURLcode, context: TransferContext) -> String {
    var text = String(cString: context.errorBuffer)
    while let last = text.last, last == "\n" || last == "." || last == " " { text.removeLast() }
    return DisplayText.escaped(text.isEmpty ? curlText(code) : text)
  }

  static func curlText(_ code: CURLcode) -> String {
    guard let text = curl_easy_strerror(code) else { return "curl error \(code.rawValue)" }
    return String(cString: text)
  }
}

/// The text of an `errno` value (`strerror`'s).
func errnoText(_ number: Int32) -> String {
  Errno(rawValue: number).description
}

/// `64 MiB`, `1 MiB`, `256 KiB`, or bytes, for messages about limits.
private func byteText(_ count: Int) -> String {
  if count >= 1 << 20 && count % (1 << 20) == 0 { return String(count >> 20) + " MiB" }
  if count >= 1 << 10 && count % (1 << 10) == 0 { return String(count >> 10) + " KiB" }
  return String(count) + " bytes"
}
