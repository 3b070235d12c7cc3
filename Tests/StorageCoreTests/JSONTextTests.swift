import StorageCore
import Testing

/// The JSON string writer's word-at-a-time scan (issue 23) sends to the escaper exactly the
/// strings that hold a byte it escapes, wherever in the string that byte is.
@Suite("JSONText's scan and escaper")
struct JSONTextTests {
  /// The writer's rules, one scalar at a time: `"`, `\`, control characters, U+2028 and U+2029
  /// escaped, everything else as UTF-8.
  static func reference(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x22: out += "\\\""
      case 0x5C: out += "\\\\"
      case 0x0A: out += "\\n"
      case 0x0D: out += "\\r"
      case 0x09: out += "\\t"
      case 0x08: out += "\\b"
      case 0x0C: out += "\\f"
      case 0..<0x20, 0x2028, 0x2029:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  @Test func everyByteAtEveryPlaceIsFoundWhenItNeedsEscaping() {
    for length in 1...27 {
      for place in 0..<length {
        for byte in 0...255 {
          var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
          bytes[place] = UInt8(byte)
          let expected = byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2
          let found = bytes.withUnsafeBufferPointer { JSONText.mayNeedEscaping($0) }
          #expect(found == expected, "byte \(byte) at \(place) of \(length)")
          // The writer's one-pass copy says the same, and copies exactly the bytes when plain.
          var copy = [UInt8](repeating: 0xAA, count: length + 1)
          let plain = bytes.withUnsafeBufferPointer { source in
            copy.withUnsafeMutableBufferPointer { target in
              target.baseAddress.map { JSONText.copyIfPlain(source, to: $0) } ?? false
            }
          }
          #expect(plain == !expected, "byte \(byte) at \(place) of \(length)")
          if plain { #expect(copy == bytes + [0xAA]) }
        }
      }
    }
  }

  @Test func stringsAreWrittenAsTheScalarRulesSay() {
    let specials = [
      "\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}",
      "\u{2030}", "é", "😀", "/",
    ]
    for length in 1...19 {
      for place in 0..<length {
        for special in specials {
          let text =
            String(repeating: "a", count: place) + special
            + String(repeating: "b", count: length - place - 1)
          var bytes: [UInt8] = []
          JSONText.appendString(text, to: &bytes)
          #expect(String(decoding: bytes, as: UTF8.self) == Self.reference(text))
          var substringBytes: [UInt8] = []
          JSONText.appendString(Substring(text), to: &substringBytes, asciiOnly: false)
          #expect(substringBytes == bytes)
        }
      }
    }
  }
}
