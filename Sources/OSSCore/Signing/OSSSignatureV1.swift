import Foundation
package import StorageCore

/// Signature V1 (`OSS AK:base64(HMAC-SHA1)`), header and presigned-URL forms
/// (`docs/oss-protocol.md` §4). The pieces are `package` so the emulator verifies with them.
package enum OSSSignatureV1 {
  /// The query parameters that are signed (CanonicalizedResource), besides every parameter whose
  /// name starts with `x-oss-`: the official Python SDK's list (a superset of the other SDKs').
  package static let subresources: Set<String> = [
    "accessPoint", "accessPointPolicy", "acl", "append", "asyncFetch", "bucketArchiveDirectRead",
    "bucketInfo", "callback", "callback-var", "cname", "comp", "continuation-token", "cors",
    "delete", "encryption", "endTime", "group", "httpsConfig", "inventory", "inventoryId",
    "lifecycle", "link", "live", "location", "logging", "metaQuery", "objectInfo", "objectMeta",
    "partNumber", "policy", "position", "publicAccessBlock", "qos", "qosInfo", "qosRequester",
    "redundancyTransition", "referer", "regionList", "replication", "replicationLocation",
    "replicationProgress", "requestPayment", "requesterQosInfo", "resourceGroup", "resourcePool",
    "resourcePoolBuckets", "resourcePoolInfo", "response-cache-control",
    "response-content-disposition", "response-content-encoding", "response-content-language",
    "response-content-type", "response-expires", "restore", "security-token", "sequential",
    "startTime", "stat", "status", "style", "styleName", "symlink", "tagging",
    "transferAcceleration", "uploadId", "uploads", "versionId", "versioning", "versions", "vod",
    "website", "worm", "wormExtend", "wormId",
  ]

  /// Whether the query parameter `name` is part of the signed resource.
  package static func isSubresource(_ name: String) -> Bool {
    WireText.hasPrefix(name, "x-oss-") || subresources.contains(name)
  }

  /// The `x-oss-*` headers as signed: lower-cased names, sorted, values trimmed, repeated names
  /// joined by `,`, each line ending in `\n`.
  package static func canonicalizedHeaders(_ headers: HTTPHeaders) -> String {
    var text = ""
    for (name, value) in OSSSignatureV4.lowercasedSorted(
      headers, where: { WireText.hasPrefix($0, "x-oss-") })
    {
      text += name + ":" + value + "\n"
    }
    return text
  }

  /// `VERB\nContent-MD5\nContent-Type\nDATE\nCanonicalizedOSSHeaders CanonicalizedResource`,
  /// where DATE is `date` (the `Date` header, `x-oss-date` when sent, or a presigned URL's
  /// `Expires`).
  package static func stringToSign(
    method: String, headers: HTTPHeaders, date: String, resource: String
  ) -> String {
    method + "\n" + (headers["Content-MD5"] ?? "") + "\n" + (headers["Content-Type"] ?? "") + "\n"
      + date + "\n" + canonicalizedHeaders(headers) + resource
  }

  /// `base64(HMAC-SHA1(secret key, stringToSign))`, standard alphabet with padding.
  package static func signature(_ stringToSign: String, credentials: Credentials) -> String {
    Data(credentials.hmacSHA1.authenticationCode(Array(stringToSign.utf8))).base64EncodedString()
  }

  /// Signs `request` for sending at `time` (Unix seconds): adds `Date` (unless sent) and the
  /// security token, then `Authorization: OSS AK:signature`.
  static func sign(_ request: OSSRequest, at time: Int64, credentials: Credentials) -> (
    headers: HTTPHeaders, stringToSign: String
  ) {
    var headers = request.headers
    if headers["Date"] == nil { headers.add("Date", HTTPDate.format(unixSeconds: time)) }
    if let token = credentials.securityToken { headers.set("x-oss-security-token", token) }
    let date = headers["x-oss-date"] ?? headers["Date"] ?? ""
    let resource = OSSEncoding.v1Resource(
      bucket: request.bucket, key: request.key, query: request.query)
    let text = stringToSign(
      method: request.method, headers: headers, date: date, resource: resource)
    headers.set(
      "Authorization",
      "OSS " + credentials.accessKey + ":" + signature(text, credentials: credentials))
    return (headers, text)
  }

  /// Presigns `request` until `expires` (absolute Unix seconds): the query gains
  /// `OSSAccessKeyId`, `Expires`, `security-token` (STS, signed as a sub-resource) and
  /// `Signature`.
  static func presign(_ request: OSSRequest, expires: Int64, credentials: Credentials) -> (
    query: [OSSQueryItem], stringToSign: String
  ) {
    var query = request.query
    if let token = credentials.securityToken {
      query.removeAll { $0.name == "security-token" }
      query.append(OSSQueryItem("security-token", token))
    }
    let resource = OSSEncoding.v1Resource(bucket: request.bucket, key: request.key, query: query)
    let text = stringToSign(
      method: request.method, headers: request.headers, date: String(expires), resource: resource)
    var signed = request.query
    signed.append(OSSQueryItem("OSSAccessKeyId", credentials.accessKey))
    signed.append(OSSQueryItem("Expires", String(expires)))
    if let token = credentials.securityToken {
      signed.removeAll { $0.name == "security-token" }
      signed.append(OSSQueryItem("security-token", token))
    }
    signed.append(OSSQueryItem("Signature", signature(text, credentials: credentials)))
    return (signed, text)
  }
}
