import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

/// `InlineText`, the inline form of a listing's digests: it gives back exactly the text it was
/// made from, however it was made, takes one form for one text, and compares and hashes as
/// `String` does.
@Suite("Inline text")
struct InlineTextTests {
  /// Text of every kind a service may send: ASCII of every length from 0 to 64 (printable, with
  /// JSON's special characters and control characters), digests of the usual lengths, and
  /// arbitrary Unicode.
  static let anyText = fuzzInput { random -> String in
    switch random.int(0...4) {
    case 0:
      let alphabet = Array("0123456789abcdefABCDEF-_")
      let length = [0, 1, 27, 28, 31, 32, 33].randomElement(using: &random) ?? 28
      return String((0..<length).map { _ in alphabet.randomElement(using: &random) ?? "a" })
    case 1, 2:
      let length = random.int(0...64)
      let awkward = random.chance(20)
      return String(
        decoding: (0..<length).map { _ in
          awkward && random.chance(15)
            ? [0x00, 0x09, 0x0A, 0x1F, 0x22, 0x5C, 0x7F].randomElement(using: &random) ?? 0
            : UInt8(random.int(0x20...0x7E))
        }, as: UTF8.self)
    case 3:
      return String((0..<random.int(0...40)).map { _ in anyCharacter(&random) })
    default:
      // Mostly ASCII with one character that is not.
      var text = Array("0123456789abcdef0123456789abcdef".prefix(random.int(0...40)))
      text.insert(anyCharacter(&random), at: random.int(0...text.count))
      return String(text)
    }
  }

  static func anyCharacter(_ random: inout some RandomNumberGenerator) -> Character {
    let scalars: [Unicode.Scalar] = [
      "\u{E9}", "\u{301}", "\u{212A}", "\u{37E}", "\u{2028}", "\u{1F600}", "\u{FFFD}", "\u{80}",
    ]
    if random.chance(50), let scalar = scalars.randomElement(using: &random) {
      return Character(scalar)
    }
    return Character(Unicode.Scalar(UInt32(random.int(0x80...0xD7FF))) ?? "\u{FFFD}")
  }

  /// The text inline exactly when it is ASCII of at most 32 bytes.
  static func fitsInline(_ text: String) -> Bool {
    text.utf8.count <= InlineText.inlineCapacity && text.utf8.allSatisfy { $0 < 0x80 }
  }

  @Test func everyWayOfMakingOneGivesBackItsBytesInOneForm() async {
    await seededCheck(count: fuzzCount(1000), input: Self.anyText) { text in
      let made = InlineText(text)
      let bytes = Array(text.utf8)
      #expect(Array(made.string.utf8) == bytes, "\(text.debugDescription)")
      #expect(made.withUTF8 { Array($0) } == bytes)
      #expect(made.utf8Count == bytes.count)
      #expect(made.isInline == Self.fitsInline(text), "\(text.debugDescription)")
      #expect(made.description == text)
      let fromBytes = bytes.withUnsafeBytes { InlineText(utf8: $0) }
      #expect(fromBytes.isInline == made.isInline)
      #expect(Array(fromBytes.string.utf8) == bytes)
      if made.isInline {
        // Loaded from within a larger buffer, at its end (fewer than 32 bytes after the start)
        // and with room to spare.
        for padding in [0, 40] {
          let buffer = [0xFF, 0x22] + bytes + Array(repeating: 0xEE, count: padding)
          let loaded = buffer.withUnsafeBytes {
            InlineText(ascii: $0, from: 2, count: bytes.count)
          }
          #expect(loaded.withUTF8 { Array($0) } == bytes)
          #expect(loaded == made)
        }
      }
    }
  }

  /// The JSON reader's `readInlineText` reads what `readString` reads, in the same form as
  /// `InlineText(_:)` makes.
  @Test func theJSONReaderReadsWhatReadStringReads() async throws {
    await seededCheck(count: fuzzCount(1000), input: Self.anyText) { text in
      var json: [UInt8] = []
      JSONText.appendString(text, to: &json)
      for padding in [0, 40] {
        let input = json + Array(repeating: UInt8(ascii: " "), count: padding)
        var reader = JSONReader(input)
        var strings = JSONReader(input)
        let read = try reader.readInlineText()
        #expect(Array(read.string.utf8) == Array(try strings.readString().utf8))
        #expect(read.isInline == InlineText(text).isInline, "\(text.debugDescription)")
        #expect(reader.index == strings.index)
      }
    }
    var reader = JSONReader(Array(#"[null,"abc",1,"a\u0001"]"#.utf8))
    var read: [InlineText?] = []
    try reader.readArray { (reader) throws(JSONReader.Failure) in
      if read.count == 2 {
        #expect(throws: JSONReader.Failure.self) { try reader.readInlineText() }
        try reader.skipValue()
        read.append(nil)
      } else {
        read.append(try reader.readOptionalInlineText())
      }
    }
    #expect(read == [nil, InlineText("abc"), nil, InlineText("a\u{1}")])
    var control = JSONReader(Array("\"a\u{1}\"".utf8))
    #expect(throws: JSONReader.Failure.self) { try control.readInlineText() }
  }

  @Test func equalityAndHashingAreStrings() async {
    await seededCheck(count: fuzzCount(1000), input: Self.anyText, Self.anyText) { a, b in
      for (x, y) in [(a, b), (a, a), (b, a)] {
        #expect(
          (InlineText(x) == InlineText(y)) == (x == y),
          "\(x.debugDescription) \(y.debugDescription)")
        if x == y { #expect(InlineText(x).hashValue == InlineText(y).hashValue) }
      }
    }
    // Canonically equivalent texts: one of each pair is ASCII (inline), the other is not.
    for (ascii, other) in [("K", "\u{212A}"), (";", "\u{37E}"), ("x;K", "x\u{37E}\u{212A}")] {
      #expect(ascii == other)
      #expect(InlineText(ascii) == InlineText(other))
      #expect(InlineText(ascii).hashValue == InlineText(other).hashValue)
    }
    #expect(InlineText("e\u{301}") == InlineText("\u{E9}"))
    #expect(InlineText("") == InlineText())
    #expect(InlineText("a") != InlineText("a "))
  }

  /// Inline text is written to JSON as it is exactly when the escaper would copy it unchanged,
  /// and then as the escaper writes it, within the escaper's room.
  @Test func plainTextIsWrittenAsTheEscaperWritesIt() async {
    await seededCheck(count: fuzzCount(1000), input: Self.anyText) { text in
      let made = InlineText(text)
      let bytes = Array(text.utf8)
      let room = JSONText.stringRoom(bytes.count)
      var out = [UInt8](repeating: 0xAA, count: room + 1)
      let written = out.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { made.writePlainJSON(to: $0) }
      }
      let escaped = bytes.withUnsafeBufferPointer { JSONText.mayNeedEscaping($0) }
      #expect((written != nil) == (made.isInline && !escaped), "\(text.debugDescription)")
      guard let written else {
        #expect(out.allSatisfy { $0 == 0xAA })
        return
      }
      var expected: [UInt8] = []
      JSONText.appendString(text, to: &expected)
      #expect(Array(out[..<written]) == expected)
      #expect(out[room] == 0xAA)
    }
  }
}
