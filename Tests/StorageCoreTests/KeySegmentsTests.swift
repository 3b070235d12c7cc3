import StorageCore
import Testing

/// Keys are cut at `/` bytes, whatever `Character` a `/` is part of.
@Suite("KeySegments")
struct KeySegmentsTests {
  // U+0301 combines with the `/` before it; U+0600 is a prepended mark that joins the `/` after.
  static let hidden = ["../\u{301}x", "a/\u{301}", "\u{600}/b", "/\u{301}"]

  @Test func aSlashInsideACharacterIsStillASeparator() {
    #expect("../\u{301}x".split(separator: "/").count == 1, "the grapheme-level cut this replaces")
    #expect(KeySegments.segments(of: "../\u{301}x") == ["..", "\u{301}x"])
    #expect(KeySegments.segments(of: "a/\u{301}") == ["a", "\u{301}"])
    #expect(KeySegments.segments(of: "\u{600}/b") == ["\u{600}", "b"])
    #expect(KeySegments.segments(of: "/\u{301}") == ["", "\u{301}"])
    #expect(KeySegments.startsWithSlash("/\u{301}"))
    #expect(KeySegments.endsWithSlash("\u{600}/"))
    #expect(KeySegments.containsSlash("x/\u{301}"))
    #expect(KeySegments.lastSegment(of: "a/b/\u{301}c") == "\u{301}c")
    #expect(KeySegments.folder(of: "a/b/\u{301}c") == "a/b/")
    #expect(KeySegments.folder(of: "\u{600}/") == "\u{600}/")
    let split = KeySegments.splitAtFirstSlash("b/\u{301}k/x")
    #expect(split?.head == "b" && split?.tail == "\u{301}k/x")
  }

  @Test func plainKeys() {
    #expect(KeySegments.segments(of: "a//b/") == ["a", "", "b", ""])
    #expect(KeySegments.segments(of: "") == [""])
    #expect(KeySegments.lastSegment(of: "abc") == "abc")
    #expect(KeySegments.lastSegment(of: "abc/") == "")
    #expect(KeySegments.folder(of: "abc") == "")
    #expect(KeySegments.droppingLeadingSlashes("//a/b") == "a/b")
    #expect(KeySegments.droppingTrailingSlashes("a/b//") == "a/b")
    #expect(KeySegments.droppingTrailingSlashes("//") == "")
    #expect(KeySegments.splitAtFirstSlash("abc") == nil)
    #expect(KeySegments.firstSlash(in: "abc") == nil && KeySegments.lastSlash(in: "") == nil)
  }

  @Test func segmentsJoinBackToTheKeyByteForByte() {
    for key in Self.hidden + ["", "/", "a/b", "中文/😀/ x"] {
      let joined = KeySegments.segments(of: key).joined(separator: "/")
      #expect(Array(joined.utf8) == Array(key.utf8), "\(key.debugDescription)")
      #expect(
        KeySegments.segments(of: key).count == key.utf8.filter { $0 == UInt8(ascii: "/") }.count + 1
      )
    }
  }
}

@Suite("ExactKey")
struct ExactKeyTests {
  @Test func canonicallyEquivalentKeysAreTwoKeys() {
    let composed = "caf\u{E9}.jpg"
    let decomposed = "cafe\u{301}.jpg"
    #expect(composed == decomposed, "Swift's String equality is canonical")
    #expect(ExactKey(composed) != ExactKey(decomposed))
    #expect(Set([ExactKey(composed), ExactKey(decomposed)]).count == 2)
    #expect(!ExactKey.same(composed, decomposed))
    #expect(ExactKey.same(composed, "caf\u{E9}.jpg"))
    #expect(ExactKey(Substring("a/b").dropFirst(2)) == ExactKey("b"))
  }
}
