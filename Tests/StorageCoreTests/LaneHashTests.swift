import KodoTestSupport
import PropertyBased
import Testing

@testable import StorageCore

/// `LaneHash` gives libcrypto's MD5 and SHA-1 through every kernel (AVX-512, AVX2, portable C),
/// one lane or many, however the bytes are split. Each test names the kernel width through the
/// internal `update(_:with:width:)` rather than the global `kodo_lanes_limit`, so suites running
/// in parallel never see another kernel than the one they asked for.
@Suite struct LaneHashTests {
  /// The widths of the kernels: AVX-512, AVX2, portable C.
  static let widths = [16, 8, 1]

  /// RFC 1321's test suite and FIPS 180's examples.
  static let vectors: [(LaneHash.Kind, String, String)] = [
    (.md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
    (.md5, "a", "0cc175b9c0f1b6a831c399e269772661"),
    (.md5, "abc", "900150983cd24fb0d6963f7d28e17f72"),
    (.md5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (.md5, "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
    (
      .md5, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
      "d174ab98d277d9f5a5611c2c9f419d9f"
    ),
    (.md5, String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    (.sha1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    (.sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
    (
      .sha1, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
    ),
    (.sha1, String(repeating: "a", count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
    (.md5, String(repeating: "a", count: 1_000_000), "7707d6ae4e027c70eea2a935c2296f21"),
  ]

  @Test(arguments: widths) func knownVectorsAllLanesAtOnce(width: Int) {
    let messages = Self.vectors.map { Array($0.1.utf8) }
    var hashes = Self.vectors.map { LaneHash($0.0) }
    withBuffers(messages) { LaneHash.update(&hashes, with: $0, width: width) }
    for (hash, vector) in zip(hashes, Self.vectors) {
      #expect(hash.text == vector.2, "\(vector.0) of \(vector.1.prefix(20)) at width \(width)")
    }
  }

  @Test(arguments: widths) func knownVectorsOneLane(width: Int) {
    for (kind, message, digest) in Self.vectors {
      var hash = LaneHash(kind)
      Array(message.utf8).withUnsafeBytes { hash.update($0, width: width) }
      #expect(hash.text == digest, "\(kind) of \(message.prefix(20)) at width \(width)")
    }
    var hash = LaneHash(.md5)
    Array("abc".utf8).withUnsafeBytes { hash.update($0) }
    #expect(hash.bytes == Digest.md5(Array("abc".utf8)))
  }

  /// Every kernel this machine has runs when asked for (the wider ones fall back to narrower
  /// ones only where the CPU lacks them).
  @Test(arguments: widths) func theKernelAskedForRuns(width: Int) {
    let messages = (0..<16).map { lane in [UInt8](repeating: UInt8(lane), count: 1024) }
    var hashes = [LaneHash](repeating: LaneHash(.sha1), count: 16)
    let used = withBuffers(messages) { LaneHash.update(&hashes, with: $0, width: width) }
    #expect(used == min(width, LaneHash.width))
    #expect([16, 8, 1].contains(LaneHash.width))
    for (hash, message) in zip(hashes, messages) { #expect(hash.bytes == Digest.sha1(message)) }
  }

  /// Random lane counts, kinds, lengths (many around the padding's edges) and splits over
  /// several updates: every digest is libcrypto's, laned or one lane at a time, at every width.
  @Test func anyLanesAnySplitsGiveLibcryptosDigests() async {
    await seededCheck(count: 40, input: Gen<UInt64>.value(in: .min ... .max)) { seed in
      var random = SplitMix64(seed: seed)
      let lanes = Int.random(in: 1...40, using: &random)
      let kinds = (0..<lanes).map { _ in Bool.random(using: &random) ? LaneHash.Kind.md5 : .sha1 }
      let messages = (0..<lanes).map { _ in Self.message(&random) }
      let rounds = Int.random(in: 1...5, using: &random)
      // Each message cut into `rounds` pieces (some empty).
      let cuts = messages.map { message in
        ([0] + (1..<rounds).map { _ in Int.random(in: 0...message.count, using: &random) }.sorted()
          + [message.count])
      }
      let expected = zip(kinds, messages).map { kind, message in
        kind == .md5 ? Digest.md5(message) : Digest.sha1(message)
      }
      for width in Self.widths {
        var laned = kinds.map { LaneHash($0) }
        var single = laned
        for round in 0..<rounds {
          let pieces = messages.indices.map {
            Array(messages[$0][cuts[$0][round]..<cuts[$0][round + 1]])
          }
          withBuffers(pieces) { LaneHash.update(&laned, with: $0, width: width) }
          for lane in single.indices {
            pieces[lane].withUnsafeBytes { single[lane].update($0, width: width) }
          }
        }
        for lane in 0..<lanes {
          #expect(laned[lane].bytes == expected[lane], "lane \(lane) of \(lanes), width \(width)")
          #expect(single[lane].bytes == expected[lane], "lane \(lane) alone, width \(width)")
        }
      }
    }
  }

  /// The length field counts bits in 64 bits: a message past 4 GiB (too long to hash here; the
  /// field is all that changes past 4 GiB) ends with its whole length.
  @Test func theLengthFieldCountsPast4GiB() {
    var md5 = LaneHash(.md5)
    md5.length = (1 << 32) + 3
    let padding = md5.padding
    #expect(padding.count == 61)
    #expect(padding.first == 0x80)
    #expect(padding.dropFirst().dropLast(8).allSatisfy { $0 == 0 })
    #expect(Array(padding.suffix(8)) == [0x18, 0, 0, 0, 0x08, 0, 0, 0])
    var sha1 = LaneHash(.sha1)
    sha1.length = (1 << 40) + 60
    #expect(sha1.padding.count == 68)
    #expect(Array(sha1.padding.suffix(8)) == [0, 0, 0x08, 0, 0, 0, 0x01, 0xE0])
  }

  @Test func aCopyGoesOnByItself() {
    var original = LaneHash(.sha1)
    [UInt8](repeating: 7, count: 100).withUnsafeBytes { original.update($0) }
    var copy = original
    Array("c".utf8).withUnsafeBytes { copy.update($0) }
    #expect(original.bytes == Digest.sha1([UInt8](repeating: 7, count: 100)))
    #expect(copy.bytes == Digest.sha1([UInt8](repeating: 7, count: 100) + Array("c".utf8)))
    // Reading the digest does not finish the hash.
    Array("c".utf8).withUnsafeBytes { original.update($0) }
    #expect(original.text == copy.text)
  }

  /// A message: mostly short, often at a block or padding edge, sometimes up to 300 KiB.
  static func message(_ random: inout SplitMix64) -> [UInt8] {
    let count =
      switch Int.random(in: 0...9, using: &random) {
      case 0...3:
        [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129].randomElement(using: &random) ?? 0
      case 4...7: Int.random(in: 0...4096, using: &random)
      case 8: 64 * Int.random(in: 1...512, using: &random) + Int.random(in: -1...1, using: &random)
      default: Int.random(in: 0...300_000, using: &random)
      }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    while bytes.count < count {
      withUnsafeBytes(of: random.next()) {
        bytes.append(contentsOf: $0.prefix(count - bytes.count))
      }
    }
    return bytes
  }
}

/// `body` with the buffers of `arrays`, in order.
@discardableResult
private func withBuffers<Result>(
  _ arrays: [[UInt8]], _ body: ([UnsafeRawBufferPointer]) -> Result
) -> Result {
  var buffers: [UnsafeRawBufferPointer] = []
  func next(_ index: Int) -> Result {
    guard index < arrays.count else { return body(buffers) }
    return arrays[index].withUnsafeBytes { buffer in
      buffers.append(buffer)
      return next(index + 1)
    }
  }
  return next(0)
}
