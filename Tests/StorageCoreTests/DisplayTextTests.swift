import StorageCore
import Testing

/// The escaper's fast check (eight bytes at a time) must never call unsafe text safe.
@Suite("DisplayText")
struct DisplayTextTests {
  static func preciselySafe(_ bytes: [UInt8]) -> Bool {
    String(decoding: bytes, as: UTF8.self).unicodeScalars.allSatisfy { !DisplayText.isUnsafe($0) }
  }

  @Test func theFastCheckNeverMissesAnUnsafeCharacter() {
    var generator = SystemRandomNumberGenerator()
    let interesting: [[UInt8]] = [
      [0x00], [0x1F], [0x7F], [0xC2, 0x85], [0xD8, 0x9C], [0xE2, 0x80, 0xAE], [0xE2, 0x81, 0xA6],
      [0xEF, 0xBB, 0xBF], [0xE2, 0x80, 0xA8], [0x20], [0x7E], [0xE4, 0xB8, 0xAD],
      [0xF0, 0x9F, 0x98, 0x80],
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
