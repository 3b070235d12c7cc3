package import StorageCore
import Synchronization

/// Signature V4 (`OSS4-HMAC-SHA256`), header and presigned-URL forms (`docs/oss-protocol.md`
/// §5). The pieces are `package` so the emulator verifies with them.
package enum OSSSignatureV4 {
  /// The algorithm's name, first in the string to sign and the Authorization header.
  package static let algorithm = "OSS4-HMAC-SHA256"
  /// The payload hash OSS clients send: the body is not hashed.
  package static let unsignedPayload = "UNSIGNED-PAYLOAD"
  /// The product in the scope.
  package static let product = "oss"
  /// The longest a presigned URL may last: 7 days.
  package static let maximumExpiry: Int64 = 604_800

  /// Whether a header is signed without being listed in AdditionalHeaders.
  package static func isSignedByDefault(_ lowercasedName: String) -> Bool {
    WireText.hasPrefix(lowercasedName, "x-oss-") || WireText.same(lowercasedName, "content-type")
      || WireText.same(lowercasedName, "content-md5")
  }

  /// `headers` whose lower-cased name passes `include`, lower-cased, sorted by name (stable),
  /// values trimmed of spaces and tabs, repeated names joined by `,`.
  package static func lowercasedSorted(
    _ headers: HTTPHeaders, where include: (String) -> Bool
  ) -> [(name: String, value: String)] {
    var selected: [(name: String, value: String)] = []
    for field in headers {
      let name = WireText.asciiLowercased(field.name)
      guard include(name) else { continue }
      let value = trimmed(field.value)
      if let index = selected.firstIndex(where: { WireText.same($0.name, name) }) {
        selected[index].value += "," + value
      } else {
        selected.append((name, value))
      }
    }
    return selected.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
  }

  /// The AdditionalHeaders list: `requested` lower-cased, without the ones signed anyway or not
  /// sent, sorted, without repeats.
  package static func additionalHeaders(_ requested: [String], in headers: HTTPHeaders)
    -> [String]
  {
    let sent = Set(headers.map { ExactKey(WireText.asciiLowercased($0.name)) })
    return Set(requested.map { ExactKey(WireText.asciiLowercased($0)) })
      .filter { !isSignedByDefault($0.text) && sent.contains($0) }
      .map(\.text)
      .sorted { WireText.precedes($0, $1) }
  }

  /// The canonical request: method, canonical URI, canonical query, canonical headers (each
  /// line ending in `\n`), AdditionalHeaders (`;`-joined), payload hash, joined by `\n`.
  package static func canonicalRequest(
    method: String, bucket: String?, key: String, query: [OSSQueryItem], headers: HTTPHeaders,
    additionalHeaders: [String]
  ) -> String {
    var text = method + "\n"
    text += OSSEncoding.v4CanonicalURI(bucket: bucket, key: key) + "\n"
    text += OSSEncoding.v4CanonicalQuery(query) + "\n"
    let additional = Set(additionalHeaders.map(ExactKey.init))
    for (name, value) in lowercasedSorted(
      headers, where: { isSignedByDefault($0) || additional.contains(ExactKey($0)) })
    {
      text += name + ":" + value + "\n"
    }
    text += "\n" + additionalHeaders.joined(separator: ";") + "\n"
    text += headers["x-oss-content-sha256"].map(trimmed) ?? unsignedPayload
    return text
  }

  /// `yyyymmdd/region/oss/aliyun_v4_request`.
  package static func scope(day: String, region: String) -> String {
    day + "/" + region + "/" + product + "/aliyun_v4_request"
  }

  /// `OSS4-HMAC-SHA256\n<x-oss-date>\n<scope>\nhex(SHA-256(canonical request))`.
  package static func stringToSign(dateTime: String, scope: String, canonicalRequest: String)
    -> String
  {
    algorithm + "\n" + dateTime + "\n" + scope + "\n"
      + Hex.encode(Digest.sha256(Array(canonicalRequest.utf8)))
  }

  /// `yyyymmddThhmmssZ` and `yyyymmdd` of Unix seconds.
  package static func dateTime(_ time: Int64) -> (dateTime: String, day: String) {
    let text = CivilTime(unixSeconds: time).compact
    return (text, String(text.prefix(8)))
  }

  /// The signing key: `HMAC(HMAC(HMAC(HMAC("aliyun_v4" + SK, day), region), "oss"),
  /// "aliyun_v4_request")`.
  package static func signingKey(secretKey: [UInt8], day: String, region: String) -> [UInt8] {
    var key = HMAC.authenticationCode(
      .sha256, key: Array("aliyun_v4".utf8) + secretKey, message: Array(day.utf8))
    for part in [region, product, "aliyun_v4_request"] {
      key = HMAC.authenticationCode(.sha256, key: key, message: Array(part.utf8))
    }
    return key
  }

  static func trimmed(_ value: String) -> String {
    let bytes = value.utf8
    guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
      let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
    else { return "" }
    return String(value[first...last])
  }
}

/// The V4 signing keys of one secret key, derived once per day and region and kept (the few
/// most recent) for every later signature. Safe to share between tasks.
package final class OSSSigningKeys: Sendable {
  private let secretKey: [UInt8]
  private let keys = Mutex<[String: HMAC.Key]>([:])

  /// Keys for the secret key in `credentials`.
  package init(credentials: Credentials) {
    secretKey = credentials.secretKeyBytes
  }

  /// The HMAC-SHA256 key for `day` (`yyyymmdd`) and `region`.
  package func key(day: String, region: String) -> HMAC.Key {
    let name = day + "/" + region
    if let key = keys.withLock({ $0[name] }) { return key }
    let key = HMAC.Key(
      OSSSignatureV4.signingKey(secretKey: secretKey, day: day, region: region),
      algorithm: .sha256)
    keys.withLock { keys in
      if keys.count >= 8 { keys.removeAll() }
      keys[name] = key
    }
    return key
  }

  /// The lower-case hex signature of `stringToSign`.
  package func signature(_ stringToSign: String, day: String, region: String) -> String {
    Hex.encode(key(day: day, region: region).authenticationCode(Array(stringToSign.utf8)))
  }
}
