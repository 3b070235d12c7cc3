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
    // Most text has nothing to escape: one look, one copy.
    var clean = true
    for byte in utf8 where Self.needsEscaping(byte) {
      clean = false
      break
    }
    guard !clean else {
      bytes.append(contentsOf: utf8)
      return
    }
    // Runs of bytes that need no escaping are copied at once.
    var start = 0
    for index in utf8.indices {
      let byte = utf8[index]
      let replacement: StaticString
      switch byte {
      case UInt8(ascii: "&"): replacement = "&amp;"
      case UInt8(ascii: "<"): replacement = "&lt;"
      case UInt8(ascii: ">"): replacement = "&gt;"
      case UInt8(ascii: "\""): replacement = "&quot;"
      case 0x09, 0x0A, 0x20...: continue
      default:
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
        bytes += "&#".utf8
        DecimalText.append(Int64(byte), to: &bytes)
        bytes.append(UInt8(ascii: ";"))
        start = index + 1
        continue
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
      append(replacement)
      start = index + 1
    }
    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.endIndex]))
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
    let seconds = time.unixSeconds
    let civil = CivilTime(unixSeconds: seconds)
    guard (0...9_999).contains(civil.year) else {
      var shown = time
      shown.fractionDigits = 3
      shown.appendRFC3339(to: &bytes)
      return
    }
    var fraction = time.hundredNanoseconds % 10_000_000
    if fraction < 0 { fraction += 10_000_000 }
    let milliseconds = fraction / 10_000
    // 24 bytes built on the stack and appended at once (a listing writes a thousand a page).
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
      func digits(_ value: Int, _ count: Int, at offset: Int) {
        var rest = value
        for position in (offset..<(offset + count)).reversed() {
          text[position] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
          rest /= 10
        }
      }
      digits(Int(civil.year), 4, at: 0)
      text[4] = UInt8(ascii: "-")
      digits(civil.month, 2, at: 5)
      text[7] = UInt8(ascii: "-")
      digits(civil.day, 2, at: 8)
      text[10] = UInt8(ascii: "T")
      digits(civil.hour, 2, at: 11)
      text[13] = UInt8(ascii: ":")
      digits(civil.minute, 2, at: 14)
      text[16] = UInt8(ascii: ":")
      digits(civil.second, 2, at: 17)
      text[19] = UInt8(ascii: ".")
      digits(Int(milliseconds), 3, at: 20)
      text[23] = UInt8(ascii: "Z")
      bytes.append(contentsOf: UnsafeBufferPointer(text))
    }
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
