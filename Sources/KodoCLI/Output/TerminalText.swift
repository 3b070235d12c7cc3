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
    Self.withEscaped(untrusted) { bytes.append(contentsOf: $0.bytes) }
  }

  /// Untrusted text, escaped (`DisplayText(escaping:)`).
  mutating func append(escaping untrusted: String) { append(escaping: Substring(untrusted)) }

  /// A key or a file name: escaped, and in double quotes when it is empty or has leading or
  /// trailing spaces, so that the spaces can be seen (`DisplayText(name:)`).
  mutating func append(name: Substring) {
    Self.withName(name) { bytes.append(contentsOf: $0.bytes) }
  }

  /// Runs `body` on text that appends to `buffer` in place: the buffer is moved into the text and
  /// back, never copied (a listing writes a million rows into the output's buffer).
  static func append(to buffer: inout [UInt8], _ body: (inout TerminalText) -> Void) {
    var text = TerminalText()
    swap(&text.bytes, &buffer)
    body(&text)
    swap(&text.bytes, &buffer)
  }

  /// Appends one row that `body` writes through a `TerminalRow` into `room` bytes reserved at
  /// once: a listing row costs one capacity check, not one a piece.
  @inline(__always)
  mutating func row(room: Int, _ body: (inout TerminalRow) -> Void) {
    bytes.appendBytes(upTo: room) { out in
      var row = TerminalRow(out: out, capacity: room)
      body(&row)
      return row.count
    }
  }

  // MARK: - Escaped bytes

  /// The bytes the escaper writes for a piece of untrusted text: its own UTF-8, borrowed, when
  /// nothing needs escaping, else the escaper's text. Only `withEscaped` and `withName` make one.
  struct Escaped {
    let bytes: UnsafeBufferPointer<UInt8>

    fileprivate init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// How many characters the text takes (`DisplayText.text.count`), for padding.
    var characterCount: Int {
      var index = 0
      while index < bytes.count, bytes[index] < 0x80 { index += 1 }
      return index == bytes.count ? index : String(decoding: bytes, as: UTF8.self).count
    }
  }

  /// Calls `body` with what `append(escaping:)` appends for `untrusted` (`DisplayText(escaping:)`),
  /// without a copy when nothing needs escaping.
  @inline(__always)
  static func withEscaped<Result>(_ untrusted: Substring, _ body: (Escaped) -> Result) -> Result {
    let borrowed = untrusted.utf8.withContiguousStorageIfAvailable { utf8 -> Result? in
      DisplayText.mayNeedEscaping(utf8) ? nil : body(Escaped(utf8))
    }
    if case .some(.some(let result)) = borrowed { return result }
    return withSafe(DisplayText(escaping: untrusted), body)
  }

  /// Calls `body` with what `append(escaping:)` appends for `untrusted`'s text, borrowing the
  /// bytes of an inline text (a listing's digest) instead of making a `String` of them.
  @inline(__always)
  static func withEscaped<Result>(_ untrusted: InlineText, _ body: (Escaped) -> Result) -> Result {
    untrusted.withUTF8 { utf8 in
      DisplayText.mayNeedEscaping(utf8)
        ? withSafe(DisplayText(escaping: Substring(untrusted.string)), body) : body(Escaped(utf8))
    }
  }

  /// Calls `body` with what `append(name:)` appends for `name` (`DisplayText(name:)`).
  @inline(__always)
  static func withName<Result>(_ name: Substring, _ body: (Escaped) -> Result) -> Result {
    if let first = name.utf8.first, let last = name.utf8.last, first != UInt8(ascii: " "),
      last != UInt8(ascii: " ")
    {
      return withEscaped(name, body)
    }
    return withSafe(DisplayText(quoting: name), body)
  }

  /// Calls `body` with safe text's bytes.
  static func withSafe<Result>(_ text: DisplayText, _ body: (Escaped) -> Result) -> Result {
    var text = text.text
    return text.withUTF8 { body(Escaped($0)) }
  }
}

/// One row of human text written at a raw pointer into room reserved for it at once
/// (`TerminalText.row(room:_:)`), in the style of `JSONMembers`: what it accepts is what
/// `TerminalText` accepts (escaped text, safe text, the program's literals, numbers, spaces).
///
/// Each piece first checks that it fits in the room left, and traps rather than write past it.
struct TerminalRow {
  private let out: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  /// The bytes written.
  private(set) var count = 0

  fileprivate init(out: UnsafeMutablePointer<UInt8>, capacity: Int) {
    self.out = out
    self.capacity = capacity
  }

  @inline(__always)
  private func ensureRoom(_ needed: Int) {
    precondition(needed >= 0 && count + needed <= capacity, "TerminalRow: no room")
  }

  /// Escaped untrusted text (`TerminalText.withEscaped`, `withName`).
  @inline(__always)
  mutating func append(_ escaped: TerminalText.Escaped) {
    ensureRoom(escaped.bytes.count)
    count += (out + count).write(escaped.bytes)
  }

  /// Safe text.
  mutating func append(_ text: DisplayText) {
    TerminalText.withSafe(text) { append($0) }
  }

  /// The program's own text.
  @inline(__always)
  mutating func appendLiteral(_ literal: StaticString) {
    ensureRoom(literal.utf8CodeUnitCount)
    count += (out + count).write(literal)
  }

  @inline(__always)
  mutating func appendSpaces(_ spaces: Int) {
    guard spaces > 0 else { return }
    ensureRoom(spaces)
    (out + count).initialize(repeating: UInt8(ascii: " "), count: spaces)
    count += spaces
  }

  /// A number in decimal, zero-padded to at least `minimumDigits` digits.
  @inline(__always)
  mutating func append(decimal value: Int64, minimumDigits: Int = 1) {
    ensureRoom(DecimalText.maximumLength(minimumDigits: minimumDigits))
    count += DecimalText.write(value, minimumDigits: minimumDigits, to: out + count)
  }

  /// A number in decimal after spaces up to `width` characters (right-aligned).
  @inline(__always)
  mutating func append(decimal value: Int64, rightAlignedIn width: Int) {
    ensureRoom(max(width, DecimalText.maximumLength()))
    let start = out + count
    let length = DecimalText.write(value, to: start)
    let spaces = width - length
    if spaces > 0 {
      (start + spaces).moveInitialize(from: start, count: length)
      start.initialize(repeating: UInt8(ascii: " "), count: spaces)
      count += spaces
    }
    count += length
  }

  /// A number in at least two digits (`append(decimal:minimumDigits: 2)`), below 100 without
  /// the general digit loop (a time's fields).
  @inline(__always)
  mutating func append(twoDigits value: Int) {
    guard (0..<100).contains(value) else {
      return append(decimal: Int64(value), minimumDigits: 2)
    }
    ensureRoom(2)
    out[count] = UInt8(truncatingIfNeeded: value / 10) &+ UInt8(ascii: "0")
    out[count + 1] = UInt8(truncatingIfNeeded: value % 10) &+ UInt8(ascii: "0")
    count += 2
  }

  mutating func appendNewline() { appendLiteral("\n") }
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
