import Foundation

/// The parts of an absolute URL string, split without re-encoding anything.
///
/// Signing covers the exact bytes that are sent, so the client never lets a URL library normalise
/// a path or query it is about to sign.
package struct URLParts: Sendable, Equatable {
  /// `http` or `https` (lower-cased), or empty when the text had no scheme.
  package var scheme: String
  /// The host with `:port` when the URL names one, as the `Host` header carries it.
  package var authority: String
  /// The path exactly as written (may be empty).
  package var path: String
  /// The raw query without `?`, or `nil` when the URL has no `?`.
  package var query: String?

  /// Splits `url`; a URL without `scheme://` is taken as a path (with optional query).
  /// Where an authority (what follows `scheme://`) ends: at the first `/`, `?` or `#` byte. On
  /// bytes, not `Character`s: a `/` followed by a combining mark is still the end.
  package static func authorityEnd<S: StringProtocol>(in text: S) -> S.Index {
    text.utf8.firstIndex {
      $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
    } ?? text.endIndex
  }

  /// The index of the `@` that ends an authority's user information, if there is one.
  package static func userInfoEnd<S: StringProtocol>(in authority: S) -> S.Index?
  where S.UTF8View: BidirectionalCollection {
    authority.utf8.lastIndex(of: UInt8(ascii: "@"))
  }

  package init(_ url: String) {
    var rest = Substring(url)
    if let range = WireText.range(of: "://", in: rest) {
      scheme = WireText.asciiLowercased(rest[..<range.lowerBound])
      rest = rest[range.upperBound...]
      let end = Self.authorityEnd(in: rest)
      authority = String(rest[..<end])
      rest = rest[end...]
    } else {
      scheme = ""
      authority = ""
    }
    if let hash = WireText.firstIndex(of: "#", in: rest) { rest = rest[..<hash] }
    if let (head, tail) = WireText.cut(rest, at: "?") {
      path = String(head)
      query = String(tail)
    } else {
      path = String(rest)
      query = nil
    }
  }

  /// The host without a port.
  package var host: String {
    if WireText.hasPrefix(authority, "[") {
      if let (inside, _) = WireText.cut(authority, at: "]") { return inside + "]" }
      return authority
    }
    if let (host, _) = WireText.cutAtLast(authority, at: ":") { return String(host) }
    return authority
  }

  /// The port the URL names, or the scheme's default (80/443).
  package var port: Int? {
    if let (_, port) = WireText.cutAtLast(authority, at: ":"), !WireText.contains(port, byte: "]") {
      return Int(port)
    }
    switch scheme {
    case "http": return 80
    case "https": return 443
    default: return nil
    }
  }

  /// `path` plus `?query` when there is a non-empty query: the request target as signed.
  package var pathAndQuery: String {
    if let query, !query.isEmpty { return path + "?" + query }
    return path
  }
}

extension URLParts {
  /// Whether the URL is `http://` or `https://` with a host: the one check every URL kodo sends
  /// to, or prints, has to pass.
  package var isHTTPWithHost: Bool {
    isHTTP && !host.isEmpty
  }

  /// Whether the scheme is `http` or `https`.
  package var isHTTP: Bool {
    scheme == "http" || scheme == "https"
  }

  /// Whether `url` can serve as a base URL: http(s), a host, no query.
  package static func isBaseURL(_ url: String) -> Bool {
    let parts = URLParts(url)
    return parts.isHTTPWithHost && parts.query == nil
  }
}
