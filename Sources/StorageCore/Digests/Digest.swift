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

  /// `0fa0` or `0FA0` → `[0x0f, 0xa0]`; `nil` for an odd count or a byte that is not a hex
  /// digit.
  package static func decode(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var output: [UInt8] = []
    output.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
      guard let high = digitValue(digits[index]), let low = digitValue(digits[index + 1]) else {
        return nil
      }
      output.append(high << 4 | low)
      index += 2
    }
    return output
  }

  /// The value of a hex digit (either case); `nil` for any other byte.
  @inlinable
  package static func digitValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
