import KodoBrowse
import KodoTestSupport
import Testing

@Suite("Key decoding")
struct KeyDecoderTests {
  static let sample: [UInt8] = Array(
    "jk\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}OD\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~\u{1B}[5~\u{1B}[6~\r\u{7F}\u{3}中👍x\u{1B}q"
      .utf8)

  static let expected: [Key] = [
    .character("j"), .character("k"), .up, .down, .right, .left, .home, .end, .home, .end,
    .pageUp, .pageDown, .enter, .backspace, .controlC, .character("中"), .character("👍"),
    .character("x"), .escape, .character("q"),
  ]

  @Test func decodesEveryKeyTheBrowserUses() {
    var decoder = KeyDecoder()
    #expect(decoder.feed(Self.sample) + decoder.flush() == Self.expected)
  }

  @Test func aLoneEscapeWaitsForTheFlush() {
    var decoder = KeyDecoder()
    #expect(decoder.feed([0x1B]) == [])
    #expect(decoder.hasPending)
    #expect(decoder.flush() == [.escape])
    #expect(decoder.feed([0x1B, 0x5B]) == [])
    #expect(decoder.feed([0x41]) == [.up])
  }

  @Test func anySplitDecodesToTheSameKeys() {
    var random = SplitMix64(seed: 14)
    for _ in 0..<2_000 {
      var decoder = KeyDecoder()
      var keys: [Key] = []
      var index = 0
      while index < Self.sample.count {
        let length = Int.random(in: 1...6, using: &random)
        let end = min(Self.sample.count, index + length)
        keys += decoder.feed(Self.sample[index..<end])
        index = end
      }
      keys += decoder.flush()
      #expect(keys == Self.expected)
    }
  }

  @Test func garbageNeverTrapsAndEveryByteIsConsumed() {
    var random = SplitMix64(seed: 7)
    for _ in 0..<2_000 {
      let bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      var decoder = KeyDecoder()
      _ = decoder.feed(bytes)
      _ = decoder.flush()
      #expect(!decoder.hasPending)
    }
  }
}
