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

  /// Appends `separator` and `sign(bytes)` to `bytes`: a URL signs itself up to its token, with
  /// no array or string made for the MAC or the signature.
  package func appendSignature(of bytes: inout [UInt8], after separator: StaticString) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: HMAC.Algorithm.sha1.outputSize) {
      code in
      code.initialize(repeating: 0)
      bytes.withUnsafeBytes {
        hmacSHA1.authenticationCode(of: $0, into: UnsafeMutableRawBufferPointer(code))
      }
      separator.withUTF8Buffer { bytes.append(contentsOf: $0) }
      bytes.append(contentsOf: accessKey.utf8)
      bytes.append(UInt8(ascii: ":"))
      URLSafeBase64.append(UnsafeBufferPointer(code), to: &bytes)
    }
  }
}
