package import OSSCore
package import StorageCore

/// A request as a server receives it, decoded: what the signatures cover.
package struct OSSIncomingRequest: Sendable, Equatable {
  /// The method.
  package var method: String
  /// The bucket, `nil` for service requests.
  package var bucket: String?
  /// The key, decoded; empty for bucket-level requests.
  package var key: String
  /// The query parameters, decoded, in the order received.
  package var query: [OSSQueryItem]
  /// The header fields.
  package var headers: HTTPHeaders

  package init(
    method: String, bucket: String?, key: String, query: [OSSQueryItem], headers: HTTPHeaders
  ) {
    self.method = method
    self.bucket = bucket
    self.key = key
    self.query = query
    self.headers = headers
  }

  /// Decodes a path-style request target (`/bucket/key?query`): the path strictly (`%XX`
  /// only), the query as OSS does (`+` is a space, as the official Python SDK sends it);
  /// `nil` when an escape is malformed or a part is not UTF-8.
  package init?(method: String, pathStyleTarget target: String, headers: HTTPHeaders) {
    let parts = WireText.split(target, at: "?", maxSplits: 1)
    guard let path = PercentEncoding.decode(String(parts[0])), KeySegments.startsWithSlash(path)
    else {
      return nil
    }
    let rest = path[path.utf8.index(after: path.startIndex)...]
    if rest.isEmpty {
      bucket = nil
      key = ""
    } else if let (head, tail) = KeySegments.splitAtFirstSlash(rest) {
      bucket = String(head)
      key = String(tail)
    } else {
      bucket = String(rest)
      key = ""
    }
    var query: [OSSQueryItem] = []
    if parts.count > 1 {
      for pair in WireText.split(parts[1], at: "&", omittingEmpty: true) {
        let halves = WireText.split(pair, at: "=", maxSplits: 1)
        func decode(_ text: Substring) -> String? {
          // Without a `+` there is nothing to replace (most names and values): no Foundation.
          guard text.utf8.contains(UInt8(ascii: "+")) else {
            return PercentEncoding.decode(String(text))
          }
          return PercentEncoding.decode(text.replacingOccurrences(of: "+", with: " "))
        }
        guard let name = decode(halves[0]) else { return nil }
        if halves.count == 2 {
          guard let value = decode(halves[1]) else { return nil }
          query.append(OSSQueryItem(name, value))
        } else {
          query.append(OSSQueryItem(name, nil))
        }
      }
    }
    self.method = method
    self.query = query
    self.headers = headers
  }

  /// The first value of query parameter `name`.
  package func parameter(_ name: String) -> String? {
    query.first(where: { WireText.same($0.name, name) }).map { $0.value ?? "" }
  }
}

/// Why a server refuses a request's signature, as OSS answers it.
package struct OSSVerificationFailure: Error, Sendable, Equatable {
  /// The HTTP status (400 or 403).
  package var status: Int
  /// OSS's code: `SignatureDoesNotMatch`, `InvalidAccessKeyId`, `AccessDenied`,
  /// `RequestTimeTooSkewed`, `InvalidArgument`, `InvalidSecurityToken`.
  package var code: String
  /// OSS's message.
  package var message: String
  /// For `SignatureDoesNotMatch`: the string to sign the server computed.
  package var stringToSign: String?
  /// For a V4 `SignatureDoesNotMatch`: the canonical request the server computed.
  package var canonicalRequest: String?

  package init(
    _ status: Int, _ code: String, _ message: String, stringToSign: String? = nil,
    canonicalRequest: String? = nil
  ) {
    self.status = status
    self.code = code
    self.message = message
    self.stringToSign = stringToSign
    self.canonicalRequest = canonicalRequest
  }
}

