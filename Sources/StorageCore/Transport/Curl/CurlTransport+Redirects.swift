import CCurl

extension CurlTransport {
  /// A download that follows redirects by `RedirectPolicy`'s rule, one transfer per hop, up to
  /// ``Configuration/maxDownloadRedirects``. libcurl itself follows none: it would forward every
  /// custom header (an STS token, a signature's date) to whatever host a `Location` names.
  /// A redirect's answer is buffered as any non-2xx answer is, so the descriptor and the digest
  /// see only the final body.
  func downloadFollowingRedirects(
    _ request: HTTPRequest, send: (HTTPRequest) async throws -> HTTPResponse
  ) async throws -> HTTPResponse {
    var current = request
    var hops = 0
    while true {
      let response = try await send(current)
      guard RedirectPolicy.statuses.contains(response.status),
        let location = response.headers["Location"]
      else { return response }
      let from = RedirectPolicy.endpoint(URLParts(current.url))
      guard hops < max(0, configuration.maxDownloadRedirects) else {
        throw StorageError(
          .protocolError,
          from + " redirected too many times (more than "
            + String(max(0, configuration.maxDownloadRedirects)) + " redirects)")
      }
      guard let target = Self.resolve(location, against: current.url) else {
        throw StorageError(
          .protocolError,
          from + " redirected the download to a Location that is not a URL: "
            + DisplayText.quoted(String(location.prefix(200))))
      }
      current = try RedirectPolicy.follow(current, status: response.status, to: target)
      hops += 1
    }
  }

  /// `location` resolved against `base` as libcurl resolves a redirect (an absolute URL, or one
  /// relative to the request's), or `nil` when it cannot be.
  static func resolve(_ location: String, against base: String) -> String? {
    guard let handle = curl_url() else { return nil }
    defer { curl_url_cleanup(handle) }
    guard curl_url_set(handle, CURLUPART_URL, base, 0) == CURLUE_OK,
      curl_url_set(handle, CURLUPART_URL, location, 0) == CURLUE_OK
    else { return nil }
    var resolved: UnsafeMutablePointer<CChar>? = nil
    guard curl_url_get(handle, CURLUPART_URL, &resolved, 0) == CURLUE_OK, let resolved else {
      return nil
    }
    defer { curl_free(resolved) }
    return String(cString: resolved)
  }
}
