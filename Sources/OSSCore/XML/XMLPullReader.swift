import Foundation
import StorageCore

/// A strict, streaming pull parser for the XML that OSS writes: a prolog, one root element,
/// nested elements with text, attributes (read past), comments, processing instructions, CDATA,
/// the five predefined entities and character references.
///
/// Not a DOM: the decoders walk the elements they know and the reader skips the rest, checking
/// that it is well-formed; text is turned into values straight from the document's bytes. What
/// OSS never sends and a hostile answer could abuse is refused: a DOCTYPE (no DTDs, no entity
/// expansion), an encoding other than UTF-8, nesting deeper than `maximumDepth`, a document
/// larger than `maximumBytes`. Every failure says what and at which byte.
package struct XMLPullReader {
  /// Why a document cannot be read, and where.
  package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset in the document.
    package var offset: Int
    /// What is wrong, in words.
    package var reason: String
    /// The elements it is in, outermost first (`ListBucketResult/Contents/Size`), when known.
    package var path: String

    package init(offset: Int, reason: String, path: String = "") {
      self.offset = offset
      self.reason = reason
      self.path = path
    }

    /// `path: reason`.
    package var description: String { path.isEmpty ? reason : path + ": " + reason }
  }

  /// The largest document read (16 MiB; a full ListObjects page of 1000 long, fully escaped
  /// keys is under 8 MiB).
  package static let maximumBytes = 16 << 20
  /// The deepest nesting read (OSS's answers nest 4 levels).
  package static let maximumDepth = 32

  let input: UnsafeBufferPointer<UInt8>
  /// The next byte to read.
  package internal(set) var position = 0
  // Name ranges of the open elements, innermost last.
  private(set) var open: [Range<Int>] = []
  // Whether the element last returned has not been read yet (its start tag is consumed).
  private(set) var pending = false
  // Whether that element was `<empty/>`.
  private var pendingIsEmpty = false
  /// Scratch space for text that needs decoding (entities, CDATA, line ends), reused.
  var scratch: [UInt8] = []

  private init(_ input: UnsafeBufferPointer<UInt8>) {
    self.input = input
    open.reserveCapacity(8)
  }

  /// Reads the document in `bytes`: `body` gets the root element's name with the reader placed
  /// inside it, and reads it (`readChildren`, `readText` or `skipElement`; what it leaves unread
  /// is skipped).
  package static func read<T>(
    _ bytes: [UInt8], _ body: (inout XMLPullReader, XMLName) throws(Failure) -> T
  ) throws(Failure) -> T {
    guard bytes.count <= maximumBytes else {
      throw Failure(offset: 0, reason: "the document is larger than \(maximumBytes >> 20) MiB")
    }
    let outcome: Result<T, Failure> = bytes.withUnsafeBufferPointer { buffer in
      var reader = XMLPullReader(buffer)
      do throws(Failure) {
        try reader.readProlog()
        guard reader.position < buffer.count else {
          throw Failure(offset: reader.position, reason: "the document has no root element")
        }
        let root = try reader.readStartTag()
        let value = try body(&reader, root)
        if reader.pending { try reader.skipElement() }
        try reader.readEpilogue()
        return .success(value)
      } catch {
        return .failure(error)
      }
    }
    return try outcome.get()
  }

  /// A failure at the current position, in the elements open there.
  package func failure(_ reason: String) -> Failure {
    Failure(offset: position, reason: reason, path: path())
  }

  /// The names of the open elements, joined by `/`.
  func path() -> String {
    open.map(text).joined(separator: "/")
  }

  // MARK: Elements

  /// Calls `body` for each child element of the element just returned, with the reader placed
  /// inside the child; what `body` leaves unread is skipped. Text between children must be
  /// whitespace. Consumes the element's end tag.
  package mutating func readChildren(
    _ body: (inout XMLPullReader, XMLName) throws(Failure) -> Void
  ) throws(Failure) {
    guard try beginContent() else { return }
    while let name = try nextChild() {
      try body(&self, name)
    }
  }

  /// The next child element of the element being read (the reader is placed inside it), or
  /// `nil` once the element's end tag is consumed; what was left unread of the previous child
  /// is skipped first. Text between children must be whitespace. The loop `readChildren` runs,
  /// for decoders that read their children without a closure.
  package mutating func nextChild() throws(Failure) -> XMLName? {
    if pending { try skipElement() }
    try skipMarkupAndWhitespace(textAllowed: false)
    guard position + 1 < input.count else { throw endedInside() }
    if input[position + 1] == UInt8(ascii: "/") {
      try readEndTag()
      return nil
    }
    return try readStartTag()
  }

  /// Reads past the element just returned, whatever it contains, checking that it is
  /// well-formed.
  package mutating func skipElement() throws(Failure) {
    guard try beginContent() else { return }
    let depth = open.count
    while open.count >= depth {
      try skipMarkupAndWhitespace(textAllowed: true)
      guard position + 1 < input.count else { throw endedInside() }
      if input[position + 1] == UInt8(ascii: "/") {
        try readEndTag()
      } else {
        _ = try readStartTag()
        pending = false
        if pendingIsEmpty { open.removeLast() }
      }
    }
  }

  /// Marks the element just returned as read; `false` when it was empty (`<a/>`), else the
  /// reader is inside it.
  mutating func beginContent() throws(Failure) -> Bool {
    guard pending else { throw failure("internal: no element to read") }
    pending = false
    if pendingIsEmpty {
      open.removeLast()
      return false
    }
    return true
  }

  /// Reads `<name attributes>` or `<name attributes/>` at the current position (which must be
  /// `<`); the element becomes the one just returned.
  mutating func readStartTag() throws(Failure) -> XMLName {
    let start = position
    position += 1
    let name = try readName()
    while true {
      let hadSpace = skipWhitespace()
      guard position < input.count else { throw endedInside(tag: start) }
      switch input[position] {
      case UInt8(ascii: ">"):
        position += 1
        pendingIsEmpty = false
      case UInt8(ascii: "/"):
        guard position + 1 < input.count, input[position + 1] == UInt8(ascii: ">") else {
          throw failure("a start tag has a stray \"/\"")
        }
        position += 2
        pendingIsEmpty = true
      default:
        guard hadSpace else { throw failure("a start tag has no space before an attribute") }
        try skipAttribute()
        continue
      }
      break
    }
    guard open.count < Self.maximumDepth else {
      throw Failure(
        offset: start, reason: "elements nest deeper than \(Self.maximumDepth) levels",
        path: path())
    }
    open.append(name)
    pending = true
    return XMLName(UnsafeBufferPointer(rebasing: input[name]))
  }

  /// Reads `</name>` (the current position is at `<`) and closes the innermost element, which
  /// must have that name.
  mutating func readEndTag() throws(Failure) {
    let start = position
    position += 2
    let name = try readName()
    _ = skipWhitespace()
    guard position < input.count, input[position] == UInt8(ascii: ">") else {
      throw failure("an end tag is not closed by \">\"")
    }
    position += 1
    guard let innermost = open.last else {
      throw Failure(offset: start, reason: "an end tag closes no element")
    }
    guard input[name].elementsEqual(input[innermost]) else {
      throw Failure(
        offset: start,
        reason: "the end tag </\(text(name))> does not match the start tag <\(text(innermost))>",
        path: path())
    }
    open.removeLast()
  }

  private mutating func readName() throws(Failure) -> Range<Int> {
    let start = position
    while position < input.count, Self.isNameByte(input[position]) { position += 1 }
    guard position > start, !Self.isDigitOrDashOrDot(input[start]) else {
      throw Failure(offset: start, reason: "a tag has no valid name")
    }
    return start..<position
  }

  private mutating func skipAttribute() throws(Failure) {
    _ = try readName()
    _ = skipWhitespace()
    guard position < input.count, input[position] == UInt8(ascii: "=") else {
      throw failure("an attribute has no \"=\"")
    }
    position += 1
    _ = skipWhitespace()
    guard position < input.count,
      input[position] == UInt8(ascii: "\"") || input[position] == UInt8(ascii: "'")
    else { throw failure("an attribute value is not quoted") }
    let quote = input[position]
    position += 1
    while position < input.count, input[position] != quote {
      guard input[position] != UInt8(ascii: "<") else {
        throw failure("an attribute value contains \"<\"")
      }
      position += 1
    }
    guard position < input.count else { throw failure("an attribute value is not closed") }
    position += 1
  }

  // MARK: Outside elements

  private mutating func readProlog() throws(Failure) {
    if input.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    if matches("<?xml") && position + 5 < input.count && Self.isSpace(input[position + 5]) {
      let start = position
      try skipPast("?>", what: "the XML declaration")
      let declaration = WireText.asciiLowercased(
        String(decoding: input[start..<position], as: UTF8.self))
      if let range = WireText.range(of: "encoding", in: declaration) {
        let rest = declaration.utf8[range.upperBound...].drop {
          $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "=")
        }
        guard rest.dropFirst().starts(with: "utf-8".utf8) else {
          throw Failure(offset: start, reason: "the document is not in UTF-8")
        }
      }
    }
    try skipMarkupAndWhitespace(textAllowed: false)
  }

  private mutating func readEpilogue() throws(Failure) {
    try skipMarkupAndWhitespace(textAllowed: false)
    guard position == input.count else { throw failure("there is content after the root element") }
  }

  /// Skips whitespace, comments and processing instructions (and, with `textAllowed`, any text,
  /// CDATA and entity references, which are checked) up to the next tag or the end.
  mutating func skipMarkupAndWhitespace(textAllowed: Bool) throws(Failure) {
    while position < input.count {
      let byte = input[position]
      if byte == UInt8(ascii: "<") {
        if matches("<!--") {
          try skipComment()
        } else if matches("<?") {
          try skipProcessingInstruction()
        } else if matches("<![CDATA[") {
          guard textAllowed else { throw failure("text (CDATA) where only elements may be") }
          try skipPast("]]>", what: "a CDATA section")
        } else if matches("<!") {
          throw failure("a DOCTYPE or other declaration (not accepted)")
        } else {
          return
        }
      } else if Self.isSpace(byte) {
        position += 1
      } else {
        guard textAllowed else { throw failure("text where only elements may be") }
        try skipText()
      }
    }
  }

  private mutating func skipText() throws(Failure) {
    while position < input.count, input[position] != UInt8(ascii: "<") {
      let byte = input[position]
      if byte == UInt8(ascii: "&") {
        _ = try readReference()
      } else {
        guard byte >= 0x20 || Self.isSpace(byte) else { throw controlCharacter(byte) }
        position += 1
      }
    }
  }

  mutating func skipComment() throws(Failure) {
    position += 4
    while position + 2 < input.count {
      if input[position] == UInt8(ascii: "-") && input[position + 1] == UInt8(ascii: "-") {
        guard input[position + 2] == UInt8(ascii: ">") else {
          throw failure("a comment contains \"--\"")
        }
        position += 3
        return
      }
      position += 1
    }
    throw failure("a comment is not closed")
  }

  mutating func skipProcessingInstruction() throws(Failure) {
    let start = position
    position += 2
    let target = try readName()
    guard String(decoding: input[target], as: UTF8.self).lowercased() != "xml" else {
      throw Failure(offset: start, reason: "an XML declaration that is not at the start")
    }
    try skipPast("?>", what: "a processing instruction")
  }

  /// Moves past the next `terminator`.
  mutating func skipPast(_ terminator: StaticString, what: String) throws(Failure) {
    let count = terminator.utf8CodeUnitCount
    let first = terminator.utf8Start.pointee
    while position + count <= input.count {
      if input[position] == first && matches(terminator) {
        position += count
        return
      }
      position += 1
    }
    throw failure("\(what) is not closed")
  }

  /// Whether the input at the current position starts with `literal`.
  func matches(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard position + count <= input.count else { return false }
    for index in 0..<count where input[position + index] != literal.utf8Start[index] {
      return false
    }
    return true
  }

  /// Skips XML whitespace; returns whether there was any.
  mutating func skipWhitespace() -> Bool {
    let start = position
    while position < input.count, Self.isSpace(input[position]) { position += 1 }
    return position > start
  }

  func endedInside(tag: Int? = nil) -> Failure {
    if tag != nil { return failure("the document ends inside a tag") }
    guard let innermost = open.last else { return failure("the document ends early") }
    return failure("the document ends inside <\(text(innermost))>")
  }

  func controlCharacter(_ byte: UInt8) -> Failure {
    failure("a control character (0x\(String(byte, radix: 16))) in text")
  }

  /// A name for a message, escaped.
  func text(_ range: Range<Int>) -> String {
    String(decoding: input[range].prefix(64), as: UTF8.self).unicodeScalars
      .map { $0.isASCII && $0.value >= 0x20 ? String($0) : "?" }.joined()
  }

  @inline(__always)
  static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
  }

  @inline(__always)
  static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: ":"),
      UInt8(ascii: "-"), UInt8(ascii: "."), 0x80...0xFF:
      true
    default: false
    }
  }

  @inline(__always)
  static func isDigitOrDashOrDot(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
      || byte == UInt8(ascii: ".")
  }
}

/// An element's name, as the document spells it; compare it with a literal in a `switch`.
package struct XMLName {
  let bytes: UnsafeBufferPointer<UInt8>

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// The name as text.
  package var string: String { String(decoding: bytes, as: UTF8.self) }

  /// Whether the name is `pattern`.
  package static func == (name: XMLName, pattern: StaticString) -> Bool {
    pattern ~= name
  }

  /// Whether the name is `pattern` (for `switch`).
  package static func ~= (pattern: StaticString, name: XMLName) -> Bool {
    let count = pattern.utf8CodeUnitCount
    guard name.bytes.count == count, let base = name.bytes.baseAddress else { return count == 0 }
    return memcmp(base, pattern.utf8Start, count) == 0
  }
}
