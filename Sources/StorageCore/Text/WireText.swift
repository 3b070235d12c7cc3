/// The one place where protocol text (query strings, header lines and values, signatures,
/// authorities, policies) is cut, searched and compared: on its UTF-8 bytes.
///
/// Swift's `String` works in `Character`s (grapheme clusters) under canonical equivalence. A `&`,
/// `=`, `:` or `,` followed by a combining mark is one `Character` that is not the delimiter, so
/// `split(separator: "&")`, `firstIndex(of: ":")` or `hasPrefix("OSS ")` miss a delimiter the
/// service sees; and some characters are canonically equal to ASCII (U+037E is `;`, U+212A is `K`),
/// so a grapheme-level cut or comparison also finds a delimiter or a name the service does not
/// see. Services cut at bytes; so does kodo, here (keys at `/`: `KeySegments`). `make lint`
/// refuses the grapheme-level forms in the protocol targets.
///
/// Delimiters and needles are ASCII, so every index found is a scalar boundary and a valid
/// `String` index; ranges end with `..<`, never `...`, which would step a whole `Character`.
package enum WireText {
  /// The index of the first `byte` (an ASCII delimiter), or `nil`.
  package static func firstIndex<S: StringProtocol>(of byte: Unicode.Scalar, in text: S) -> S.Index?
  {
    text.utf8.firstIndex(of: ascii(byte))
  }

  /// The index of the last `byte` (an ASCII delimiter), or `nil`.
  package static func lastIndex<S: StringProtocol>(of byte: Unicode.Scalar, in text: S) -> S.Index?
  where S.UTF8View: BidirectionalCollection {
    text.utf8.lastIndex(of: ascii(byte))
  }

  /// Whether `text` has the byte `byte` anywhere.
  package static func contains<S: StringProtocol>(_ text: S, byte: Unicode.Scalar) -> Bool {
    text.utf8.contains(ascii(byte))
  }

  /// Whether `text` has the bytes of `needle` anywhere.
  package static func contains<S: StringProtocol>(_ text: S, _ needle: String) -> Bool {
    range(of: needle, in: text) != nil
  }

  /// The first place where the bytes of `needle` (non-empty) occur in `text`, or `nil`.
  package static func range<S: StringProtocol>(of needle: String, in text: S) -> Range<S.Index>? {
    let bytes = text.utf8
    guard let first = needle.utf8.first else { return nil }
    var start = bytes.startIndex
    while let candidate = bytes[start...].firstIndex(of: first) {
      var index = candidate
      var matched = true
      for byte in needle.utf8 {
        guard index < bytes.endIndex, bytes[index] == byte else {
          matched = false
          break
        }
        index = bytes.index(after: index)
      }
      if matched { return candidate..<index }
      start = bytes.index(after: candidate)
    }
    return nil
  }

  /// Whether `text` begins with the bytes of `prefix`.
  package static func hasPrefix<S: StringProtocol>(_ text: S, _ prefix: String) -> Bool {
    text.utf8.starts(with: prefix.utf8)
  }

  /// Whether `text` ends with the bytes of `suffix`.
  package static func hasSuffix<S: StringProtocol>(_ text: S, _ suffix: String) -> Bool
  where S.UTF8View: BidirectionalCollection {
    text.utf8.reversed().starts(with: suffix.utf8.reversed())
  }

  /// What follows `prefix` in `text`, or `nil` when `text` does not begin with its bytes.
  package static func dropping<S: StringProtocol>(prefix: String, from text: S) -> S.SubSequence? {
    guard hasPrefix(text, prefix) else { return nil }
    return text[text.utf8.index(text.startIndex, offsetBy: prefix.utf8.count)...]
  }

  /// What precedes `suffix` in `text`, or `nil` when `text` does not end with its bytes.
  package static func dropping<S: StringProtocol>(suffix: String, from text: S) -> S.SubSequence?
  where S.UTF8View: BidirectionalCollection {
    guard hasSuffix(text, suffix) else { return nil }
    return text[..<text.utf8.index(text.endIndex, offsetBy: -suffix.utf8.count)]
  }

  /// Whether `a` and `b` are the same bytes (not merely canonically equivalent).
  package static func same(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
    a.utf8.elementsEqual(b.utf8)
  }

  /// Whether `a` and `b` are the same bytes but for the case of ASCII letters (HTTP header names).
  package static func sameIgnoringASCIICase(
    _ a: some StringProtocol, _ b: some StringProtocol
  ) -> Bool {
    a.utf8.elementsEqual(b.utf8) { lowered($0) == lowered($1) }
  }

  /// Whether `a` sorts before `b` by bytes (as the services and their SDKs sort), not by
  /// `String`'s order of normalised scalars.
  package static func precedes(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
  }

  /// The parts of `text` between `byte`s, at most `maxSplits` cuts, empty parts kept unless
  /// `omittingEmpty`: `a&&b` at `&` is `a`, ``, `b`.
  package static func split<S: StringProtocol>(
    _ text: S, at byte: Unicode.Scalar, maxSplits: Int = .max, omittingEmpty: Bool = false
  ) -> [S.SubSequence] {
    let delimiter = ascii(byte)
    let utf8 = text.utf8
    var result: [S.SubSequence] = []
    var start = utf8.startIndex
    var index = utf8.startIndex
    var cuts = 0
    while index < utf8.endIndex, cuts < maxSplits {
      if utf8[index] == delimiter {
        if !omittingEmpty || start < index { result.append(text[start..<index]) }
        start = utf8.index(after: index)
        cuts += 1
      }
      index = utf8.index(after: index)
    }
    if !omittingEmpty || start < utf8.endIndex { result.append(text[start..<utf8.endIndex]) }
    return result
  }

  /// The text before the first `byte` and the text after it, or `nil` when there is none.
  package static func cut<S: StringProtocol>(
    _ text: S, at byte: Unicode.Scalar
  ) -> (head: S.SubSequence, tail: S.SubSequence)? {
    guard let index = firstIndex(of: byte, in: text) else { return nil }
    return (text[..<index], text[text.utf8.index(after: index)...])
  }

  /// The text before the last `byte` and the text after it, or `nil` when there is none.
  package static func cutAtLast<S: StringProtocol>(
    _ text: S, at byte: Unicode.Scalar
  ) -> (head: S.SubSequence, tail: S.SubSequence)? where S.UTF8View: BidirectionalCollection {
    guard let index = lastIndex(of: byte, in: text) else { return nil }
    return (text[..<index], text[text.utf8.index(after: index)...])
  }

  /// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
  package static func trimmingSpaces<S: StringProtocol>(_ text: S) -> S.SubSequence
  where S.UTF8View: BidirectionalCollection {
    let utf8 = text.utf8
    let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    let start = utf8.firstIndex { !isSpace($0) } ?? utf8.endIndex
    var end = utf8.endIndex
    while end > start, isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
    return text[start..<end]
  }

  /// `text` with ASCII capitals made small and every other byte kept: HTTP header names and the
  /// services' metadata names are case-insensitive in ASCII only.
  package static func asciiLowercased<S: StringProtocol>(_ text: S) -> String {
    let utf8 = text.utf8
    guard utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
      return String(text)
    }
    return String(decoding: utf8.map(lowered), as: UTF8.self)
  }

  private static func lowered(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
  }

  private static func ascii(_ scalar: Unicode.Scalar) -> UInt8 {
    UInt8(truncatingIfNeeded: scalar.value)
  }
}
