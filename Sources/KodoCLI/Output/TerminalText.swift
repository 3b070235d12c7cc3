import StorageCore

/// Human text being built as UTF-8 bytes for a terminal: the byte form of `DisplayText`.
///
/// Nothing can be appended but `DisplayText`, the program's own static text, numbers, spaces and
/// newlines, and untrusted text through the escaper (`append(escaping:)`, `append(name:)`), so a
/// human renderer cannot write an unescaped key even by mistake. Untrusted text that needs no
/// escaping (nearly all of it) is copied as bytes, with no `String` made per row: a listing
/// writes a million rows through here.
///
/// Machine formats (JSON Lines, `-0` keys) and `cat` bodies are bytes of their own and never go
/// through this type.
struct TerminalText {
  /// The text so far; read-only outside this type.
  private(set) var bytes: [UInt8] = []

  init() {}

  var isEmpty: Bool { bytes.isEmpty }

  /// Empties the text, keeping its storage.
  mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

  /// Safe text.
  mutating func append(_ text: DisplayText) { bytes.append(contentsOf: text.text.utf8) }

  /// Safe text that was built earlier.
  mutating func append(_ text: TerminalText) { bytes.append(contentsOf: text.bytes) }

  /// The program's own text (a label, a terminal style).
  mutating func appendLiteral(_ literal: StaticString) {
    literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// A number in decimal, zero-padded to at least `minimumDigits` digits.
  mutating func append(decimal value: Int64, minimumDigits: Int = 1) {
    DecimalText.append(value, minimumDigits: minimumDigits, to: &bytes)
  }

  mutating func appendSpaces(_ count: Int) {
    if count > 0 { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count)) }
  }

  mutating func appendNewline() { bytes.append(UInt8(ascii: "\n")) }

  /// Untrusted text, escaped (`DisplayText(escaping:)`); copied as it is when nothing needs
  /// escaping.
  mutating func append(escaping untrusted: Substring) {
    let copied = untrusted.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
      guard !DisplayText.mayNeedEscaping(utf8) else { return false }
      bytes.append(contentsOf: utf8)
      return true
    }
    if copied != true { append(DisplayText(escaping: untrusted)) }
  }

  /// Untrusted text, escaped (`DisplayText(escaping:)`).
  mutating func append(escaping untrusted: String) { append(escaping: Substring(untrusted)) }

  /// A key or a file name: escaped, and in double quotes when it is empty or has leading or
  /// trailing spaces, so that the spaces can be seen (`DisplayText(name:)`).
  mutating func append(name: Substring) {
    if let first = name.utf8.first, let last = name.utf8.last, first != UInt8(ascii: " "),
      last != UInt8(ascii: " ")
    {
      append(escaping: name)
    } else {
      append(DisplayText(quoting: name))
    }
  }
}

@available(*, unavailable)
extension TerminalText: Sendable {}

extension DisplayText {
  /// A key or a file name: escaped, and in double quotes when it is empty or has leading or
  /// trailing spaces, so that the spaces can be seen.
  init(name: Substring) {
    if let first = name.utf8.first, let last = name.utf8.last, first != UInt8(ascii: " "),
      last != UInt8(ascii: " ")
    {
      self = DisplayText(escaping: name)
    } else {
      self = DisplayText(quoting: name)
    }
  }

  /// A key or a file name (see `init(name: Substring)`).
  init(name: String) { self.init(name: Substring(name)) }
}
