import OSSCore
import StorageCore
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

  /// `XMLWriter.time`: `YYYY-MM-DDTHH:MM:SS.mmmZ`, the milliseconds rounded down, for times on
  /// both sides of the epoch, across leap days and at the ends of the four-digit years; checked
  /// against the fields written one digit at a time.
  @Test func writesTimesAsOSSDoes() {
    var times: [Int64] = [0, -1, 9_999, 10_000, -10_000, 951_782_400 * 10_000_000]
    times.append(253_402_300_799 * 10_000_000 + 9_999_999)  // 9999-12-31T23:59:59.999
    times.append(-62_167_219_200 * 10_000_000)  // 0000-01-01T00:00:00.000
    var state: UInt64 = 0x5EED
    for _ in 0..<5_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      // Years 0 to 9999: ±3.1e11 s around 1970 at most, within the four-digit years.
      let span: Int64 = 253_402_300_800 + 62_167_219_200
      let seconds = Int64(truncatingIfNeeded: state >> 20) % span - 62_167_219_200
      times.append(seconds * 10_000_000 + Int64(truncatingIfNeeded: state & 0x7F_FFFF) % 10_000_000)
    }
    for hundredNanoseconds in times {
      var writer = XMLWriter()
      let start = writer.bytes.count
      writer.time(Timestamp(hundredNanoseconds: hundredNanoseconds))
      let text = String(decoding: writer.bytes[start...], as: UTF8.self)
      #expect(text == Self.referenceTime(hundredNanoseconds), "\(hundredNanoseconds)")
    }
  }

  private static func referenceTime(_ hundredNanoseconds: Int64) -> String {
    var seconds = hundredNanoseconds / 10_000_000
    var fraction = hundredNanoseconds % 10_000_000
    if fraction < 0 {
      fraction += 10_000_000
      seconds -= 1
    }
    let civil = CivilTime(unixSeconds: seconds)
    func digits(_ value: Int64, _ count: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, count - text.count)) + text
    }
    return digits(civil.year, 4) + "-" + digits(Int64(civil.month), 2) + "-"
      + digits(Int64(civil.day), 2) + "T" + digits(Int64(civil.hour), 2) + ":"
      + digits(Int64(civil.minute), 2) + ":" + digits(Int64(civil.second), 2) + "."
      + digits(fraction / 10_000, 3) + "Z"
  }
}
