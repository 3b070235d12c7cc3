/// CRC-32/IEEE (zlib's `crc32`, reflected polynomial `0xEDB88320`), which Kodo's form upload
/// sends in its `crc32` field and which the server checks (406 on a mismatch). The one CRC-32 of
/// the package: the client's form uploads and the emulator's checks both use it.
///
/// Bytes are read through a buffer pointer, never element by element through generic code:
/// generic iteration costs about a microsecond a byte in a debug build, which made checking a
/// 9 MiB form upload take seconds.
package enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
    return value
  }

  /// The CRC-32 of `bytes`, continuing from `crc` (0 for the first bytes).
  package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0)
    -> UInt32
  {
    var value = ~crc
    table.withUnsafeBufferPointer { table in
      for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
    }
    return ~value
  }

  /// The CRC-32 of `bytes`, continuing from `crc` (0 for the first bytes).
  package static func checksum(_ bytes: some Collection<UInt8>, continuing crc: UInt32 = 0)
    -> UInt32
  {
    if let value = bytes.withContiguousStorageIfAvailable({
      checksum(UnsafeRawBufferPointer($0), continuing: crc)
    }) {
      return value
    }
    return Array(bytes).withUnsafeBytes { checksum($0, continuing: crc) }
  }
}
