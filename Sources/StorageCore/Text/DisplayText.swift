/// Text that is safe to show on a terminal: untrusted text (keys, server messages, names from a
/// config file) can become one only through the escaper, and the command line's human renderers
/// accept nothing else.
///
/// The escaper writes control characters, DEL, C1 controls, the Unicode line and paragraph
/// separators, bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and
/// invisible characters (U+200B, U+2060, U+FEFF) as escapes (`\n`, `\t`, `\u{1B}`, `\u{202E}`),
/// so a key can never move the cursor, forge an output line, reorder what follows it or hide a
/// character. Backslashes are kept as they are, so escaping escaped text changes nothing.
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
    var needsEscape = false
    for scalar in text.unicodeScalars where isUnsafe(scalar) {
      needsEscape = true
      break
    }
    if !needsEscape { return String(text) }
    var output = ""
    for scalar in text.unicodeScalars {
      if !isUnsafe(scalar) {
        output.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      default: output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
    return output
  }

  /// Untrusted text escaped and in double quotes (see `quoted`).
  public init(quoting untrusted: some StringProtocol) {
    self.init(safe: Self.quoted(untrusted))
  }

  /// The text escaped and in double quotes (a `"` inside written `\"`), for messages.
  public static func quoted(_ text: some StringProtocol) -> String {
    var inner = escaped(text)
    if inner.contains("\"") {
      var replaced = ""
      for character in inner {
        if character == "\"" { replaced += "\\\"" } else { replaced.append(character) }
      }
      inner = replaced
    }
    return "\"" + inner + "\""
  }

  /// Whether a scalar must be escaped before reaching a terminal.
  public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value < 0x20 || value == 0x7F { return true }
    if value < 0x80 { return false }
    switch value {
    case 0x80...0x9F, 0x061C, 0x200B, 0x200E, 0x200F, 0x2028...0x202E, 0x2060, 0x2066...0x2069,
      0xFEFF:
      return true
    default:
      return false
    }
  }

  /// Whether UTF-8 `bytes` may hold an unsafe character: `false` means certainly safe, so a fast
  /// path can copy them as they are. (Every unsafe character is below 0x20, DEL, or starts with
  /// 0xC2, 0xD8, 0xE2 or 0xEF.)
  @inline(__always)
  public static func mayNeedEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    // Eight bytes at a time: a word whose bytes are all printable ASCII (0x20–0x7E) is safe.
    // `(w - 0x20…) & ~w & 0x80…` finds a byte below 0x20; `(w + 0x01…) | w` sets the top bit of
    // a byte of 0x7F or more.
    let count = bytes.count
    var index = 0
    if let base = bytes.baseAddress {
      let raw = UnsafeRawPointer(base)
      while index + 8 <= count {
        let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        let low = (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080
        let high = ((word &+ 0x0101_0101_0101_0101) | word) & 0x8080_8080_8080_8080
        if low | high != 0 { break }
        index += 8
      }
    }
    while index < count {
      switch bytes[index] {
      case 0..<0x20, 0x7F, 0xC2, 0xD8, 0xE2, 0xEF: return true
      default: index += 1
      }
    }
    return false
  }
}
