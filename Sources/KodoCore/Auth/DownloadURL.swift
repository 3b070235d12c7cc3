public import StorageCore

/// Download URLs: the key placed in the path, and Kodo's private-URL signature.
public enum DownloadURL {
  /// `domain` + `/` + the key percent-encoded (`PercentEncoding.encodePath`).
  ///
  /// `domain` is a base URL with scheme, optionally with a path; trailing slashes on it are
  /// dropped so the key always follows exactly one `/`. An empty key yields the domain itself.
  public static func publicURL(domain: String, key: String) -> String {
    let base = RequestPipeline.trimmedBase(domain)
    if key.isEmpty { return base }
    return base + "/" + PercentEncoding.encodePath(key)
  }

  /// Signs `baseURL` for download until `deadline` (Unix seconds):
  /// `baseURL` + `?e=` (or `&e=` when it already has a query) + deadline + `&token=` + signature.
  public static func privateURL(baseURL: String, deadline: Int64, credentials: Credentials)
    -> String
  {
    var bytes = Array(baseURL.utf8)
    bytes.reserveCapacity(bytes.count + 80)
    bytes.append(bytes.contains(UInt8(ascii: "?")) ? UInt8(ascii: "&") : UInt8(ascii: "?"))
    bytes.append(UInt8(ascii: "e"))
    bytes.append(UInt8(ascii: "="))
    DecimalText.append(deadline, to: &bytes)
    let token = credentials.sign(bytes)
    bytes.append(contentsOf: "&token=".utf8)
    bytes.append(contentsOf: token.utf8)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The deadline `seconds` from now on `clock`.
  public static func deadline(expiresIn seconds: Int64, clock: WallClock = .system) -> Int64 {
    let (sum, overflow) = clock.unixSeconds.addingReportingOverflow(seconds)
    return overflow ? Int64.max : sum
  }
}
