/// CRC-32/IEEE (zlib's `crc32`, reflected polynomial `0xEDB88320`), which Kodo's form upload
/// sends in its `crc32` field and which the server checks (406 on a mismatch).
package enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
    return value
  }

  /// The CRC-32 of `bytes`, continuing from `crc` (0 for the first bytes).
  package static func checksum(_ bytes: some Sequence<UInt8>, continuing crc: UInt32 = 0) -> UInt32
  {
    var value = ~crc
    for byte in bytes {
      value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8)
    }
    return ~value
  }
}
