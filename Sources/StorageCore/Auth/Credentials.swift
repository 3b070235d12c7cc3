/// An access key and secret key pair, and an optional security (STS) token.
///
/// The secret key and the token never appear in `description`, `debugDescription` or any error,
/// so printing a `Credentials` value by mistake cannot leak them. Providers sign with
/// `secretKeyBytes` and the HMAC-SHA1 key scheduled once here.
public struct Credentials: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The access key (AK), public by design: it is part of every token.
  public let accessKey: String
  /// The secret key's UTF-8 bytes, for providers' signing code only.
  package let secretKeyBytes: [UInt8]
  /// The secret key scheduled for HMAC-SHA1 (Kodo, OSS V1), made once for many signatures.
  package let hmacSHA1: HMAC.Key
  /// A temporary security token (Aliyun STS), sent with every request when set.
  package let securityToken: String?

  /// Credentials from an access key, a secret key and, for temporary credentials, a token.
  public init(accessKey: String, secretKey: String, securityToken: String? = nil) {
    self.accessKey = accessKey
    self.secretKeyBytes = Array(secretKey.utf8)
    self.hmacSHA1 = HMAC.Key(secretKeyBytes, algorithm: .sha1)
    self.securityToken = securityToken
  }

  /// Equal when the keys and the token are.
  public static func == (lhs: Credentials, rhs: Credentials) -> Bool {
    lhs.accessKey == rhs.accessKey && lhs.secretKeyBytes == rhs.secretKeyBytes
      && lhs.securityToken == rhs.securityToken
  }

  /// Whether there is a security token.
  public var hasSecurityToken: Bool { securityToken != nil }

  /// Whether `text` contains the secret key (or the security token); for callers that must prove
  /// they never print them.
  public func secretKeyAppears(in text: some StringProtocol) -> Bool {
    let haystack = Array(text.utf8)
    for needle in [secretKeyBytes, Array((securityToken ?? "").utf8)] where !needle.isEmpty {
      guard haystack.count >= needle.count else { continue }
      for start in 0...(haystack.count - needle.count)
      where haystack[start..<start + needle.count].elementsEqual(needle) {
        return true
      }
    }
    return false
  }

  /// A redacted description: the access key only.
  public var description: String { "Credentials(accessKey: \(accessKey), secretKey: <redacted>)" }

  /// A redacted description: the access key only.
  public var debugDescription: String { description }
}
