package import StorageCore

/// Writes XML as OSS does: a UTF-8 declaration, elements and escaped text, no indentation.
package struct XMLWriter {
  /// The document so far.
  package private(set) var bytes: [UInt8]

  /// A document that starts with `<?xml version="1.0" encoding="UTF-8"?>` and a newline.
  package init(capacity: Int = 1024) {
    bytes = []
    bytes.reserveCapacity(capacity)
    bytes += #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8
    bytes.append(0x0A)
  }

  /// `<name>`.
  package mutating func open(_ name: StaticString) {
    bytes.append(UInt8(ascii: "<"))
    append(name)
    bytes.append(UInt8(ascii: ">"))
  }

  /// `</name>`.
  package mutating func close(_ name: StaticString) {
    bytes.append(UInt8(ascii: "<"))
    bytes.append(UInt8(ascii: "/"))
    append(name)
    bytes.append(UInt8(ascii: ">"))
  }

  /// `<name>text</name>`, the text escaped.
  package mutating func element(_ name: StaticString, _ text: String) {
    open(name)
    escape(text)
    close(name)
  }

  /// `<name>text</name>` for a name known only at run time (it must be an XML name).
  package mutating func element(named name: String, _ text: String) {
    bytes.append(UInt8(ascii: "<"))
    bytes += name.utf8
    bytes.append(UInt8(ascii: ">"))
    escape(text)
    bytes += "</".utf8
    bytes += name.utf8
    bytes.append(UInt8(ascii: ">"))
  }

  /// `<name>text</name>` when `text` is not `nil`.
  package mutating func element(_ name: StaticString, ifPresent text: String?) {
    if let text { element(name, text) }
  }

  /// Text with `&`, `<`, `>` and `"` escaped, and CR and the other control characters as
  /// character references (XML 1.0 does not allow the latter at all: OSS's answers avoid them
  /// with `encoding-type=url`).
  package mutating func escape(_ text: String) {
    var text = text
    text.withUTF8 { escape(utf8: $0) }
  }

  /// `escape` over UTF-8 bytes.
  package mutating func escape(utf8: UnsafeBufferPointer<UInt8>) {
    bytes.appendBytes(upTo: Self.escapedRoom(utf8.count)) { Self.writeEscaped(utf8, to: $0) }
  }

  /// The most bytes `writeEscaped` writes for `count` bytes (`&quot;` for each).
  @inline(__always)
  package static func escapedRoom(_ count: Int) -> Int { 6 * count }

  /// Writes UTF-8 bytes escaped as `escape` escapes them at `out`, which has room for
  /// `escapedRoom(utf8.count)` bytes; returns how many it wrote (the one escaper: `escape` and
  /// the emulator's listing writer use it). Runs of bytes that need no escaping (most text: all
  /// of it) are copied at once.
  package static func writeEscaped(
    _ utf8: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    guard let base = utf8.baseAddress else { return 0 }
    let plain = plainPrefix(utf8)
    out.initialize(from: base, count: plain)
    guard plain < utf8.count else { return plain }
    var count = plain
    var start = plain
    for index in plain..<utf8.count {
      let byte = base[index]
      guard needsEscaping(byte) else { continue }
      (out + count).initialize(from: base + start, count: index - start)
      count += index - start
      start = index + 1
      switch byte {
      case UInt8(ascii: "&"): count += (out + count).write("&amp;")
      case UInt8(ascii: "<"): count += (out + count).write("&lt;")
      case UInt8(ascii: ">"): count += (out + count).write("&gt;")
      case UInt8(ascii: "\""): count += (out + count).write("&quot;")
      default:
        count += (out + count).write("&#")
        count += DecimalText.write(Int64(byte), to: out + count)
        out[count] = UInt8(ascii: ";")
        count += 1
      }
    }
    (out + count).initialize(from: base + start, count: utf8.count - start)
    return count + utf8.count - start
  }

  /// How many bytes at the start of `utf8` need no escaping: eight at a time while no byte of a
  /// word might (`mayNeedEscaping`), then one at a time up to the first that does.
  @inline(__always)
  private static func plainPrefix(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
    guard let base = utf8.baseAddress else { return 0 }
    var index = 0
    while index + 8 <= utf8.count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      if mayNeedEscaping(word) { break }
      index += 8
    }
    while index < utf8.count, !needsEscaping(base[index]) { index += 1 }
    return index
  }

  /// Whether one of a word's eight bytes may need escaping: one is below 0x20 (tab and newline
  /// too: the bytes are then looked at one by one) or is `"`, `&`, `<` or `>`. Exact for "none"
  /// (a borrow only starts at a byte that matches).
  @inline(__always)
  private static func mayNeedEscaping(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZeroByte(_ value: UInt64) -> Bool {
      (value &- ones) & ~value & highs != 0
    }
    let below20 = (word &- ones &* 0x20) & ~word & highs != 0
    return below20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x26))
      || hasZeroByte(word ^ (ones &* 0x3C)) || hasZeroByte(word ^ (ones &* 0x3E))
  }

  @inline(__always)
  private static func needsEscaping(_ byte: UInt8) -> Bool {
    // Below 0x40 only: the control characters but tab and newline, `"`, `&`, `<` and `>`.
    let escaped: UInt64 =
      0xFFFF_FFFF & ~(1 << 0x09 | 1 << 0x0A) | 1 << 0x22 | 1 << 0x26 | 1 << 0x3C | 1 << 0x3E
    return byte < 64 && (escaped >> UInt64(byte)) & 1 != 0
  }

  /// Appends markup as it is (a run of tags known at compile time, such as `</Key><Size>`).
  package mutating func raw(_ markup: StaticString) {
    append(markup)
  }

  /// Appends UTF-8 text percent-encoded as a query value (`encoding-type=url`), or else
  /// escaped.
  package mutating func text(utf8: UnsafeBufferPointer<UInt8>, percentEncoded: Bool) {
    if percentEncoded {
      PercentEncoding.append(utf8, keepSlash: false, to: &bytes)
    } else {
      escape(utf8: utf8)
    }
  }

  /// Appends a decimal number.
  package mutating func decimal(_ value: Int64) {
    DecimalText.append(value, to: &bytes)
  }

  /// Appends a time as OSS writes it: `2012-02-24T08:42:32.000Z` (milliseconds, rounded down).
  package mutating func time(_ time: Timestamp) {
    bytes.appendBytes(upTo: Self.timeRoom) { Self.writeTime(time, to: $0) }
  }

  /// The most bytes `writeTime` writes (a year outside 0...9999 is written as RFC 3339 is).
  package static var timeRoom: Int { max(24, Timestamp.rfc3339MaximumLength) }

  /// Writes a time as `time` appends it at `out`, which has room for `timeRoom` bytes; returns
  /// how many it wrote (24, but for a year outside 0...9999): RFC 3339 with three digits of
  /// fraction, which `Timestamp.writeRFC3339` writes eight bytes at a time (every entry of a
  /// listing has one).
  @inline(__always)
  package static func writeTime(_ time: Timestamp, to out: UnsafeMutablePointer<UInt8>) -> Int {
    var shown = time
    shown.fractionDigits = 3
    return shown.writeRFC3339(to: out)
  }

  /// `<name>text</name>` for UTF-8 text: percent-encoded as a query value (`encoding-type=url`;
  /// the result needs no XML escaping), or else escaped.
  package mutating func element(
    _ name: StaticString, utf8: UnsafeBufferPointer<UInt8>, percentEncoded: Bool
  ) {
    open(name)
    text(utf8: utf8, percentEncoded: percentEncoded)
    close(name)
  }

  /// `<name>digits</name>`.
  package mutating func element(_ name: StaticString, decimal value: Int64) {
    open(name)
    DecimalText.append(value, to: &bytes)
    close(name)
  }

  /// `<name>time</name>` with the time as OSS writes it: `2012-02-24T08:42:32.000Z`.
  package mutating func element(_ name: StaticString, time: Timestamp) {
    open(name)
    self.time(time)
    close(name)
  }

  /// `<name>&quot;tag&quot;</name>`: an ETag in its quotes, escaped as OSS writes it.
  package mutating func element(_ name: StaticString, quoted tag: [UInt8]) {
    open(name)
    append("&quot;")
    tag.withUnsafeBufferPointer { escape(utf8: $0) }
    append("&quot;")
    close(name)
  }

  /// `<name>text</name>` for text known at compile time (escaped all the same).
  package mutating func element(_ name: StaticString, _ text: StaticString) {
    open(name)
    escape(utf8: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    close(name)
  }

  private mutating func append(_ name: StaticString) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
  }
}
