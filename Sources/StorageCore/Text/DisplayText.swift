/// Text that is safe to show on a terminal: untrusted text (keys, server messages, names from a
/// config file) can become one only through the escaper, and the command line's human renderers
/// accept nothing else.
///
/// The escaper decides by Unicode property, not by a list: it writes as escapes (`\n`, `\t`,
/// `\u{1B}`, `\u{202E}`) every control (C0, DEL, C1), format character (general category Cf:
/// bidirectional controls, zero-width spaces and joiners, tags U+E0000–E007F, invisible operators
/// U+2061–2064, interlinear annotations U+FFF9–FFFB, the Mongolian vowel separator, …), line and
/// paragraph separator, unassigned code point (Cn, noncharacters included), private-use
/// character (Co) and default-ignorable code point (Hangul fillers U+115F, U+1160, U+3164,
/// U+FFA0, the combining grapheme joiner U+034F, variation selectors, …). So a key can never move
/// the cursor, forge an output line, reorder what follows it, or hide a character: two keys that
/// differ only by such a character never look the same. Two exceptions keep emoji whole: a ZWJ
/// (U+200D) between two emoji, and a variation selector U+FE0E/U+FE0F right after an emoji (or
/// a keycap's digit). Emoji tag sequences (subdivision flags) are escaped like any tag.
/// Backslashes are kept as they are, so escaping escaped text changes nothing.
///
/// String literals are trusted (`let label: DisplayText = "Size:"`); in an interpolation
/// (`"wrote \(path)"`) a `DisplayText` is kept and every other value is escaped.
public struct DisplayText: Sendable, Hashable, CustomStringConvertible,
  ExpressibleByStringInterpolation
{
  /// The text, safe to write to a terminal.
  public private(set) var text: String

  private init(safe text: String) {
    self.text = text
  }

  /// Untrusted text, escaped.
  public init(escaping untrusted: some StringProtocol) {
    self.init(safe: Self.escaped(untrusted))
  }

  /// Untrusted text, escaped (the common case, without generic dispatch: a listing or a
  /// million URLs go through here).
  public init(escaping untrusted: String) {
    self.init(safe: Self.escaped(untrusted))
  }

  /// A literal from the program's source: trusted as it is.
  public init(stringLiteral literal: String) {
    self.init(safe: literal)
  }

  /// Builds text from trusted literal parts and escaped values.
  public init(stringInterpolation: Interpolation) {
    self.init(safe: stringInterpolation.text)
  }

  /// Literal parts are kept; values are escaped unless they are `DisplayText` already.
  public struct Interpolation: StringInterpolationProtocol {
    var text = ""

    /// Room for the literal text.
    public init(literalCapacity: Int, interpolationCount: Int) {
      text.reserveCapacity(literalCapacity + interpolationCount * 8)
    }

    /// A literal part: trusted.
    public mutating func appendLiteral(_ literal: String) {
      text += literal
    }

    /// Safe text: kept.
    public mutating func appendInterpolation(_ value: DisplayText) {
      text += value.text
    }

    /// Any other value: its description, escaped.
    public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
      text += DisplayText.escaped(value.description)
    }
  }

  /// The text.
  public var description: String { text }

  /// Whether there is no text.
  public var isEmpty: Bool { text.isEmpty }

  /// Safe text followed by safe text.
  public static func + (lhs: DisplayText, rhs: DisplayText) -> DisplayText {
    DisplayText(safe: lhs.text + rhs.text)
  }

  /// Appends safe text.
  public static func += (lhs: inout DisplayText, rhs: DisplayText) {
    lhs.text += rhs.text
  }

  /// The text wrapped in an SGR terminal style (`1;34` bold blue); the codes are the program's
  /// own, never untrusted text.
  public func styled(_ sgr: StaticString) -> DisplayText {
    DisplayText(safe: "\u{1B}[" + sgr.description + "m" + text + "\u{1B}[0m")
  }

  /// Safe pieces joined by a safe separator.
  public static func joined(_ pieces: [DisplayText], separator: DisplayText) -> DisplayText {
    DisplayText(safe: pieces.map(\.text).joined(separator: separator.text))
  }

  // MARK: - The escaper

  /// The text with every unsafe character written as an escape (see `DisplayText`).
  public static func escaped(_ text: String) -> String {
    var text = text
    if text.withUTF8({ !mayNeedEscaping($0) }) { return text }
    return escapedSlowly(text)
  }

  /// The text with every unsafe character written as an escape (see `DisplayText`).
  public static func escaped(_ text: some StringProtocol) -> String {
    escapedSlowly(text)
  }

  private static func escapedSlowly(_ text: some StringProtocol) -> String {
    if text.utf8.withContiguousStorageIfAvailable({ !mayNeedEscaping($0) }) == true {
      return String(text)
    }
    if isDisplaySafe(text) { return String(text) }
    var output = ""
    forEachScalar(of: text) { scalar, escape in
      if !escape {
        output.unicodeScalars.append(scalar)
        return true
      }
      switch scalar {
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      default: output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
      return true
    }
    return output
  }

  /// Whether `text` is shown as it is: the escaper would change nothing.
  public static func isDisplaySafe(_ text: some StringProtocol) -> Bool {
    var safe = true
    forEachScalar(of: text) { _, escape in
      if escape { safe = false }
      return safe
    }
    return safe
  }

  /// Calls `body` with each scalar of `text` and whether the escaper writes it as an escape
  /// there, until `body` returns `false`: `isUnsafe`, except for a ZWJ between two emoji and a
  /// variation selector U+FE0E/U+FE0F after an emoji, which are kept.
  private static func forEachScalar(
    of text: some StringProtocol, _ body: (Unicode.Scalar, Bool) -> Bool
  ) {
    var scalars = text.unicodeScalars.makeIterator()
    var next = scalars.next()
    // The scalar before, when it was kept and an emoji may go on after it.
    var emojiBefore: Unicode.Scalar?
    while let scalar = next {
      next = scalars.next()
      var escape = isUnsafe(scalar)
      switch scalar.value {
      case 0x200D:
        if let before = emojiBefore, before.value >= 0x80, let following = next,
          isEmojiScalar(following)
        {
          escape = false
        }
      case 0xFE0E, 0xFE0F:
        if let before = emojiBefore, before.value != 0xFE0E, before.value != 0xFE0F,
          before.value >= 0x80 || next?.value == 0x20E3
        {
          escape = false
        }
      default: break
      }
      if escape {
        emojiBefore = nil
      } else if scalar.value == 0xFE0F || scalar.properties.isEmoji {
        emojiBefore = scalar
      } else {
        emojiBefore = nil
      }
      guard body(scalar, escape) else { return }
    }
  }

  /// An emoji that a ZWJ may join to: any emoji scalar outside ASCII (not a digit, `#` or `*`).
  private static func isEmojiScalar(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 0x80 && scalar.properties.isEmoji
  }

  /// Untrusted text escaped and in double quotes (see `quoted`).
  public init(quoting untrusted: some StringProtocol) {
    self.init(safe: Self.quoted(untrusted))
  }

  /// Bytes that need not be UTF-8 (a local file's name), escaped and in double quotes: valid
  /// UTF-8 as ``quoted(_:)`` writes it, and each byte that is not part of it as `\xNN`.
  public init(quotingBytes bytes: [UInt8]) {
    var text = ""
    var index = 0
    while index < bytes.count {
      let lead = bytes[index]
      let length =
        lead < 0x80
        ? 1 : lead >= 0xF5 ? 0 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0
      if length > 0, index + length <= bytes.count,
        let scalar = String(validating: bytes[index..<index + length], as: UTF8.self)
      {
        text += scalar
        index += length
      } else {
        let digits = String(lead, radix: 16, uppercase: true)
        text += "\\x" + (digits.count == 1 ? "0" : "") + digits
        index += 1
      }
    }
    self.init(safe: Self.quoted(text))
  }

  /// The text escaped and in double quotes (a `"` inside written `\"`), for messages.
  public static func quoted(_ text: some StringProtocol) -> String {
    let inner = escaped(text)
    guard WireText.contains(inner, byte: "\"") else { return "\"" + inner + "\"" }
    return "\"" + WireText.split(inner, at: "\"").joined(separator: "\\\"") + "\""
  }

  /// Whether a scalar is escaped before it reaches a terminal (wherever it stands, but for the
  /// two emoji exceptions, which `escaped` keeps in their place): a control (Cc), a format
  /// character (Cf), a line or paragraph separator (Zl, Zp), an unassigned (Cn) or private-use
  /// (Co) code point, or a default-ignorable code point.
  public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value < 0x20 || value == 0x7F { return true }
    if value < 0x7F { return false }
    if value < 0xA0 { return true }
    // Latin-1, Latin Extended and IPA: all assigned letters and symbols but the soft hyphen.
    if value < 0x300 { return value == 0xAD }
    // CJK ideographs and Hangul syllables: every one assigned, none format or ignorable.
    if (0x4E00...0x9FFF).contains(value) || (0xAC00...0xD7A3).contains(value) { return false }
    return isUnsafeByProperty(scalar)
  }

  /// `isUnsafe` from the Unicode properties alone (the quick ranges above must agree).
  package static func isUnsafeByProperty(_ scalar: Unicode.Scalar) -> Bool {
    let properties = scalar.properties
    if properties.isDefaultIgnorableCodePoint { return true }
    switch properties.generalCategory {
    case .control, .format, .unassigned, .privateUse, .surrogate, .lineSeparator,
      .paragraphSeparator:
      return true
    default:
      return false
    }
  }

  /// Whether UTF-8 `bytes` may hold an unsafe character: `false` means certainly safe, so a fast
  /// path can copy them as they are. Only printable ASCII and the two-byte characters
  /// U+00C0–U+02FF (lead bytes 0xC3–0xCB: Latin letters and IPA, none unsafe) are certainly
  /// safe; any other byte from 0x80 up sends the text to the escaper.
  @inline(__always)
  public static func mayNeedEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    // Eight bytes at a time (`ByteWord`): a word whose bytes are all printable ASCII
    // (0x20–0x7E) is safe.
    let count = bytes.count
    var index = 0
    if let base = bytes.baseAddress {
      let raw = UnsafeRawPointer(base)
      while index + 8 <= count {
        let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        let marks = ByteWord.below(0x20, word) | ByteWord.atLeastDelete(word)
        if marks & ByteWord.highs != 0 { break }
        index += 8
      }
    }
    while index < count {
      switch bytes[index] {
      case 0..<0x20, 0x7F, 0xC0...0xC2, 0xCC...0xFF: return true
      default: index += 1
      }
    }
    return false
  }
}
