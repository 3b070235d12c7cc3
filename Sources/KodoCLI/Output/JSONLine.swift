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

  /// Members written by `body` into `room` bytes reserved at once (`JSONMembers`, the one
  /// writer of members): a listing line's fields take one capacity check, not one each.
  @inline(__always)
  mutating func members(room: Int, _ body: (inout JSONMembers) -> Void) {
    guard room > 0 else { return }
    var first = self.first
    bytes.append(addingCapacity: room) { span in
      span.withUnsafeMutableBufferPointer { buffer, count in
        guard let base = buffer.baseAddress else { return }
        var members = JSONMembers(out: base, capacity: buffer.count, first: first)
        body(&members)
        count = members.count
        first = members.first
      }
    }
    self.first = first
  }

  mutating func string(_ key: StaticString, _ value: String?) {
    members(room: JSONMembers.room(key, string: value)) { $0.string(key, value) }
  }

  /// A string member whose value is the program's own text (a line's `type`).
  mutating func literal(_ key: StaticString, _ value: StaticString) {
    let room = JSONMembers.room(key, value: JSONText.stringRoom(value.utf8CodeUnitCount))
    members(room: room) { $0.literal(key, value) }
  }

  mutating func int(_ key: StaticString, _ value: Int64?) {
    members(room: JSONMembers.room(key, int: value)) { $0.int(key, value) }
  }

  /// A time as an RFC 3339 string with the service's precision.
  mutating func time(_ key: StaticString, _ value: Timestamp?) {
    members(room: JSONMembers.room(key, time: value)) { $0.time(key, value) }
  }

  mutating func bool(_ key: StaticString, _ value: Bool?) {
    guard let value else { return }
    let text: StaticString = value ? "true" : "false"
    text.withUTF8Buffer { json in
      members(room: JSONMembers.room(key, value: json.count)) { $0.raw(key, json: json) }
    }
  }

  /// User metadata as a JSON object, its members in the order given.
  mutating func metadata(_ key: StaticString, _ entries: [MetadataEntry]) {
    members(room: JSONMembers.room(key, metadata: entries)) { $0.metadata(key, entries) }
  }

  /// Numbers as a JSON array.
  mutating func ints(_ key: StaticString, _ values: [Int64]) {
    members(room: JSONMembers.room(key, ints: values)) { $0.ints(key, values) }
  }

  mutating func raw(_ key: StaticString, json: String) {
    Array(json.utf8).withUnsafeBufferPointer { json in
      members(room: JSONMembers.room(key, value: json.count)) { $0.raw(key, json: json) }
    }
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
