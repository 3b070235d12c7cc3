import StorageCore

/// Where OSS requests go: the endpoint, and whether buckets are addressed in the host
/// (virtual-hosted style, what OSS requires on `*.aliyuncs.com`) or in the path.
///
/// - Virtual-hosted: `https://bucket.oss-cn-hangzhou.aliyuncs.com/key`.
/// - Path style, for IP endpoints (an emulator) or when asked:
///   `http://127.0.0.1:9000/bucket/key`.
/// - A custom domain (CNAME) bound to the bucket: `https://static.example.com/key`.
/// - Service requests (ListBuckets): `https://oss-cn-hangzhou.aliyuncs.com/`.
public struct OSSAddressing: Sendable, Equatable {
  /// The endpoint.
  public var endpoint: OSSEndpoint
  /// Whether path style was asked for (IP endpoints use it anyway).
  public var pathStyle: Bool

  /// Addressing on `endpoint`, virtual-hosted unless `pathStyle` or the endpoint is an address.
  public init(endpoint: OSSEndpoint, pathStyle: Bool = false) {
    self.endpoint = endpoint
    self.pathStyle = pathStyle
  }

  /// Whether bucket requests on the endpoint put the bucket in the path.
  public var usesPathStyle: Bool { pathStyle || endpoint.isIPAddress }

  /// The base URL of a request about `bucket` (`nil`: a service request), through
  /// `customDomain` when one is given for the bucket.
  ///
  /// A name that is not a valid bucket name is never put in front of the host (it could name
  /// another host); it goes in the path, encoded.
  public func baseURL(bucket: String?, customDomain: OSSEndpoint? = nil) -> String {
    guard let bucket else { return endpoint.baseURL }
    if let customDomain { return customDomain.baseURL }
    if usesPathStyle || !OSSBucketName.isValid(bucket) { return endpoint.baseURL }
    return endpoint.scheme + "://" + bucket + "." + endpoint.authority
  }

  /// The path of a request about `bucket` and `key` after its base URL: `/key`, `/`, or with
  /// the bucket first in path style (`/bucket/key`, `/bucket/`), encoded (`OSSEncoding.path`).
  public func path(
    bucket: String?, key: String, customDomain: OSSEndpoint? = nil, encodeSlashes: Bool = false
  ) -> String {
    let encodedKey = OSSEncoding.path(key: key, encodeSlashes: encodeSlashes)
    guard let bucket, customDomain == nil, usesPathStyle || !OSSBucketName.isValid(bucket)
    else { return "/" + encodedKey }
    return "/" + PercentEncoding.encodeQueryValue(bucket) + "/" + encodedKey
  }

  /// The whole URL of `request`: base URL, path, and `?` with the query when there is one.
  public func url(
    for request: OSSRequest, customDomain: OSSEndpoint? = nil, encodeSlashes: Bool = false
  ) -> String {
    var url =
      baseURL(bucket: request.bucket, customDomain: customDomain)
      + path(
        bucket: request.bucket, key: request.key, customDomain: customDomain,
        encodeSlashes: encodeSlashes)
    if !request.query.isEmpty { url += "?" + OSSEncoding.query(request.query) }
    return url
  }
}
