/// Eight bytes tested at once (SWAR): the one spelling of the bit tricks the text scanners use
/// (`JSONText`'s escape check, `JSONReader`'s plain-ASCII scan, `DisplayText`'s safe-text check).
///
/// Each test returns a word whose byte has its top bit set where the test marks that byte. A
/// test may also mark a byte above one it rightly marks (the borrow), never one below, so
/// `marks & highs != 0` is exact and the lowest mark is the first byte that passes.
enum ByteWord {
  /// 0x01 in every byte.
  static let ones: UInt64 = 0x0101_0101_0101_0101
  /// 0x80 in every byte: `& highs` keeps the marks.
  static let highs: UInt64 = 0x8080_8080_8080_8080

  /// Marks the bytes of `word` below `limit` (`(w - n…) & ~w`).
  @inline(__always)
  static func below(_ limit: UInt8, _ word: UInt64) -> UInt64 {
    (word &- ones &* UInt64(limit)) & ~word
  }

  /// Marks the bytes of `word` equal to `byte` (a zero byte of `w ^ c…`).
  @inline(__always)
  static func equal(_ byte: UInt8, _ word: UInt64) -> UInt64 {
    let difference = word ^ (ones &* UInt64(byte))
    return (difference &- ones) & ~difference
  }

  /// Marks the bytes of `word` from 0x80 up.
  @inline(__always)
  static func nonASCII(_ word: UInt64) -> UInt64 { word }

  /// Marks the bytes of `word` of 0x7F or more (`(w + 0x01…) | w`).
  @inline(__always)
  static func atLeastDelete(_ word: UInt64) -> UInt64 { (word &+ ones) | word }
}
