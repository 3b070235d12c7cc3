import StorageCore
import Testing

/// The escaper's fast check (eight bytes at a time) must never call unsafe text safe.
@Suite("DisplayText")
struct DisplayTextTests {
  static func preciselySafe(_ bytes: [UInt8]) -> Bool {
    DisplayText.isDisplaySafe(String(decoding: bytes, as: UTF8.self))
  }

  @Test func theFastCheckNeverMissesAnUnsafeCharacter() {
    var generator = SystemRandomNumberGenerator()
    let interesting: [[UInt8]] = [
      [0x00], [0x1F], [0x7F], [0xC2, 0x85], [0xD8, 0x9C], [0xE2, 0x80, 0xAE], [0xE2, 0x81, 0xA6],
      [0xEF, 0xBB, 0xBF], [0xE2, 0x80, 0xA8], [0x20], [0x7E], [0xE4, 0xB8, 0xAD],
      [0xF0, 0x9F, 0x98, 0x80], [0xCD, 0x8F], [0xE1, 0xA0, 0x8E], [0xE3, 0x85, 0xA4],
      [0xF3, 0xA0, 0x80, 0xA0], [0xC3, 0xA9], [0xCB, 0xBF], [0xE2, 0x80, 0x8D],
    ]
    for _ in 0..<20_000 {
      var bytes: [UInt8] = []
      for _ in 0..<Int.random(in: 0...40, using: &generator) {
        if Bool.random(using: &generator) {
          bytes += interesting.randomElement(using: &generator) ?? []
        } else {
          bytes.append(UInt8.random(in: 0x20...0x7E, using: &generator))
        }
      }
      let fastSaysSafe = bytes.withUnsafeBufferPointer { !DisplayText.mayNeedEscaping($0) }
      if fastSaysSafe { #expect(Self.preciselySafe(bytes), "\(bytes)") }
      #expect(
        DisplayText.escaped(String(decoding: bytes, as: UTF8.self))
          == DisplayText.escaped(Substring(String(decoding: bytes, as: UTF8.self))))
    }
  }

  // Issue 19 L-4: the escaper listed characters by hand, and tags, invisible operators, Hangul
  // fillers, U+034F, U+180E and the interlinear annotations passed: `invoice.pdf` and
  // `invoice.pdf` + U+E0020 looked the same.
  @Test(arguments: [
    0xE0020, 0xE0001, 0xE007F, 0x2061, 0x2064, 0x206A, 0x206F, 0x180E, 0x3164, 0x115F, 0x1160,
    0xFFA0, 0x034F, 0xFFF9, 0xFFFB, 0x00AD, 0xFE00, 0xE0100, 0x200C, 0x0600, 0xE000, 0xFFFF,
    0x10FFFF, 0x0378,
  ])
  func everyInvisibleCharacterIsEscaped(_ value: UInt32) throws {
    let scalar = try #require(Unicode.Scalar(value))
    let name = "invoice.pdf" + String(Character(scalar))
    let hex = String(value, radix: 16, uppercase: true)
    #expect(DisplayText.escaped(name) == "invoice.pdf\\u{\(hex)}")
    #expect(DisplayText.isUnsafe(scalar))
  }

  /// The quick ranges of `isUnsafe` agree with the Unicode properties for every scalar.
  @Test func theRuleIsTheUnicodePropertiesForEveryScalar() {
    var disagreements: [UInt32] = []
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let byProperty =
        value == 0x7F || (0x80...0x9F).contains(value) || DisplayText.isUnsafeByProperty(scalar)
      if DisplayText.isUnsafe(scalar) != byProperty { disagreements.append(value) }
    }
    #expect(disagreements.isEmpty, "\(disagreements.prefix(20).map { String($0, radix: 16) })")
  }

  /// Emoji stay whole: a ZWJ between emoji and a variation selector after one are kept; the same
  /// characters anywhere else are escaped.
  @Test func emojiKeepTheirJoinersAndNothingElseDoes() {
    for kept in ["👨‍👩‍👧", "❤️", "🏳️‍🌈", "👍🏽", "1️⃣", "🇨🇳", "a👩‍💻b"] {
      #expect(DisplayText.escaped(kept) == kept, "\(kept.unicodeScalars.map(\.value))")
    }
    #expect(DisplayText.escaped("b\u{200B}\u{200D}X") == #"b\u{200B}\u{200D}X"#)
    #expect(DisplayText.escaped("a\u{200D}b") == #"a\u{200D}b"#)
    #expect(DisplayText.escaped("1\u{200D}😀") == #"1\u{200D}😀"#)
    #expect(DisplayText.escaped("😀\u{200D}") == #"😀\u{200D}"#)
    #expect(DisplayText.escaped("x\u{FE0F}") == #"x\u{FE0F}"#)
    #expect(DisplayText.escaped("❤\u{FE0F}\u{FE0F}") == #"❤️\u{FE0F}"#)
    #expect(DisplayText.escaped("🏴\u{E0067}\u{E007F}") == #"🏴\u{E0067}\u{E007F}"#)
  }

  @Test func escapesControlsBidiAndInvisibleCharactersButNotText() {
    #expect(DisplayText.escaped("a\nb\u{1B}[2J") == #"a\nb\u{1B}[2J"#)
    #expect(DisplayText.escaped("gpj.\u{202E}exe.txt") == #"gpj.\u{202E}exe.txt"#)
    #expect(DisplayText.escaped("zero\u{200B}width\u{FEFF}") == #"zero\u{200B}width\u{FEFF}"#)
    #expect(DisplayText.escaped("中文 😀 plain ASCII ~") == "中文 😀 plain ASCII ~")
    let text: DisplayText = "literal \("key\u{7}") \(DisplayText(escaping: "a\tb"))"
    #expect(text.text == #"literal key\u{7} a\tb"#)
    #expect(DisplayText(quoting: #"say "hi""#).text == #""say \"hi\"""#)
  }
}
