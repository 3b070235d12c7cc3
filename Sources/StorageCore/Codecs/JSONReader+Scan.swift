extension JSONReader {
  /// The index of the first byte at or after `start` that is `"`, `\`, a control character or
  /// not ASCII (`bytes.count` when there is none before the end): eight bytes at a time, the
  /// rest byte by byte. Strings and member names are mostly plain ASCII, which this passes over.
  ///
  /// In a word (`ByteWord`), the lowest mark is exact: the first such byte.
  @inline(__always)
  func plainASCIIEnd(from start: Int) -> Int {
    bytes.withUnsafeBytes { raw in
      var at = start
      while at + 8 <= raw.count {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        let marks = Self.stringMarks(word)
        if marks != 0 { return at + marks.trailingZeroBitCount / 8 }
        at += 8
      }
      while at < raw.count {
        let byte = raw[at]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 {
          return at
        }
        at += 1
      }
      return at
    }
  }

  /// Passes over a string value, checked as `readString` checks it: a plain one (ASCII, no
  /// escape) without making a `String` of it, any other through `readString`.
  mutating func skipString() throws(Failure) {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
      throw fail("expected a string")
    }
    let end = plainASCIIEnd(from: index + 1)
    guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
      _ = try readString()
      return
    }
    index = end + 1
  }

  /// Reads an object for the string value of its member `name` alone (the last one, when it
  /// names it twice; `nil` when it has none), passing over the other members, checked as
  /// `skipValue` checks them: `rm -r`'s listing wants each item's key and nothing else.
  package mutating func readObject(stringOf name: StaticString) throws(Failure) -> String? {
    var value: String?
    try readContainer(open: "{", close: "}", what: "an object") { (reader) throws(Failure) in
      reader.skipWhitespace()
      guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"")
      else {
        throw reader.fail("expected a member name")
      }
      let wanted = try reader.readName(is: name)
      reader.skipWhitespace()
      guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":")
      else {
        throw reader.fail("expected ':'")
      }
      reader.index += 1
      if wanted { value = try reader.readString() } else { try reader.skipValue() }
    }
    return value
  }

  /// Reads a member name (at its opening quote) and tells whether it is `literal`: a plain one
  /// compared in place, any other read as `readString` reads it.
  private mutating func readName(is literal: StaticString) throws(Failure) -> Bool {
    let start = index + 1
    let end = plainASCIIEnd(from: start)
    guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
      return try readString() == literal.description
    }
    index = end + 1
    guard end - start == literal.utf8CodeUnitCount else { return false }
    let text = literal.utf8Start
    for offset in 0..<(end - start) where bytes[start + offset] != text[offset] { return false }
    return true
  }

  /// The marks (`ByteWord`) of the bytes of `word` that end a plain string: `"`, `\`, control
  /// characters and non-ASCII. The lowest mark is exact.
  @inline(__always)
  static func stringMarks(_ word: UInt64) -> UInt64 {
    (ByteWord.below(0x20, word) | ByteWord.nonASCII(word) | ByteWord.equal(0x22, word)
      | ByteWord.equal(0x5C, word)) & ByteWord.highs
  }

  /// Reads a member name: a short plain name into `MemberName`'s inline bytes (two words loaded
  /// from the input where 16 bytes are there to load), anything else (escapes, non-ASCII, more
  /// than 16 bytes) through `readString`.
  mutating func readMemberName() throws(Failure) -> MemberName {
    let start = index + 1
    // The usual name: plain ASCII ending within the 16 bytes loaded at once, found by the first
    // byte the scan marks in them being the closing quote.
    if start + 16 <= bytes.count {
      let (low, high) = bytes.withUnsafeBytes { raw in
        (
          UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self)),
          UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self))
        )
      }
      let lowMarks = Self.stringMarks(low)
      let marks = lowMarks != 0 ? lowMarks : Self.stringMarks(high)
      let length = (lowMarks != 0 ? 0 : 8) + marks.trailingZeroBitCount / 8
      if marks != 0, bytes[start + length] == UInt8(ascii: "\"") {
        var name = MemberName()
        name.low = length >= 8 ? low : low & ((1 << UInt64(length * 8)) - 1)
        name.high = length <= 8 ? 0 : high & ((1 << UInt64((length - 8) * 8)) - 1)
        name.count = length
        index = start + length + 1
        return name
      }
    }
    let end = plainASCIIEnd(from: start)
    let length = end - start
    guard end < bytes.count, bytes[end] == UInt8(ascii: "\""), length <= MemberName.capacity
    else { return MemberName(text: try readString()) }
    var name = MemberName()
    if start + 16 <= bytes.count {
      bytes.withUnsafeBytes { raw in
        let low = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        let high = UInt64(
          littleEndian: raw.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self))
        name.low = length >= 8 ? low : low & ((1 << UInt64(length * 8)) - 1)
        name.high =
          length >= 16 ? high : length <= 8 ? 0 : high & ((1 << UInt64((length - 8) * 8)) - 1)
        name.count = length
      }
    } else {
      for at in start..<end { name.append(bytes[at]) }
    }
    index = end + 1
    return name
  }
}

