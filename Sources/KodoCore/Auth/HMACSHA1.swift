import COpenSSL

/// HMAC-SHA1 and SHA-1 through OpenSSL's libcrypto. The only file that touches `COpenSSL`.
public enum HMACSHA1 {
  /// The 20-byte HMAC-SHA1 of `message` under `key`.
  public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 20)
    var length: UInt32 = 0
    let ok = key.withUnsafeBytes { keyBuffer in
      message.withUnsafeBytes { messageBuffer in
        output.withUnsafeMutableBytes { outputBuffer in
          kodo_hmac_sha1(
            keyBuffer.baseAddress, Int32(keyBuffer.count), messageBuffer.baseAddress,
            messageBuffer.count, outputBuffer.baseAddress, &length)
        }
      }
    }
    // HMAC with EVP_sha1 only fails when libcrypto cannot allocate; there is no useful recovery.
    precondition(ok == 1 && length == 20, "libcrypto HMAC-SHA1 failed")
    return output
  }

  /// The 20-byte SHA-1 digest of `data`.
  public static func sha1(_ data: UnsafeRawBufferPointer) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 20)
    output.withUnsafeMutableBytes { outputBuffer in
      kodo_sha1(data.baseAddress, data.count, outputBuffer.baseAddress)
    }
    return output
  }

  /// The 20-byte SHA-1 digest of `data`.
  public static func sha1(_ data: [UInt8]) -> [UInt8] {
    data.withUnsafeBytes { sha1($0) }
  }
}
