import StorageCore

/// Kodo's unauthenticated bucket-region query, `GET /v4/query?ak=&bucket=` on a uc host.
public enum RegionQuery {
  /// The uc hosts SDKs try in order when none is configured.
  public static let defaultUCHosts = [
    "https://uc.qiniuapi.com", "https://kodo-config.qiniuapi.com", "https://uc.qbox.me",
  ]

  /// The query's path and query string, as the client sends it after a uc base URL.
  package static func path(accessKey: String, bucket: String) -> String {
    var query = QueryString()
    query.append("ak", accessKey)
    query.append("bucket", bucket)
    return "/v4/query?" + query.encoded
  }
}
