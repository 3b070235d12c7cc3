public import StorageCore

/// One query parameter of an OSS request, decoded (as a person would write it).
public struct OSSQueryItem: Sendable, Hashable {
  /// The name.
  public var name: String
  /// The value; `nil` sends the bare name (`?location`), `""` sends `name=`. Both are signed as
  /// the bare name.
  public var value: String?

  /// A parameter from its parts.
  public init(_ name: String, _ value: String?) {
    self.name = name
    self.value = value
  }
}

/// An OSS request as the signers see it: what it is about, not how its URL is spelled.
///
/// The signatures cover the configured bucket name and the raw key whatever the addressing
/// style (virtual-hosted, path style or a custom domain), so the request names them, and the
/// URL is built from them (`OSSAddressing`).
public struct OSSRequest: Sendable, Equatable {
  /// `GET`, `HEAD`…
  public var method: String
  /// The bucket, or `nil` for service requests (ListBuckets).
  public var bucket: String?
  /// The object key, raw; empty for bucket-level and service requests.
  public var key: String
  /// The query parameters, decoded, in the order they are sent.
  public var query: [OSSQueryItem]
  /// Header fields sent and (the `x-oss-*`, `Content-Type` and `Content-MD5` ones) signed.
  public var headers: HTTPHeaders
  /// V4 only: more headers to sign (`AdditionalHeaders`), by name; the ones not sent and the
  /// ones signed anyway are left out.
  public var additionalHeaders: [String]

  /// A request from its parts.
  public init(
    method: String = "GET", bucket: String? = nil, key: String = "", query: [OSSQueryItem] = [],
    headers: HTTPHeaders = [:], additionalHeaders: [String] = []
  ) {
    self.method = method
    self.bucket = bucket
    self.key = key
    self.query = query
    self.headers = headers
    self.additionalHeaders = additionalHeaders
  }
}

/// A signed request: the URL and headers to send, and what the signature covered.
public struct OSSSignedRequest: Sendable, Equatable {
  /// The method.
  public var method: String
  /// The URL to send (for a presigned request: the link, signature included).
  public var url: String
  /// Every header to send: the request's and the signature's (none for a presigned link
  /// unless the request had some).
  public var headers: HTTPHeaders
  /// The string the signature is the HMAC of.
  public var stringToSign: String
  /// V4 only: the canonical request whose SHA-256 the string to sign carries.
  public var canonicalRequest: String?

  /// A signed request from its parts.
  public init(
    method: String, url: String, headers: HTTPHeaders, stringToSign: String,
    canonicalRequest: String? = nil
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.stringToSign = stringToSign
    self.canonicalRequest = canonicalRequest
  }

  /// The request as a transport sends it.
  public var httpRequest: HTTPRequest {
    HTTPRequest(method: method, url: url, headers: headers)
  }
}

/// The encodings of keys and parameters (`docs/oss-protocol.md` §3): one key, four spellings.
public enum OSSEncoding {
  /// The key in a request path: percent-encoded UTF-8 with RFC 3986's unreserved set, `/` kept
  /// (or encoded as `%2F` with `encodeSlashes`; OSS decodes both). A key with a `.` or `..`
  /// segment always has its slashes encoded, so that no client or browser can collapse the
  /// segment and fetch another key.
  public static func path(key: String, encodeSlashes: Bool = false) -> String {
    if encodeSlashes || hasDotSegment(key) {
      return PercentEncoding.encodeQueryValue(key)
    }
    return PercentEncoding.encodePath(key)
  }

  /// The query as sent: `name=value` pairs (bare `name` when the value is `nil`), names and
  /// values percent-encoded with RFC 3986's unreserved set (so `/` → `%2F`, space → `%20`,
  /// `+` → `%2B`), in order, joined by `&`, without a leading `?`.
  public static func query(_ items: [OSSQueryItem]) -> String {
    var text = ""
    for item in items {
      if !text.isEmpty { text += "&" }
      text += PercentEncoding.encodeQueryValue(item.name)
      if let value = item.value { text += "=" + PercentEncoding.encodeQueryValue(value) }
    }
    return text
  }

  /// V1's CanonicalizedResource: `/bucket/key` with the raw key (`/` without a bucket, `/bucket/`
  /// for bucket-level requests), then the sub-resources among `query`, sorted by name, raw,
  /// `name` or `name=value`.
  package static func v1Resource(bucket: String?, key: String, query: [OSSQueryItem]) -> String {
    var resource = "/"
    if let bucket { resource += bucket + "/" + key }
    let signed = query.filter { OSSSignatureV1.isSubresource($0.name) }
      .sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    for (index, item) in signed.enumerated() {
      resource += index == 0 ? "?" : "&"
      resource += item.name
      if let value = item.value, !value.isEmpty { resource += "=" + value }
    }
    return resource
  }

  /// V4's canonical URI: `/bucket/key` (or `/`, or `/bucket/`) encoded with the unreserved set
  /// and `/` kept.
  package static func v4CanonicalURI(bucket: String?, key: String) -> String {
    guard let bucket else { return "/" }
    return "/" + PercentEncoding.encodePath(bucket + "/" + key)
  }

  /// V4's canonical query: every parameter, name and value encoded with the unreserved set,
  /// sorted by encoded name (then value), `name=value` or the bare `name` when the value is
  /// empty, joined by `&`.
  package static func v4CanonicalQuery(_ items: [OSSQueryItem]) -> String {
    let encoded = items.map { item in
      (
        name: Array(PercentEncoding.encodeQueryValue(item.name).utf8),
        value: Array(PercentEncoding.encodeQueryValue(item.value ?? "").utf8)
      )
    }
    .sorted {
      $0.name == $1.name
        ? $0.value.lexicographicallyPrecedes($1.value)
        : $0.name.lexicographicallyPrecedes($1.name)
    }
    var bytes: [UInt8] = []
    for (index, item) in encoded.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: "&")) }
      bytes += item.name
      if !item.value.isEmpty {
        bytes.append(UInt8(ascii: "="))
        bytes += item.value
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether a segment of `key` (split at `/`) is `.` or `..`.
  static func hasDotSegment(_ key: String) -> Bool {
    key.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains {
      $0.count <= 2 && !$0.isEmpty && $0.allSatisfy { $0 == UInt8(ascii: ".") }
    }
  }
}
