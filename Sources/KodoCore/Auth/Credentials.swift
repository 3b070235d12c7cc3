/// An access key and secret key pair, and Kodo's signing primitive.
///
/// The secret key never appears in `description`, `debugDescription` or any error, so printing a
/// `Credentials` value by mistake cannot leak it.
public struct Credentials: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The access key (AK), public by design: it is part of every token.
  public let accessKey: String
  private let secretKeyBytes: [UInt8]
  private let signingKey: HMACSHA1.Key

  /// Credentials from an access key and a secret key.
  public init(accessKey: String, secretKey: String) {
    self.accessKey = accessKey
    self.secretKeyBytes = Array(secretKey.utf8)
    self.signingKey = HMACSHA1.Key(secretKeyBytes)
  }

  /// Equal when both keys are.
  public static func == (lhs: Credentials, rhs: Credentials) -> Bool {
    lhs.accessKey == rhs.accessKey && lhs.secretKeyBytes == rhs.secretKeyBytes
  }

  /// Whether `text` contains the secret key; for callers that must prove they never print it.
  public func secretKeyAppears(in text: some StringProtocol) -> Bool {
    guard !secretKeyBytes.isEmpty else { return false }
    let haystack = Array(text.utf8)
    guard haystack.count >= secretKeyBytes.count else { return false }
    for start in 0...(haystack.count - secretKeyBytes.count)
    where haystack[start..<start + secretKeyBytes.count].elementsEqual(secretKeyBytes) {
      return true
    }
    return false
  }

  /// `AK:urlsafe_base64(HMAC-SHA1(SK, data))`.
  public func sign(_ data: [UInt8]) -> String {
    accessKey + ":"
      + URLSafeBase64.encode(signingKey.authenticationCode(data))
  }

  /// `AK:urlsafe_base64(HMAC-SHA1(SK, UTF-8 of data))`.
  public func sign(_ data: String) -> String {
    sign(Array(data.utf8))
  }

  /// `sign(urlsafe_base64(data)) + ":" + urlsafe_base64(data)`, the form of upload tokens.
  public func signWithData(_ data: [UInt8]) -> String {
    let encoded = URLSafeBase64.encode(data)
    return sign(encoded) + ":" + encoded
  }

  /// A redacted description: the access key only.
  public var description: String { "Credentials(accessKey: \(accessKey), secretKey: <redacted>)" }

  /// A redacted description: the access key only.
  public var debugDescription: String { description }
}
