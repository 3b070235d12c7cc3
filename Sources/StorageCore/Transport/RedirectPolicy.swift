/// The one rule for following a redirect, whatever the transport: where a request may go next
/// and what goes with it.
///
/// - Only `http` and `https` targets are followed, and never from `https` to `http` (a downgrade
///   would send the request, and what the next server answers, in clear).
/// - A redirect to another origin (scheme, host or port) carries only the header fields that
///   say which bytes are wanted (`Range`, the `If-…` conditions, `Accept`): no credential, token
///   or signature (`Authorization`, `x-oss-security-token`, `x-oss-date`, `X-Qiniu-Date`,
///   cookies) and no `Host` ever crosses to a host the request was not signed for. A redirect
///   within the origin keeps every field.
/// - `303 See Other` turns the request into a `GET` (a `HEAD` stays a `HEAD`); the others keep
///   the method.
package enum RedirectPolicy {
  /// The statuses that redirect (to the answer's `Location`).
  package static let statuses: Set<Int> = [301, 302, 303, 307, 308]

  /// The header fields (lower-cased) that may follow a redirect to another origin.
  package static let portableFields: Set<String> = [
    "range", "if-range", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since",
    "accept",
  ]

  /// The request to send after `request` was redirected with `status` to `target` (an absolute
  /// URL).
  ///
  /// - Throws: `StorageError(.protocolError)` for a target that is not `http`/`https` with a
  ///   host, or one that goes from `https` to `http`.
  package static func follow(_ request: HTTPRequest, status: Int, to target: String)
    throws(StorageError) -> HTTPRequest
  {
    let from = URLParts(request.url)
    let to = URLParts(target)
    guard to.isHTTPWithHost else {
      throw StorageError(
        .protocolError,
        "\(endpoint(from)) redirected the download to \(DisplayText.quoted(String(target.prefix(200)))), which is not an http or https URL"
      )
    }
    if from.scheme == "https" && to.scheme != "https" {
      throw StorageError(
        .protocolError,
        "\(endpoint(from)) redirected the download from https to plain http (\(endpoint(to))); kodo never follows a redirect that drops TLS"
      )
    }
    var next = request
    next.url = target
    if status == 303 && request.method != "HEAD" {
      next.method = "GET"
      next.body = .empty
    }
    if !sameOrigin(from, to) {
      next.headers = HTTPHeaders(
        request.headers.fields.filter { portableFields.contains(WireText.asciiLowercased($0.name)) }
          .map { ($0.name, $0.value) })
    }
    return next
  }

  /// Whether two URLs share scheme, host (any case) and port.
  static func sameOrigin(_ first: URLParts, _ second: URLParts) -> Bool {
    WireText.same(first.scheme, second.scheme)
      && WireText.sameIgnoringASCIICase(first.host, second.host)
      && first.port == second.port
  }

  /// `host:port` of a URL for messages, escaped, without user information.
  static func endpoint(_ parts: URLParts) -> String {
    var host = parts.host
    if let at = URLParts.userInfoEnd(in: host) {
      host = String(host[host.utf8.index(after: at)...])
    }
    return DisplayText.escaped(host + (parts.port.map { ":\($0)" } ?? ""))
  }
}
