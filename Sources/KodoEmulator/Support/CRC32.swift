/// CRC-32/IEEE (zlib's), the `crc32` a Kodo form upload may carry and resumable v1 answers.
enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }

  /// The CRC of the chunks taken in order.
  static func checksum(_ chunks: [[UInt8]]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    table.withUnsafeBufferPointer { table in
      for chunk in chunks {
        for byte in chunk { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
      }
    }
    return crc ^ 0xFFFF_FFFF
  }
}
