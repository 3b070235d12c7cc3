import Foundation

extension JSONReader {
  /// An object member's name, compared with string literals (`case "key":`) without a `String`
  /// being made: up to 16 bytes of plain ASCII are kept inline, other names as decoded text.
  package struct MemberName: Sendable {
    /// The longest name kept inline.
    static var capacity: Int { 16 }
    @usableFromInline var low: UInt64 = 0
    @usableFromInline var high: UInt64 = 0
    /// The inline name's length; -1 when `text` holds the name.
    @usableFromInline var count = 0
    @usableFromInline var text: String?

    init() {}

    init(text: String) {
      self.text = text
      count = -1
    }

    /// Whether another byte fits inline.
    var isShort: Bool { count >= 0 && count < Self.capacity }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
      if count < 8 {
        low |= UInt64(byte) << UInt64(count * 8)
      } else {
        high |= UInt64(byte) << UInt64((count - 8) * 8)
      }
      count += 1
    }

    /// The name as text.
    package var string: String {
      if let text { return text }
      var bytes: [UInt8] = []
      for offset in 0..<count {
        let word = offset < 8 ? low : high
        bytes.append(UInt8(truncatingIfNeeded: word >> UInt64((offset % 8) * 8)))
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `name` is `literal` (a decoder matches eight names an object): the lengths, then
    /// the inline words. Small enough to be inlined into a decoder's `switch`, where most cases
    /// are decided by the length alone.
    @inlinable @inline(__always)
    package static func ~= (literal: StaticString, name: MemberName) -> Bool {
      guard literal.utf8CodeUnitCount == name.count else {
        return name.count < 0 && name.text == literal.description
      }
      return name.hasInlineBytes(of: literal)
    }

    /// Whether the inline bytes are `literal`'s (whose length is `count`): its bytes gathered
    /// into two words and compared with the stored ones, no call into the C library.
    @inlinable @inline(__always)
    package func hasInlineBytes(of literal: StaticString) -> Bool {
      guard literal.hasPointerRepresentation else { return string == literal.description }
      var words: (low: UInt64, high: UInt64) = (0, 0)
      let start = literal.utf8Start
      for offset in 0..<count {
        let byte = UInt64(start[offset])
        if offset < 8 {
          words.low |= byte << UInt64(offset * 8)
        } else {
          words.high |= byte << UInt64((offset - 8) * 8)
        }
      }
      return words.low == low && words.high == high
    }
  }
}

extension JSONReader {
  /// The last few distinct values of a field, for `readString(reusing:)`.
  package struct RecentStrings: Sendable {
    private var values: [String] = []
    private var next = 0
    private static let capacity = 16

    package init() {}

    /// The kept value whose UTF-8 is `bytes`, if any.
    func value(equalTo bytes: UnsafeBufferPointer<UInt8>) -> String? {
      for value in values {
        let same = value.utf8.withContiguousStorageIfAvailable { stored in
          guard stored.count == bytes.count else { return false }
          guard let left = stored.baseAddress, let right = bytes.baseAddress else { return true }
          return memcmp(left, right, bytes.count) == 0
        }
        if same == true { return value }
      }
      return nil
    }

    mutating func keep(_ value: String) {
      if values.count < Self.capacity {
        values.append(value)
      } else {
        values[next] = value
        next = (next + 1) % Self.capacity
      }
    }
  }

  /// Reads a string value as `readString` does, but returns an equal value kept in `recent`
  /// rather than a new one when there is one (a field that repeats from object to object, such
  /// as a content type, then costs no allocation).
  package mutating func readString(reusing recent: inout RecentStrings) throws(Failure) -> String {
    skipWhitespace()
    let start = index
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
      throw fail("expected a string")
    }
    var end = plainASCIIEnd(from: index + 1)
    while end < bytes.count {
      let byte = bytes[end]
      if byte == UInt8(ascii: "\"") {
        // Up to 15 bytes of UTF-8 are kept inside a `String` itself: made without an allocation,
        // cheaper than a look through `recent`.
        if end - start - 1 <= 15 { return try readString() }
        let kept = bytes.withUnsafeBufferPointer { buffer in
          recent.value(equalTo: UnsafeBufferPointer(rebasing: buffer[(start + 1)..<end]))
        }
        if let kept {
          index = end + 1
          return kept
        }
        break
      }
      if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
      end += 1
    }
    let value = try readString()
    recent.keep(value)
    return value
  }

  /// Reads a string or `null` (`nil`), as `readString(reusing:)`.
  package mutating func readOptionalString(reusing recent: inout RecentStrings) throws(Failure)
    -> String?
  {
    if readNull() { return nil }
    return try readString(reusing: &recent)
  }
}