extension JSONReader {
  /// Reads a string value as `InlineText`: plain ASCII of up to `InlineText.inlineCapacity` bytes
  /// (a qetag, an MD5) straight from the input into its words, anything else through
  /// `readString` (the same text, the same errors).
  @inline(__always)
  package mutating func readInlineText() throws(Failure) -> InlineText {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
      throw fail("expected a string")
    }
    let start = index + 1
    let end = plainASCIIEnd(from: start)
    guard end < bytes.count, bytes[end] == UInt8(ascii: "\""),
      end - start <= InlineText.inlineCapacity
    else { return InlineText(try readString()) }
    let text = bytes.withUnsafeBytes { InlineText(ascii: $0, from: start, count: end - start) }
    index = end + 1
    return text
  }

  /// Reads a string as `InlineText`, or `nil` for `null`.
  @inline(__always)
  package mutating func readOptionalInlineText() throws(Failure) -> InlineText? {
    if readNull() { return nil }
    return try readInlineText()
  }
}

extension JSONReader {
  /// Reads runs of eight decimal digits from `index` while at most ten digits have been read
  /// (so the value stays below 10^18): the value and the number of digits read. A run that is
  /// not eight digits is left for the caller's byte loop.
  @inline(__always)
  mutating func eightDigitRuns() -> (value: Int64, digits: Int) {
    var value: Int64 = 0
    var digits = 0
    bytes.withUnsafeBytes { raw in
      while digits <= 10, index + 8 <= raw.count {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        guard Self.isEightDigits(word) else { break }
        value = value &* 100_000_000 &+ Int64(Self.eightDigitsValue(word))
        index += 8
        digits += 8
      }
    }
    return (value, digits)
  }

  /// Whether the eight bytes of `word` are all ASCII digits: the high nibbles are all 3, and
  /// adding 6 to each byte does not carry into its high nibble.
  @inline(__always)
  static func isEightDigits(_ word: UInt64) -> Bool {
    let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
    return (word & highNibbles) | (((word &+ 0x0606_0606_0606_0606) & highNibbles) >> 4)
      == 0x3333_3333_3333_3333
  }

  /// The value of eight ASCII digits, the first in the lowest byte: pairs, then fours, then the
  /// two halves combined by multiplication (Lemire's SWAR parse).
  @inline(__always)
  static func eightDigitsValue(_ word: UInt64) -> UInt64 {
    var value = word &- 0x3030_3030_3030_3030
    value = (value &* 10) &+ (value >> 8)
    let mask: UInt64 = 0x0000_00FF_0000_00FF
    let low: UInt64 = 100 + (1_000_000 << 32)
    let high: UInt64 = 1 + (10_000 << 32)
    return ((value & mask) &* low &+ ((value >> 16) & mask) &* high) >> 32
  }
}

extension JSONReader {
  /// A decoder's member names, in a fixed order, looked up by a `MemberName` in one call: from
  /// the name expected next on (a service writes an object's members in the same order every
  /// time), then the others. Each is compared as the two words and length `MemberName` keeps
  /// inline, or as text for a name kept as text.
  package struct MemberNames: Sendable {
    @usableFromInline let inline: [(low: UInt64, high: UInt64, count: Int)]
    private let texts: [String]

    /// The names, each one at the position `position(of:expected:)` answers for it.
    package init(_ names: [StaticString]) {
      var inline: [(low: UInt64, high: UInt64, count: Int)] = []
      for name in names {
        var word = MemberName()
        name.withUTF8Buffer { bytes in
          if bytes.count <= MemberName.capacity {
            for byte in bytes { word.append(byte) }
          } else {
            word.count = -2
          }
        }
        inline.append((word.low, word.high, word.count))
      }
      self.inline = inline
      texts = names.map(\.description)
    }

    /// The position of `name` among the names, or `nil`; `expected` (the position after the
    /// last one found, kept by the caller from object to object) is tried first, inlined into
    /// the decoder (a member in the service's usual order costs one comparison and no call).
    @inlinable @inline(__always)
    package func position(of name: MemberName, expected: Int) -> Int? {
      if expected >= 0, expected < inline.count, Self.matches(inline[expected], name) {
        return expected
      }
      return search(name, expected: expected)
    }

    /// `position(of:expected:)` when the expected name is not the one.
    @usableFromInline
    func search(_ name: MemberName, expected: Int) -> Int? {
      guard name.count >= 0 else { return name.text.flatMap { texts.firstIndex(of: $0) } }
      // Members a service leaves out put the name further on: from `expected` to the end, then
      // from the start.
      let start = min(max(expected, 0), inline.count)
      for index in start..<inline.count where Self.matches(inline[index], name) { return index }
      for index in 0..<start where Self.matches(inline[index], name) { return index }
      return nil
    }

    @inlinable @inline(__always)
    static func matches(_ entry: (low: UInt64, high: UInt64, count: Int), _ name: MemberName)
      -> Bool
    {
      entry.count == name.count && entry.low == name.low && entry.high == name.high
    }
  }
}
