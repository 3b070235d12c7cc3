import StorageCore

/// Builds one compact JSON object as UTF-8 bytes, straight into an output buffer.
struct JSONLine {
  private(set) var bytes: [UInt8]
  private var first = true

  /// A line of its own: fill it, then `finish()`.
  init() {
    bytes = [UInt8(ascii: "{")]
  }

  /// Appends one object line to `buffer` in place: the buffer is moved into the line and back,
  /// never copied (a listing writes a million lines into one page buffer).
  fileprivate static func append(to buffer: inout [UInt8], _ body: (inout JSONLine) -> Void) {
    var line = JSONLine(bytes: [])
    swap(&line.bytes, &buffer)
    line.bytes.append(UInt8(ascii: "{"))
    body(&line)
    line.close()
    swap(&line.bytes, &buffer)
  }

  private init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// `,"name":` (no comma before the first member): the literal in one copy, the punctuation
  /// as single bytes (a listing writes nine names a line).
  @inline(__always)
  private mutating func name(_ name: StaticString) {
    if first {
      first = false
    } else {
      bytes.append(UInt8(ascii: ","))
    }
    bytes.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
  }

  mutating func string(_ key: StaticString, _ value: String) {
    name(key)
    JSONText.appendString(value, to: &bytes)
  }

  /// A string member whose value is the program's own text (a line's `type`), which needs no
  /// escaping: copied without the scan `string` makes (a listing writes a million of these).
  mutating func literal(_ key: StaticString, _ value: StaticString) {
    name(key)
    bytes.append(UInt8(ascii: "\""))
    value.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
  }

  mutating func string(_ key: StaticString, _ value: String?) {
    if let value { string(key, value) }
  }

  mutating func int(_ key: StaticString, _ value: Int64) {
    name(key)
    DecimalText.append(value, to: &bytes)
  }

  /// A time as an RFC 3339 string with the service's precision.
  mutating func time(_ key: StaticString, _ value: Timestamp?) {
    guard let value else { return }
    name(key)
    bytes.append(UInt8(ascii: "\""))
    value.appendRFC3339(to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }

  mutating func int(_ key: StaticString, _ value: Int64?) {
    if let value { int(key, value) }
  }

  mutating func bool(_ key: StaticString, _ value: Bool?) {
    guard let value else { return }
    name(key)
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  /// User metadata as a JSON object, its members in the order given.
  mutating func metadata(_ key: StaticString, _ entries: [MetadataEntry]) {
    name(key)
    bytes.append(UInt8(ascii: "{"))
    for (index, entry) in entries.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      JSONText.appendString(entry.name, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      JSONText.appendString(entry.value, to: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  /// Numbers as a JSON array.
  mutating func ints(_ key: StaticString, _ values: [Int64]) {
    name(key)
    bytes.append(UInt8(ascii: "["))
    for (index, value) in values.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      DecimalText.append(value, to: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  mutating func raw(_ key: StaticString, json: String) {
    name(key)
    bytes.append(contentsOf: json.utf8)
  }

  /// Closes the object and the line.
  mutating func finish() -> [UInt8] {
    close()
    return bytes
  }

  private mutating func close() {
    bytes.append(UInt8(ascii: "}"))
    bytes.append(UInt8(ascii: "\n"))
  }
}

/// JSON Lines lines written in place into an output's buffer (`OutputStream.jsonLines`): only
/// whole lines from `JSONLine` can be added.
struct JSONLines {
  private var bytes: [UInt8]

  /// Runs `body` on lines that append to `buffer` in place (moved in and back, never copied).
  static func append(to buffer: inout [UInt8], _ body: (inout JSONLines) -> Void) {
    var lines = JSONLines(bytes: [])
    swap(&lines.bytes, &buffer)
    body(&lines)
    swap(&lines.bytes, &buffer)
  }

  /// Appends one object line.
  mutating func line(_ body: (inout JSONLine) -> Void) {
    JSONLine.append(to: &bytes, body)
  }
}

@available(*, unavailable)
extension JSONLines: Sendable {}
