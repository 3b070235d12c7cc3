extension CRC64 {
  /// The CRC of `A ‖ B` from `crc(A)`, `crc(B)` and the length of `B` (zlib's `crc32_combine`
  /// for 64 bits, `docs/write-protocol.md` §B4): how a multipart object's CRC-64 follows from
  /// its parts'.
  public static func combine(_ first: UInt64, _ second: UInt64, length: Int64) -> UInt64 {
    guard length > 0 else { return first }
    var odd = [UInt64](repeating: 0, count: 64)
    odd[0] = polynomial
    var row: UInt64 = 1
    for index in 1..<64 {
      odd[index] = row
      row <<= 1
    }
    var even = square(odd)
    odd = square(even)
    var value = first
    var remaining = UInt64(length)
    while true {
      even = square(odd)
      if remaining & 1 == 1 { value = times(even, value) }
      remaining >>= 1
      if remaining == 0 { break }
      odd = square(even)
      if remaining & 1 == 1 { value = times(odd, value) }
      remaining >>= 1
      if remaining == 0 { break }
    }
    return value ^ second
  }

  /// The CRC of parts laid end to end, from each part's CRC and size, in order.
  public static func combine(_ parts: [(crc: UInt64, size: Int64)]) -> UInt64 {
    parts.reduce(0) { combine($0, $1.crc, length: $1.size) }
  }

  private static func times(_ matrix: [UInt64], _ vector: UInt64) -> UInt64 {
    var sum: UInt64 = 0
    var vector = vector
    var index = 0
    while vector != 0 {
      if vector & 1 == 1 { sum ^= matrix[index] }
      vector >>= 1
      index += 1
    }
    return sum
  }

  private static func square(_ matrix: [UInt64]) -> [UInt64] {
    matrix.map { times(matrix, $0) }
  }
}
