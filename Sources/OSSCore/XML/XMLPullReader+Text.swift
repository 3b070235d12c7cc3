import StorageCore

extension XMLPullReader {
  /// Calls `body` with the text content of the element just returned (entities, character
  /// references and CDATA decoded, line ends normalised, comments dropped) and the offset where
  /// it starts, then consumes the end tag. An element inside is an error.
  ///
  /// The bytes are the document's own when nothing needed decoding; they are not yet checked
  /// to be UTF-8 (the typed readers below check).
  package mutating func withText<T>(
    _ body: (UnsafeBufferPointer<UInt8>, Int) throws(Failure) -> T
  ) throws(Failure) -> T {
    let start = position
    let element = open.last
    let isOpen = try beginContent()
    do throws(Failure) {
      return try readText(isOpen: isOpen, start: start, body)
    } catch {
      var failure = error
      // Failures of `body` and of references do not know where they are: in this element.
      if failure.path.isEmpty, let element {
        let parents = open.last == element ? Array(open.dropLast()) : open
        failure.path = (parents + [element]).map(text).joined(separator: "/")
      }
      throw failure
    }
  }

  private mutating func readText<T>(
    isOpen: Bool, start: Int, _ body: (UnsafeBufferPointer<UInt8>, Int) throws(Failure) -> T
  ) throws(Failure) -> T {
    guard isOpen else { return try body(UnsafeBufferPointer(rebasing: input[0..<0]), start) }
    // The common case: plain text up to the end tag, used where it lies.
    position = plainTextEnd(from: position)
    guard position < input.count else { throw endedInside() }
    if matches("</") {
      let text = UnsafeBufferPointer(rebasing: input[start..<position])
      try readEndTag()
      return try body(text, start)
    }
    scratch.removeAll(keepingCapacity: true)
    var run = start
    while true {
      // Runs of plain text are copied whole.
      position = plainTextEnd(from: position)
      if position > run {
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[run..<position]))
      }
      guard position < input.count else { throw endedInside() }
      let byte = input[position]
      if byte == UInt8(ascii: "&") {
        Self.appendUTF8(try readReference(), to: &scratch)
      } else if byte == 0x0D {
        scratch.append(0x0A)
        position += 1
        if position < input.count, input[position] == 0x0A { position += 1 }
      } else if byte != UInt8(ascii: "<") {
        throw controlCharacter(byte)
      } else if matches("</") {
        try readEndTag()
        return try scratch.withUnsafeBufferPointer { (text) throws(Failure) in
          try body(text, start)
        }
      } else if matches("<![CDATA[") {
        position += 9
        let contentStart = position
        try skipPast("]]>", what: "a CDATA section")
        for byte in input[contentStart..<position - 3] {
          guard byte >= 0x20 || Self.isSpace(byte) else { throw controlCharacter(byte) }
          scratch.append(byte)
        }
      } else if matches("<!--") {
        try skipComment()
      } else if matches("<?") {
        try skipProcessingInstruction()
      } else {
        throw failure("an element where text was expected")
      }
      run = position
    }
  }

  /// The text content turned into a value by `parse`; when it returns `nil`, a failure at the
  /// text whose reason `problem` words (given the text).
  package mutating func readValue<T>(
    _ parse: (UnsafeBufferPointer<UInt8>) -> T?, problem: (UnsafeBufferPointer<UInt8>) -> String
  ) throws(Failure) -> T {
    try withText { (bytes, offset) throws(Failure) in
      guard let value = parse(bytes) else {
        throw Failure(offset: offset, reason: problem(bytes))
      }
      return value
    }
  }

  /// The text content as a string.
  package mutating func readString() throws(Failure) -> String {
    try readValue(Self.string, problem: Self.notUTF8)
  }

  /// The text content as a string, without the double quotes around it if there are (an
  /// ETag).
  package mutating func readUnquotedString() throws(Failure) -> String {
    try readValue(Self.unquotedString, problem: Self.notUTF8)
  }

  /// The text content decoded as `encoding-type=url` values are: strict `%XX` decoding (a `+`
  /// stays a `+`), UTF-8 after decoding.
  package mutating func readPercentEncoded() throws(Failure) -> String {
    try readValue(Self.percentDecoded, problem: Self.notPercentEncoded)
  }

  /// The text content as a non-negative decimal integer (surrounding whitespace allowed).
  package mutating func readCount() throws(Failure) -> Int64 {
    try readValue(Self.count, problem: Self.notACount)
  }

  /// The text content as `true` or `false`.
  package mutating func readBool() throws(Failure) -> Bool {
    try readValue(
      { bytes in
        switch Self.trimmed(bytes).map({ Array($0) }) {
        case Array("true".utf8)?: true
        case Array("false".utf8)?: false
        default: nil
        }
      }, problem: { "\(Self.quotedForMessage($0)) is not true or false" })
  }

  // The typed readers' parsers and their problems, which the simple-element reader
  // (`XMLPullReader+Simple.swift`) shares.

  @inline(__always)
  static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    UTF8Text.validating(bytes)
  }

  @inline(__always)
  static func unquotedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    UTF8Text.validating(OSSAnswers.unquoted(bytes: bytes))
  }

  /// `string` as `InlineText`: short ASCII (an ETag) made with no string.
  @inline(__always)
  static func inlineText(_ bytes: UnsafeBufferPointer<UInt8>) -> InlineText? {
    if bytes.count <= InlineText.inlineCapacity, UTF8Text.isASCII(bytes) {
      return InlineText(utf8: UnsafeRawBufferPointer(bytes))
    }
    return UTF8Text.validating(bytes).map(InlineText.init)
  }

  @inline(__always)
  static func unquotedInlineText(_ bytes: UnsafeBufferPointer<UInt8>) -> InlineText? {
    inlineText(OSSAnswers.unquoted(bytes: bytes))
  }

  static func notUTF8(_: UnsafeBufferPointer<UInt8>) -> String { "text that is not UTF-8" }

  @inline(__always)
  static func percentDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    PercentEncoding.decode(utf8: bytes)
  }

  static func notPercentEncoded(_: UnsafeBufferPointer<UInt8>) -> String {
    "text that is not valid percent-encoding of UTF-8 (encoding-type=url)"
  }

  @inline(__always)
  static func count(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    trimmed(bytes).flatMap { DecimalText.parse(bytes: UnsafeBufferPointer(rebasing: $0)) }
  }

  static func notACount(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    "\(quotedForMessage(bytes)) is not a number from 0 to \(Int64.max)"
  }

  /// Reads `&…;` at the current position: the character it stands for.
  mutating func readReference() throws(Failure) -> Unicode.Scalar {
    let start = position
    position += 1
    let nameStart = position
    while position < input.count, position - nameStart <= 10, input[position] != UInt8(ascii: ";") {
      position += 1
    }
    guard position < input.count, input[position] == UInt8(ascii: ";") else {
      throw Failure(offset: start, reason: "an \"&\" that starts no entity reference")
    }
    let name = UnsafeBufferPointer(rebasing: input[nameStart..<position])
    position += 1
    switch XMLName(name) {
    case "lt": return "<"
    case "gt": return ">"
    case "amp": return "&"
    case "quot": return "\""
    case "apos": return "'"
    default: break
    }
    let reference = String(decoding: name, as: UTF8.self)
    switch WireText.dropping(prefix: "#", from: reference) {
    case let digits?:
      let value =
        WireText.dropping(prefix: "x", from: digits).map { UInt32($0, radix: 16) }
        ?? UInt32(digits, radix: 10)
      guard let value, Self.isXMLCharacter(value), let scalar = Unicode.Scalar(value),
        !WireText.contains(digits, byte: "+"), !WireText.contains(digits, byte: "-")
      else {
        throw Failure(offset: start, reason: "&\(reference); is not a character XML allows")
      }
      return scalar
    case nil:
      throw Failure(offset: start, reason: "an unknown entity (only the five XML ones are read)")
    }
  }

  static func appendUTF8(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
    UTF8.encode(scalar) { output.append($0) }
  }

  /// Bytes of text that need no decoding: not `<`, `&`, CR or another control character.
  @inline(__always)
  static func isPlainTextByte(_ byte: UInt8) -> Bool {
    byte > 0x3C || (byte >= 0x20 && byte != 0x26 && byte != 0x3C) || byte == 0x0A || byte == 0x09
  }

  /// Where the run of plain text bytes (`isPlainTextByte`) that starts at `start` ends: eight
  /// bytes at a time while none of them is `<`, `&` or below 0x20, then byte by byte.
  @inline(__always)
  func plainTextEnd(from start: Int) -> Int {
    var at = start
    let end = input.count
    if let base = input.baseAddress {
      let bytes = UnsafeRawPointer(base)
      while at + 8 <= end {
        let word = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
        if Self.mayHoldMarkup(word) { break }
        at += 8
      }
    }
    while at < end, Self.isPlainTextByte(input[at]) { at += 1 }
    return at
  }

  /// Whether one of the eight bytes of `word` is `<`, `&` or below 0x20 (tab and line feed,
  /// which are plain text, included): the bit tricks for a zero byte and a byte below n.
  @inline(__always)
  package static func mayHoldMarkup(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let lessThanSpace = (word &- ones &* 0x20) & ~word
    let lessThanSign = word ^ (ones &* 0x3C)
    let ampersand = word ^ (ones &* 0x26)
    let zeroByte = ((lessThanSign &- ones) & ~lessThanSign) | ((ampersand &- ones) & ~ampersand)
    return (lessThanSpace | zeroByte) & highs != 0
  }

  static func isXMLCharacter(_ value: UInt32) -> Bool {
    value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
      || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
  }

  /// `bytes` without surrounding XML whitespace.
  static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>>? {
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
      let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return nil }
    return bytes[first...last]
  }

  /// Text for a message: at most 40 bytes, quoted and escaped.
  static func quotedForMessage(_ bytes: some Collection<UInt8>) -> String {
    DisplayText.quoted(String(decoding: bytes.prefix(40), as: UTF8.self))
  }
}
