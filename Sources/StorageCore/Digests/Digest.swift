import COpenSSL

/// SHA-1, SHA-256 and MD5 digests through OpenSSL's libcrypto. With `HMAC`, the only code that
/// touches `COpenSSL`.
package enum Digest {
  /// The 20-byte SHA-1 digest of `data`.
  package static func sha1(_ data: UnsafeRawBufferPointer) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 20)
    output.withUnsafeMutableBytes { outputBuffer in
      kodo_sha1(data.baseAddress, data.count, outputBuffer.baseAddress)
    }
    return output
  }

  /// The 20-byte SHA-1 digest of `data`.
  package static func sha1(_ data: [UInt8]) -> [UInt8] {
    data.withUnsafeBytes { sha1($0) }
  }

  /// The 32-byte SHA-256 digest of `data`.
  package static func sha256(_ data: [UInt8]) -> [UInt8] {
    once(KODO_DIGEST_SHA256, size: 32, data)
  }

  /// The 16-byte MD5 digest of `data` (objects' `md5` field; not for security).
  package static func md5(_ data: [UInt8]) -> [UInt8] {
    once(KODO_DIGEST_MD5, size: 16, data)
  }

  private static func once(_ digest: kodo_digest, size: Int, _ data: [UInt8])
    -> [UInt8]
  {
    var output = [UInt8](repeating: 0, count: size)
    let ok = data.withUnsafeBytes { input in
      output.withUnsafeMutableBytes {
        kodo_digest_once(digest, input.baseAddress, input.count, $0.baseAddress)
      }
    }
    // EVP_Digest only fails when libcrypto cannot allocate.
    precondition(ok == 1, "libcrypto digest failed")
    return output
  }
}

/// Lower-case hexadecimal text of bytes (digests in messages, cache file names, `md5` fields).
package enum Hex {
  private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// `[0x0f, 0xa0]` → `0fa0`: two digits a byte, always.
  package static func encode(_ bytes: some Sequence<UInt8>) -> String {
    var output: [UInt8] = []
    for byte in bytes {
      output.append(digits[Int(byte >> 4)])
      output.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: output, as: UTF8.self)
  }
}
