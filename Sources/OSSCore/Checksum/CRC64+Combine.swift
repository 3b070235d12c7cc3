extension CRC64 {
  /// The CRC of `A ‖ B` from `crc(A)`, `crc(B)` and the length of `B` (zlib's `crc32_combine`
  /// for 64 bits, `docs/write-protocol.md` §B4): how a multipart object's CRC-64 follows from
  /// its parts'. `crc(A)` times x^(8 · length) modulo the polynomial, plus `crc(B)`: about 64
  /// shifts for each bit of the length.
  public static func combine(_ first: UInt64, _ second: UInt64, length: Int64) -> UInt64 {
    guard length > 0 else { return first }
    return multiply(powerOfX(bytes: UInt64(length)), first) ^ second
  }

  /// The CRC of parts laid end to end, from each part's CRC and size, in order.
  public static func combine(_ parts: [(crc: UInt64, size: Int64)]) -> UInt64 {
    parts.reduce(0) { combine($0, $1.crc, length: $1.size) }
  }

  // Polynomials modulo the CRC's, reflected as the register holds them: bit 63 is x^0, bit 0 is
  // x^63.

  /// `a · b` modulo the polynomial.
  private static func multiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var product: UInt64 = 0
    // `a`'s terms from x^0 up, `b` times x at each.
    var a = a
    var b = b
    while a != 0 {
      if a & (1 << 63) != 0 { product ^= b }
      a <<= 1
      b = b & 1 == 1 ? (b >> 1) ^ polynomial : b >> 1
    }
    return product
  }

  /// x^(8 · bytes) modulo the polynomial, from the powers x^(2^k).
  private static func powerOfX(bytes: UInt64) -> UInt64 {
    var power: UInt64 = 1 << 63
    var remaining = bytes
    // x^(8 · 2^k) = x^(2^(k + 3)).
    var index = 3
    while remaining != 0 {
      if remaining & 1 == 1 { power = multiply(powersOfTwo[index], power) }
      remaining >>= 1
      index += 1
    }
    return power
  }

  /// x^(2^k) modulo the polynomial for k in 0..<67 (a length of up to 2^63 bytes needs up to
  /// x^(2^66)).
  private static let powersOfTwo: [UInt64] = {
    var powers: [UInt64] = [1 << 62]
    while powers.count < 67 {
      let last = powers[powers.count - 1]
      powers.append(multiply(last, last))
    }
    return powers
  }()
}
