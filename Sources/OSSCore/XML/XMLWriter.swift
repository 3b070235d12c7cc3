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
    text.withUTF8 { utf8 in
      // Runs of bytes that need no escaping are copied at once (most text has none).
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
          bytes += String(byte).utf8
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
  }

  private mutating func append(_ name: StaticString) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
  }
}
