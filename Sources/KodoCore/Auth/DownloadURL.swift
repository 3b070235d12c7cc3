public import StorageCore

/// Download URLs: the key placed in the path, and Kodo's private-URL signature.
public enum DownloadURL {
  /// `domain` + `/` + the key percent-encoded (`PercentEncoding.encodePath`).
  ///
  /// `domain` is a base URL with scheme, optionally with a path; trailing slashes on it are
  /// dropped so the key always follows exactly one `/`. An empty key yields the domain itself.
  public static func publicURL(domain: String, key: String) -> String {
    Builder(domain: domain).url(key: key, deadline: nil, credentials: nil)
  }

  /// Signs `baseURL` for download until `deadline` (Unix seconds):
  /// `baseURL` + `?e=` (or `&e=` when it already has a query) + deadline + `&token=` + signature.
  public static func privateURL(baseURL: String, deadline: Int64, credentials: Credentials)
    -> String
  {
    var bytes = Array(baseURL.utf8)
    bytes.reserveCapacity(bytes.count + Builder.tokenCapacity(credentials))
    appendToken(deadline: deadline, credentials: credentials, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The deadline `seconds` from now on `clock`.
  public static func deadline(expiresIn seconds: Int64, clock: WallClock = .system) -> Int64 {
    let (sum, overflow) = clock.unixSeconds.addingReportingOverflow(seconds)
    return overflow ? Int64.max : sum
  }

  /// The URLs of many keys on one domain (`url --stdin` signs a million): the domain is trimmed
  /// once, and each URL is built in one byte buffer, with no intermediate strings. The same
  /// text as `privateURL(baseURL: publicURL(domain:key:), ...)`, or `publicURL` unsigned.
  package struct Builder: Sendable {
    private let base: String

    /// URLs on `domain` (trailing slashes dropped).
    package init(domain: String) { base = RequestPipeline.trimmedBase(domain) }

    /// The URL of `key`: signed until `deadline` with `credentials` when both are given, else
    /// the public URL.
    package func url(key: String, deadline: Int64?, credentials: Credentials?) -> String {
      if key.isEmpty && (deadline == nil || credentials == nil) { return base }
      var bytes: [UInt8] = []
      // Every byte of the key may take three; the token's length is known up front.
      var capacity = base.utf8.count + 1 + key.utf8.count * 3
      if let credentials, deadline != nil { capacity += Self.tokenCapacity(credentials) }
      bytes.reserveCapacity(capacity)
      bytes.append(contentsOf: base.utf8)
      if !key.isEmpty {
        bytes.append(UInt8(ascii: "/"))
        PercentEncoding.appendPath(key, to: &bytes)
      }
      if let deadline, let credentials {
        DownloadURL.appendToken(deadline: deadline, credentials: credentials, to: &bytes)
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// The most bytes `appendToken` adds: `?e=`, 20 digits and a sign, `&token=`, the access
    /// key, `:` and 28 bytes of base64.
    static func tokenCapacity(_ credentials: Credentials) -> Int {
      3 + 21 + 7 + credentials.accessKey.utf8.count + 1 + 28
    }
  }

  /// Appends `?e=DEADLINE` (`&e=` when `bytes` already has a query) and `&token=` with the
  /// signature of everything before it to the URL in `bytes`.
  private static func appendToken(
    deadline: Int64, credentials: Credentials, to bytes: inout [UInt8]
  ) {
    bytes.append(bytes.contains(UInt8(ascii: "?")) ? UInt8(ascii: "&") : UInt8(ascii: "?"))
    bytes.append(UInt8(ascii: "e"))
    bytes.append(UInt8(ascii: "="))
    DecimalText.append(deadline, to: &bytes)
    credentials.appendSignature(of: &bytes, after: "&token=")
  }
}
