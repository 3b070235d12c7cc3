package import StorageCore

/// Kodo's signing primitive on the provider-neutral credentials.
extension Credentials {
  /// `AK:urlsafe_base64(HMAC-SHA1(SK, data))`.
  package func sign(_ data: [UInt8]) -> String {
    accessKey + ":"
      + URLSafeBase64.encode(hmacSHA1.authenticationCode(data))
  }

  /// `AK:urlsafe_base64(HMAC-SHA1(SK, UTF-8 of data))`.
  package func sign(_ data: String) -> String {
    sign(Array(data.utf8))
  }

  /// `sign(urlsafe_base64(data)) + ":" + urlsafe_base64(data)`, the form of upload tokens.
  package func signWithData(_ data: [UInt8]) -> String {
    let encoded = URLSafeBase64.encode(data)
    return sign(encoded) + ":" + encoded
  }

}