/// Checks signatures as OSS does (for a server such as the emulator), with the same
/// canonicalisation the signers use: V1 and V4, in headers and presigned URLs, the STS token,
/// the 15-minute clock skew, presigned URLs' expiry, the V4 scope's region.
package struct OSSVerifier: Sendable {
  /// The credentials of an access key, or `nil` when it is unknown. A security token in them
  /// must be sent with every request.
  package var credentials: @Sendable (String) -> Credentials?
  /// The region ID V4 scopes must name.
  package var region: String
  /// The largest difference allowed between a request's time and the server's (15 minutes).
  package var maximumSkew: Int64 = 900

  package init(region: String, credentials: @escaping @Sendable (String) -> Credentials?) {
    self.region = region
    self.credentials = credentials
  }

  /// The access key a request is signed with, `nil` for an anonymous request.
  ///
  /// - Throws: `OSSVerificationFailure` saying why OSS would refuse it.
  package func verify(_ request: OSSIncomingRequest, now: Int64) throws(OSSVerificationFailure)
    -> String?
  {
    if let authorization = request.headers["Authorization"] {
      if let fields = WireText.dropping(prefix: OSSSignatureV4.algorithm + " ", from: authorization)
      {
        return try verifyV4Header(request, fields, now: now)
      }
      if let credential = WireText.dropping(prefix: "OSS ", from: authorization) {
        return try verifyV1Header(request, credential, now: now)
      }
      throw OSSVerificationFailure(400, "InvalidArgument", "Authorization header is invalid.")
    }
    if request.parameter("x-oss-signature-version") != nil {
      return try verifyV4Query(request, now: now)
    }
    if request.parameter("OSSAccessKeyId") != nil || request.parameter("Signature") != nil {
      return try verifyV1Query(request, now: now)
    }
    return nil
  }

  private func known(_ accessKey: String, token: String?) throws(OSSVerificationFailure)
    -> Credentials
  {
    guard let found = credentials(accessKey) else {
      throw OSSVerificationFailure(
        403, "InvalidAccessKeyId",
        "The OSS Access Key Id you provided does not exist in our records.")
    }
    if let expected = found.securityToken, token.map({ !WireText.same($0, expected) }) ?? true {
      throw OSSVerificationFailure(
        403, "InvalidSecurityToken", "The security token you provided is invalid.")
    }
    return found
  }

  private func checkSkew(_ time: Int64, now: Int64) throws(OSSVerificationFailure) {
    let (difference, overflow) = time.subtractingReportingOverflow(now)
    guard !overflow, difference.magnitude <= UInt64(maximumSkew) else {
      throw OSSVerificationFailure(
        403, "RequestTimeTooSkewed",
        "The difference between the request time and the current time is too large.")
    }
  }

  private func verifyV1Header(_ request: OSSIncomingRequest, _ credential: Substring, now: Int64)
    throws(OSSVerificationFailure) -> String
  {
    guard let (key, signed) = WireText.cutAtLast(credential, at: ":") else {
      throw OSSVerificationFailure(400, "InvalidArgument", "Authorization header is invalid.")
    }
    let accessKey = String(key)
    let signature = String(signed)
    let found = try known(accessKey, token: request.headers["x-oss-security-token"])
    let date = request.headers["x-oss-date"] ?? request.headers["Date"] ?? ""
    guard let time = HTTPDate.parse(date) else {
      throw OSSVerificationFailure(403, "AccessDenied", "OSS authentication requires a valid Date.")
    }
    try checkSkew(time, now: now)
    let resource = OSSEncoding.v1Resource(
      bucket: request.bucket, key: request.key, query: request.query)
    let text = OSSSignatureV1.stringToSign(
      method: request.method, headers: request.headers, date: date, resource: resource)
    try compare(signature, OSSSignatureV1.signature(text, credentials: found), text, nil)
    return accessKey
  }

  private func verifyV1Query(_ request: OSSIncomingRequest, now: Int64)
    throws(OSSVerificationFailure) -> String
  {
    guard let accessKey = request.parameter("OSSAccessKeyId"),
      let signature = request.parameter("Signature"),
      let expiresText = request.parameter("Expires"), let expires = Int64(expiresText)
    else {
      throw OSSVerificationFailure(400, "InvalidArgument", "The presigned URL is incomplete.")
    }
    let found = try known(accessKey, token: request.parameter("security-token"))
    guard now <= expires else {
      throw OSSVerificationFailure(403, "AccessDenied", "Request has expired.")
    }
    let signed = request.query.filter {
      item in !["OSSAccessKeyId", "Expires", "Signature"].contains { WireText.same($0, item.name) }
    }
    let resource = OSSEncoding.v1Resource(bucket: request.bucket, key: request.key, query: signed)
    let text = OSSSignatureV1.stringToSign(
      method: request.method, headers: request.headers, date: expiresText, resource: resource)
    try compare(signature, OSSSignatureV1.signature(text, credentials: found), text, nil)
    return accessKey
  }

  private func verifyV4Header(_ request: OSSIncomingRequest, _ authorization: Substring, now: Int64)
    throws(OSSVerificationFailure) -> String
  {
    var fields: [String: String] = [:]
    for field in WireText.split(authorization, at: ",", omittingEmpty: true) {
      guard let (name, value) = WireText.cut(field, at: "="), !name.isEmpty, !value.isEmpty
      else { continue }
      fields[String(WireText.trimmingSpaces(name))] = String(WireText.trimmingSpaces(value))
    }
    guard let credential = fields["Credential"], let signature = fields["Signature"],
      let dateTime = request.headers["x-oss-date"]
    else {
      throw OSSVerificationFailure(400, "InvalidArgument", "Authorization header is invalid.")
    }
    let additional = fields["AdditionalHeaders"].map {
      WireText.split($0, at: ";", omittingEmpty: true).map(String.init)
    }
    let accessKey = try checkScope(credential, dateTime: dateTime, now: now, skew: true)
    let found = try known(accessKey, token: request.headers["x-oss-security-token"])
    let canonical = OSSSignatureV4.canonicalRequest(
      method: request.method, bucket: request.bucket, key: request.key, query: request.query,
      headers: request.headers, additionalHeaders: additional ?? [])
    try compareV4(signature, found, dateTime: dateTime, canonical: canonical)
    return accessKey
  }

  private func verifyV4Query(_ request: OSSIncomingRequest, now: Int64)
    throws(OSSVerificationFailure) -> String
  {
    guard request.parameter("x-oss-signature-version") == OSSSignatureV4.algorithm,
      let credential = request.parameter("x-oss-credential"),
      let dateTime = request.parameter("x-oss-date"),
      let signature = request.parameter("x-oss-signature"),
      let expiresText = request.parameter("x-oss-expires"), let expires = Int64(expiresText)
    else {
      throw OSSVerificationFailure(400, "InvalidArgument", "The presigned URL is incomplete.")
    }
    guard (1...OSSSignatureV4.maximumExpiry).contains(expires) else {
      throw OSSVerificationFailure(400, "InvalidArgument", "x-oss-expires is out of range.")
    }
    let accessKey = try checkScope(credential, dateTime: dateTime, now: now, skew: false)
    let found = try known(accessKey, token: request.parameter("x-oss-security-token"))
    guard let start = CivilTime.parseCompact(dateTime), now <= start + expires else {
      throw OSSVerificationFailure(403, "AccessDenied", "Request has expired.")
    }
    guard start <= now + maximumSkew else {
      throw OSSVerificationFailure(403, "AccessDenied", "Request is not valid yet.")
    }
    let additional =
      request.parameter("x-oss-additional-headers").map {
        WireText.split($0, at: ";", omittingEmpty: true).map(String.init)
      } ?? []
    let canonical = OSSSignatureV4.canonicalRequest(
      method: request.method, bucket: request.bucket, key: request.key,
      query: request.query.filter { !WireText.same($0.name, "x-oss-signature") },
      headers: request.headers,
      additionalHeaders: additional)
    try compareV4(signature, found, dateTime: dateTime, canonical: canonical)
    return accessKey
  }

  /// Checks `AK/yyyymmdd/region/oss/aliyun_v4_request` against the request's time; returns AK.
  private func checkScope(_ credential: String, dateTime: String, now: Int64, skew: Bool)
    throws(OSSVerificationFailure) -> String
  {
    let parts = KeySegments.segments(of: credential)
    guard parts.count == 5, parts[3] == "oss", parts[4] == "aliyun_v4_request",
      let time = CivilTime.parseCompact(dateTime)
    else {
      throw OSSVerificationFailure(400, "InvalidArgument", "Authorization header is invalid.")
    }
    guard parts[2] == region else {
      throw OSSVerificationFailure(
        400, "InvalidArgument", "Invalid signing region in Authorization header.")
    }
    // `dateTime` parsed as `yyyymmddThhmmssZ` above, so it is ASCII: its first 8 bytes.
    guard WireText.same(parts[1], dateTime.prefix(8)) else {
      throw OSSVerificationFailure(
        400, "InvalidArgument", "Invalid signing date in Authorization header.")
    }
    if skew { try checkSkew(time, now: now) }
    return String(parts[0])
  }

  private func compareV4(
    _ signature: String, _ credentials: Credentials, dateTime: String, canonical: String
  )
    throws(OSSVerificationFailure)
  {
    let day = String(dateTime.prefix(8))
    let text = OSSSignatureV4.stringToSign(
      dateTime: dateTime, scope: OSSSignatureV4.scope(day: day, region: region),
      canonicalRequest: canonical)
    let expected = OSSSigningKeys(credentials: credentials).signature(
      text, day: day, region: region)
    try compare(signature, expected, text, canonical)
  }

  private func compare(_ given: String, _ expected: String, _ text: String, _ canonical: String?)
    throws(OSSVerificationFailure)
  {
    // Every byte is compared, whatever the first difference, so timing tells nothing.
    let a = Array(given.utf8)
    let b = Array(expected.utf8)
    var difference = a.count ^ b.count
    for index in 0..<min(a.count, b.count) { difference |= Int(a[index] ^ b[index]) }
    guard difference == 0 else {
      throw OSSVerificationFailure(
        403, "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
        stringToSign: text, canonicalRequest: canonical)
    }
  }
}
