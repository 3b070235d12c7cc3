import Testing

@testable import StorageCore

/// Protocol text is cut at bytes (issue 20, "Bytes, not Characters, on the wire"): a delimiter
/// followed by U+0301 is one `Character` that is not the delimiter, and U+037E is a `Character`
/// equal to `;`, so grapheme-level cuts miss delimiters the services see and find ones they don't.
@Suite("WireText")
struct WireTextTests {
  @Test func aDelimiterInsideACharacterIsStillADelimiter() {
    #expect("a=1&\u{301}b=2".split(separator: "&").count == 1, "the grapheme-level cut replaced")
    #expect(WireText.split("a=1&\u{301}b=2", at: "&") == ["a=1", "\u{301}b=2"])
    #expect(WireText.split("a&&b", at: "&") == ["a", "", "b"])
    #expect(WireText.split("&a&&b&", at: "&", omittingEmpty: true) == ["a", "b"])
    #expect(WireText.split("a=b=c", at: "=", maxSplits: 1) == ["a", "b=c"])
    #expect(WireText.split("", at: "&") == [""])
    let cut = WireText.cut("name:\u{301}value", at: ":")
    #expect(cut?.head == "name" && cut?.tail == "\u{301}value")
    let last = WireText.cutAtLast("OSS ak:x:\u{301}sig", at: ":")
    #expect(last?.head == "OSS ak:x" && last?.tail == "\u{301}sig")
    #expect(
      WireText.firstIndex(of: "?", in: "p?\u{301}q").map { $0.utf16Offset(in: "p?\u{301}q") } == 1)
    #expect(WireText.contains("a,\u{301}b", byte: ","))
  }

  @Test func aCharacterEqualToADelimiterIsNotOne() {
    // U+037E GREEK QUESTION MARK is canonically equivalent to ";".
    #expect("a\u{37E}b".split(separator: ";").count == 2, "the grapheme-level cut replaced")
    #expect(WireText.split("a\u{37E}b", at: ";") == ["a\u{37E}b"])
    // U+212A KELVIN SIGN is canonically equivalent to "K".
    #expect("X-\u{212A}" == "X-K", "Swift's String equality is canonical")
    #expect(!WireText.same("X-\u{212A}", "X-K"))
    #expect(!WireText.sameIgnoringASCIICase("x-\u{212A}", "x-k"))
    #expect(WireText.sameIgnoringASCIICase("Content-TYPE", "content-type"))
  }

  @Test func prefixesSuffixesAndSearchesAreBytes() {
    #expect(!"OSS \u{301}ak:sig".hasPrefix("OSS "), "the grapheme-level test replaced")
    #expect(WireText.hasPrefix("OSS \u{301}ak:sig", "OSS "))
    #expect(WireText.dropping(prefix: "OSS ", from: "OSS \u{301}ak") == "\u{301}ak")
    #expect(WireText.dropping(prefix: "OSS ", from: "OS") == nil)
    #expect(WireText.hasSuffix("a.aliyuncs.com", ".aliyuncs.com"))
    #expect(WireText.dropping(suffix: "\"", from: "\"ab\"") == "\"ab")
    #expect(WireText.dropping(suffix: "-internal", from: "x") == nil)
    let text = "x$(\u{301}key)y"
    let range = WireText.range(of: "$(", in: text)
    #expect(range.map { String(text[$0.upperBound...]) } == "\u{301}key)y")
    #expect(WireText.range(of: "://", in: "http:/x") == nil)
    #expect(
      WireText.range(of: "ab", in: "aab")?.lowerBound == "aab".utf8.index(after: "aab".startIndex))
    #expect(WireText.contains("bad\u{FFFD}", "\u{FFFD}"))
    #expect(WireText.trimmingSpaces(" \t\u{301}v \t") == "\u{301}v")
    #expect(WireText.trimmingSpaces("  ") == "")
    #expect(WireText.asciiLowercased("X-OSS-Meta-\u{C9}") == "x-oss-meta-\u{C9}")
    #expect(WireText.precedes("e\u{301}", "\u{E9}"))
  }

  @Test func aQueryParameterAfterACombiningMarkIsRedacted() {
    let shown = RequestEvent.redactedURL("http://h/k?e=1&token=\u{301}secret")
    #expect(!shown.contains("secret"), "\(shown)")
    #expect(shown == "http://h/k?e=1&token=<redacted>")
    #expect(
      RequestEvent.redactedURL("http://h/k?a=1&\u{301}b=2&Signature=s")
        == "http://h/k?a=1&\u{301}b=2&Signature=<redacted>")
    #expect(RequestEvent.redactAuthorization("Qiniu ak:\u{301}sig") == "Qiniu ak:<redacted>")
  }

  @Test func urlPartsCutAtBytes() {
    let parts = URLParts("http://h:80/p?\u{301}q=1#\u{301}f")
    #expect(parts.path == "/p")
    #expect(parts.query == "\u{301}q=1")
    #expect(parts.host == "h" && parts.port == 80)
    let v6 = URLParts("http://[::1]:9000/x")
    #expect(v6.host == "[::1]" && v6.port == 9000)
  }

  @Test func headerNamesMatchByASCIICaseOnly() {
    let headers: HTTPHeaders = ["x-oss-meta-\u{212A}": "kelvin", "Content-Type": "text/plain"]
    #expect(headers["x-oss-meta-k"] == nil)
    #expect(headers["X-OSS-META-\u{212A}"] == "kelvin")
    #expect(headers["content-type"] == "text/plain")
    var edited = headers
    edited.set("x-oss-meta-K", "k")
    #expect(edited.fields.count == 3)
  }

  @Test func aHeaderLineIsCutAtItsColonByte() {
    let context = TransferContext(
      destination: nil, cancellation: CancellationFlag(), body: nil,
      limits: .init(body: 1 << 10, errorBody: 1 << 10, headers: 1 << 10))
    for line in ["HTTP/1.1 200 OK\r\n", "X-Mark:\u{301}v\r\n", "X-Space: \u{301}w \r\n"] {
      var bytes = Array(line.utf8)
      let taken = bytes.withUnsafeMutableBytes {
        context.receiveHeaderLine(UnsafeRawBufferPointer($0))
      }
      #expect(taken)
    }
    #expect(context.currentStatus == 200)
    #expect(context.headerFields.map(\.0) == ["X-Mark", "X-Space"])
    #expect(
      context.headerFields.map { Array($0.1.utf8) } == [
        Array("\u{301}v".utf8), Array("\u{301}w".utf8),
      ])
  }

  @Test func locationsAreComparedByBytes() {
    let composed = ObjectLocation(bucket: "b", key: "caf\u{E9}")
    let decomposed = ObjectLocation(bucket: "b", key: "cafe\u{301}")
    #expect(composed != decomposed)
    #expect(Set([composed, decomposed]).count == 2)
    #expect(composed == ObjectLocation(bucket: "b", key: "caf\u{E9}"))
  }

  @Test func userInformationIsCutAtItsAtByte() {
    #expect(
      RedirectPolicy.endpoint(URLParts("http://u@\u{301}h/")) == DisplayText.escaped("\u{301}h:80"))
  }

  @Test func datesAndContentTypes() {
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:\u{301}37 GMT") == nil)
    #expect(ContentTypes.forName("a.JPG") == "image/jpeg")
    #expect(ContentTypes.forName(".jpg") == nil)
    #expect(WireText.contains(DisplayText.quoted("a\"\u{301}b"), "\\\""))
  }
}
