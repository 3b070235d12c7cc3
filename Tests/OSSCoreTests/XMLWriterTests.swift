import OSSCore
import Testing

/// `XMLWriter.escape`: the specials and control characters escaped, everything else as is.
@Suite struct XMLWriterTests {
  @Test func escapesExactlyTheSpecialsAndControlCharacters() {
    var writer = XMLWriter()
    writer.element("K", "plain 中文 😀 ~%+")
    writer.element("K", "a&b<c>\"d'e\u{1}f\tg\nh\ri\u{7F}")
    writer.element("K", "&")
    writer.element("K", "")
    writer.element("K", "\u{0}end")
    let text = String(decoding: writer.bytes, as: UTF8.self)
    #expect(
      text == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<K>plain 中文 😀 ~%+</K>"
        + "<K>a&amp;b&lt;c&gt;&quot;d'e&#1;f\tg\nh&#13;i\u{7F}</K><K>&amp;</K><K></K><K>&#0;end</K>"
    )
  }
}
