import StorageCore

/// Kodo's unauthenticated bucket-region query, `GET /v4/query?ak=&bucket=` on a uc host.
public enum RegionQuery {
  /// The uc hosts SDKs try in order when none is configured.
  public static let defaultUCHosts = [
    "https://uc.qiniuapi.com", "https://kodo-config.qiniuapi.com", "https://uc.qbox.me",
  ]

  /// The query URL on `ucBaseURL` (scheme and host, optionally a port).
  public static func url(ucBaseURL: String, accessKey: String, bucket: String) -> String {
    var query = QueryString()
    query.append("ak", accessKey)
    query.append("bucket", bucket)
    return trimmedBase(ucBaseURL) + "/v4/query?" + query.encoded
  }
}

/// A base URL without trailing slashes, so a path can follow.
func trimmedBase(_ base: String) -> String {
  var result = Substring(base)
  while result.hasSuffix("/") { result = result.dropLast() }
  return String(result)
}
