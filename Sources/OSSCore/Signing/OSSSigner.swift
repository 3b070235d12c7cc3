public import StorageCore

/// Signs OSS requests with one set of credentials: V4 (`OSS4-HMAC-SHA256`, the default) or V1
/// (`OSS AK:signature`), in headers or as presigned URLs, with the STS token when the
/// credentials carry one. Pure: the time is an argument, nothing is sent.
public struct OSSSigner: Sendable {
  /// The signature version.
  public enum Version: String, Sendable, CaseIterable {
    /// HMAC-SHA1 over the raw resource; being retired by OSS.
    case v1
    /// HMAC-SHA256 with a key derived per day and region; the default.
    case v4
  }

  /// The credentials.
  public let credentials: Credentials
  /// The signature version.
  public let version: Version
  /// The region ID in V4 scopes (`cn-hangzhou`).
  public let region: String
  private let keys: OSSSigningKeys

  /// A signer. `region` may also be spelled `oss-cn-hangzhou`; it is reduced to the ID.
  ///
  /// - Throws: `StorageError(.configuration)` when `region` is not a region ID.
  public init(credentials: Credentials, version: Version = .v4, region: String) throws(StorageError)
  {
    self.credentials = credentials
    self.version = version
    self.region = try OSSRegion.id(region)
    keys = OSSSigningKeys(credentials: credentials)
  }

  /// Signs `request` in its headers for sending at `time` (Unix seconds, the corrected clock's).
  ///
  /// V4 adds `x-oss-date`, `x-oss-content-sha256: UNSIGNED-PAYLOAD`, `Date` and
  /// `Authorization: OSS4-HMAC-SHA256 Credential=…,Signature=…`; V1 adds `Date` and
  /// `Authorization: OSS AK:…`; both add `x-oss-security-token` for STS credentials.
  public func sign(
    _ request: OSSRequest, at time: Int64, addressing: OSSAddressing,
    customDomain: OSSEndpoint? = nil, encodeSlashes: Bool = false
  ) -> OSSSignedRequest {
    let url = addressing.url(
      for: request, customDomain: customDomain, encodeSlashes: encodeSlashes)
    switch version {
    case .v1:
      let signed = OSSSignatureV1.sign(request, at: time, credentials: credentials)
      return OSSSignedRequest(
        method: request.method, url: url, headers: signed.headers,
        stringToSign: signed.stringToSign)
    case .v4:
      var headers = request.headers
      let (dateTime, day) = OSSSignatureV4.dateTime(time)
      headers.set("x-oss-date", dateTime)
      if headers["x-oss-content-sha256"] == nil {
        headers.add("x-oss-content-sha256", OSSSignatureV4.unsignedPayload)
      }
      if let token = credentials.securityToken { headers.set("x-oss-security-token", token) }
      let additional = OSSSignatureV4.additionalHeaders(request.additionalHeaders, in: headers)
      let canonical = OSSSignatureV4.canonicalRequest(
        method: request.method, bucket: request.bucket, key: request.key, query: request.query,
        headers: headers, additionalHeaders: additional)
      let scope = OSSSignatureV4.scope(day: day, region: region)
      let text = OSSSignatureV4.stringToSign(
        dateTime: dateTime, scope: scope, canonicalRequest: canonical)
      var authorization =
        OSSSignatureV4.algorithm + " Credential=" + credentials.accessKey + "/" + scope
      if !additional.isEmpty {
        authorization += ",AdditionalHeaders=" + additional.joined(separator: ";")
      }
      authorization += ",Signature=" + keys.signature(text, day: day, region: region)
      if headers["Date"] == nil { headers.add("Date", HTTPDate.format(unixSeconds: time)) }
      headers.set("Authorization", authorization)
      return OSSSignedRequest(
        method: request.method, url: url, headers: headers, stringToSign: text,
        canonicalRequest: canonical)
    }
  }

  /// A presigned URL for `request`, made at `time` (Unix seconds) and valid for `expiresIn`
  /// seconds.
  ///
  /// V4 adds `x-oss-signature-version`, `x-oss-date`, `x-oss-expires` (relative, 1 to 604800),
  /// `x-oss-credential`, `x-oss-security-token` (STS) and `x-oss-signature`; V1 adds
  /// `OSSAccessKeyId`, `Expires` (absolute: `time + expiresIn`), `security-token` (STS) and
  /// `Signature`. A link made from STS credentials stops working when the token expires.
  ///
  /// - Throws: `StorageError(.invalidInput)` when `expiresIn` is not positive, or for V4 longer
  ///   than 7 days, or when the deadline is beyond the representable time.
  public func presign(
    _ request: OSSRequest, at time: Int64, expiresIn: Int64, addressing: OSSAddressing,
    customDomain: OSSEndpoint? = nil, encodeSlashes: Bool = false
  ) throws(StorageError) -> OSSSignedRequest {
    guard expiresIn > 0 else {
      throw StorageError(.invalidInput, "a presigned URL must stay valid for at least 1 second")
    }
    var signedRequest = request
    let text: String
    var canonical: String?
    switch version {
    case .v1:
      let (expires, overflow) = time.addingReportingOverflow(expiresIn)
      guard !overflow else {
        throw StorageError(.invalidInput, "the presigned URL's expiry time is out of range")
      }
      (signedRequest.query, text) = OSSSignatureV1.presign(
        request, expires: expires, credentials: credentials)
    case .v4:
      guard expiresIn <= OSSSignatureV4.maximumExpiry else {
        throw StorageError(
          .invalidInput,
          "an OSS V4 presigned URL is valid for at most 7 days (604800 seconds), not \(expiresIn) seconds"
        )
      }
      let (dateTime, day) = OSSSignatureV4.dateTime(time)
      let scope = OSSSignatureV4.scope(day: day, region: region)
      let additional = OSSSignatureV4.additionalHeaders(
        request.additionalHeaders, in: request.headers)
      let added: Set<String> = [
        "x-oss-signature-version", "x-oss-date", "x-oss-expires", "x-oss-credential",
        "x-oss-additional-headers", "x-oss-security-token", "x-oss-signature",
      ]
      var query = request.query.filter { !added.contains($0.name) }
      query.append(OSSQueryItem("x-oss-signature-version", OSSSignatureV4.algorithm))
      query.append(OSSQueryItem("x-oss-date", dateTime))
      query.append(OSSQueryItem("x-oss-expires", String(expiresIn)))
      query.append(OSSQueryItem("x-oss-credential", credentials.accessKey + "/" + scope))
      if !additional.isEmpty {
        query.append(OSSQueryItem("x-oss-additional-headers", additional.joined(separator: ";")))
      }
      if let token = credentials.securityToken {
        query.append(OSSQueryItem("x-oss-security-token", token))
      }
      let canonicalRequest = OSSSignatureV4.canonicalRequest(
        method: request.method, bucket: request.bucket, key: request.key, query: query,
        headers: request.headers, additionalHeaders: additional)
      text = OSSSignatureV4.stringToSign(
        dateTime: dateTime, scope: scope, canonicalRequest: canonicalRequest)
      query.append(
        OSSQueryItem("x-oss-signature", keys.signature(text, day: day, region: region)))
      signedRequest.query = query
      canonical = canonicalRequest
    }
    return OSSSignedRequest(
      method: request.method,
      url: addressing.url(
        for: signedRequest, customDomain: customDomain, encodeSlashes: encodeSlashes),
      headers: request.headers, stringToSign: text, canonicalRequest: canonical)
  }
}
