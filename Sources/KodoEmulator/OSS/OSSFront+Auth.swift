import OSSCore
import StorageCore

extension OSSFront {
  /// Checks the request's signature (when it has one) as OSS does, then whether its caller may
  /// do `operation`: anyone may read the objects of a public-read bucket (one not named in
  /// `--private`); everything else needs a signature.
  func authorize(
    _ operation: OSSOperation, _ incoming: OSSIncomingRequest, bucket: BucketStore?, now: Int64
  ) throws(OSSFailure) {
    let accessKey: String?
    do {
      accessKey = try verifier.verify(incoming, now: now)
    } catch {
      throw failure(for: error, incoming, now: now)
    }
    guard accessKey == nil else { return }
    if operation.isObjectRead, let bucket, !bucket.isPrivate { return }
    if operation.isObjectRead {
      throw OSSFailure(
        status: 403, code: "AccessDenied",
        message: "You have no right to access this object because of bucket acl.")
    }
    throw OSSFailure(
      status: 403, code: "AccessDenied", message: "AccessDenied: Anonymous access is forbidden.")
  }

  /// OSS's answer to a refused signature, with the fields OSS adds for each code.
  private func failure(
    for refusal: OSSVerificationFailure, _ incoming: OSSIncomingRequest, now: Int64
  ) -> OSSFailure {
    var result = OSSFailure(
      status: refusal.status, code: refusal.code, message: refusal.message)
    let isV4 =
      incoming.parameter("x-oss-signature-version") != nil
      || incoming.headers["Authorization"].map({
        WireText.hasPrefix($0, OSSSignatureV4.algorithm)
      }) == true
    switch refusal.code {
    case "SignatureDoesNotMatch":
      result.ec = "0002-00000040"
      if let text = refusal.stringToSign {
        result.fields["StringToSign"] = text
        result.fields["StringToSignBytes"] = text.utf8.map { Self.hexByte($0) }.joined(
          separator: " ")
      }
      if let canonical = refusal.canonicalRequest {
        result.fields["CanonicalRequest"] = canonical
      }
      if let provided = providedSignature(incoming) {
        result.fields["SignatureProvided"] = provided
      }
      if let accessKey = providedAccessKey(incoming) {
        result.fields["OSSAccessKeyId"] = accessKey
      }
    case "RequestTimeTooSkewed":
      result.ec = "0002-00000504"
      result.fields["ServerTime"] = OSSTime.iso8601(Timestamp(unixSeconds: now))
      result.fields["MaxAllowedSkewMilliseconds"] = String(verifier.maximumSkew * 1_000)
      if let time = requestTime(incoming) {
        result.fields["RequestTime"] = OSSTime.iso8601(Timestamp(unixSeconds: time))
      }
    case "InvalidAccessKeyId":
      if let accessKey = providedAccessKey(incoming) {
        result.fields["OSSAccessKeyId"] = accessKey
      }
    case "InvalidArgument":
      if WireText.contains(refusal.message, "region") { result.ec = "0002-00000226" }
    case "AccessDenied":
      if WireText.contains(refusal.message, "expired") && isV4 { result.ec = "0002-00000236" }
    default:
      break
    }
    return result
  }

  private static func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
  }

  /// The request's time as its signature states it, for `RequestTime`.
  private func requestTime(_ incoming: OSSIncomingRequest) -> Int64? {
    if let date = incoming.headers["x-oss-date"] {
      return CivilTime.parseCompact(date) ?? HTTPDate.parse(date)
    }
    return incoming.headers["Date"].flatMap(HTTPDate.parse)
  }

  /// The access key a request names, however it is signed.
  private func providedAccessKey(_ incoming: OSSIncomingRequest) -> String? {
    if let key = incoming.parameter("OSSAccessKeyId") { return key }
    if let credential = incoming.parameter("x-oss-credential") {
      return String(KeySegments.segments(of: credential)[0])
    }
    guard let authorization = incoming.headers["Authorization"] else { return nil }
    if let credential = WireText.dropping(prefix: "OSS ", from: authorization),
      let (accessKey, _) = WireText.cutAtLast(credential, at: ":")
    {
      return String(accessKey)
    }
    if let range = WireText.range(of: "Credential=", in: authorization) {
      let credential = authorization[range.upperBound...]
      let end = credential.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ",") }
      return String(credential[..<(end ?? credential.endIndex)])
    }
    return nil
  }

  /// The signature a request carries, however it is signed.
  private func providedSignature(_ incoming: OSSIncomingRequest) -> String? {
    if let signature = incoming.parameter("Signature") ?? incoming.parameter("x-oss-signature") {
      return signature
    }
    guard let authorization = incoming.headers["Authorization"] else { return nil }
    if let credential = WireText.dropping(prefix: "OSS ", from: authorization),
      let (_, signature) = WireText.cutAtLast(credential, at: ":")
    {
      return String(signature)
    }
    if let range = WireText.range(of: "Signature=", in: authorization) {
      let rest = authorization[range.upperBound...]
      return String(WireText.cut(rest, at: ",")?.head ?? rest)
    }
    return nil
  }
}
