import StorageCore
import Testing

/// `PercentEncoding.append` (and so `write`, which listings use): every byte outside
/// `A–Z a–z 0–9 - _ . ~` (and `/`, unless kept) becomes `%XX`, wherever it stands in the text,
/// checked against an encoder that looks at one byte at a time.
@Suite struct PercentEncodingWriteTests {
  @Test func everyByteAtEveryPlace() {
    for keepSlash in [false, true] {
      for length in [1, 7, 8, 9, 15, 16, 17, 24] {
        for place in 0..<length {
          for value in 0...255 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            bytes[place] = UInt8(value)
            #expect(
              Self.encoded(bytes, keepSlash: keepSlash)
                == Self.reference(bytes, keepSlash: keepSlash),
              "\(bytes) \(keepSlash)")
          }
        }
      }
    }
  }

  @Test func mixedTexts() {
    let alphabet =
      Array("aZ09-_.~/ %&+=?#\u{7F}".utf8) + [0, 0x1F, 0x40, 0x5B, 0x60, 0x7B, 0x80, 0xE2, 0xFF]
    var state: UInt64 = 0x9E37
    for _ in 0..<3_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let length = Int(state >> 58)
      var bytes = [UInt8]()
      for _ in 0..<length {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        // Mostly plain letters, so that runs of all lengths come up.
        let pick = Int(state >> 40) % (alphabet.count * 3)
        bytes.append(pick < alphabet.count ? alphabet[pick] : UInt8(ascii: "k"))
      }
      for keepSlash in [false, true] {
        #expect(
          Self.encoded(bytes, keepSlash: keepSlash) == Self.reference(bytes, keepSlash: keepSlash),
          "\(bytes) \(keepSlash)")
      }
    }
  }

  private static func encoded(_ bytes: [UInt8], keepSlash: Bool) -> [UInt8] {
    var output: [UInt8] = [0x21]
    bytes.withUnsafeBufferPointer { PercentEncoding.append($0, keepSlash: keepSlash, to: &output) }
    return Array(output.dropFirst())
  }

  private static func reference(_ bytes: [UInt8], keepSlash: Bool) -> [UInt8] {
    let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8)
    let hex = Array("0123456789ABCDEF".utf8)
    var output = [UInt8]()
    for byte in bytes {
      if plain.contains(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
        output.append(byte)
      } else {
        output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      }
    }
    return output
  }
}
