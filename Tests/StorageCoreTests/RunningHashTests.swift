import KodoTestSupport
import PropertyBased
import Testing

@testable import StorageCore

/// The running hashes agree with the one-shot ones however the bytes are split, and copies go on
/// independently.
@Suite struct RunningHashTests {
  @Test func knownValues() {
    var md5 = RunningHash.md5()
    #expect(md5.text == "d41d8cd98f00b204e9800998ecf8427e")
    Array("abc".utf8).withUnsafeBytes { md5.update($0) }
    #expect(md5.text == "900150983cd24fb0d6963f7d28e17f72")
    var sha1 = RunningHash(.sha1)
    Array("abc".utf8).withUnsafeBytes { sha1.update($0) }
    #expect(sha1.text == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(RunningHash(.sha256).bytes == Digest.sha256([]))
  }

  @Test func anySplitGivesTheOneShotDigest() async {
    await seededCheck(
      count: 300, input: Gen<UInt8>.value(in: 0...255).array(of: 0...3000),
      Gen<Int>.value(in: 1...700)
    ) { bytes, piece in
      var md5 = RunningHash.md5()
      var sha1 = RunningHash(.sha1)
      var start = 0
      while start < bytes.count {
        let end = min(bytes.count, start + piece)
        bytes[start..<end].withUnsafeBytes {
          md5.update($0)
          sha1.update($0)
        }
        start = end
      }
      #expect(md5.bytes == Digest.md5(bytes))
      #expect(sha1.bytes == Digest.sha1(bytes))
    }
  }

  @Test func aCopyGoesOnByItself() {
    var original = RunningHash.md5()
    Array("ab".utf8).withUnsafeBytes { original.update($0) }
    var copy = original
    Array("c".utf8).withUnsafeBytes { copy.update($0) }
    #expect(original.bytes == Digest.md5(Array("ab".utf8)))
    #expect(copy.bytes == Digest.md5(Array("abc".utf8)))
    // A streamed digest restarts from the kept value without disturbing it.
    let streamed = StreamedDigest(original)
    Array("zz".utf8).withUnsafeBytes { streamed.update($0) }
    streamed.restart()
    #expect(streamed.text == Hex.encode(Digest.md5(Array("ab".utf8))))
  }
}
