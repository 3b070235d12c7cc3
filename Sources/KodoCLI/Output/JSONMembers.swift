import StorageCore

/// The members of one JSON object written at a raw pointer into room reserved for them at once
/// (`JSONLine.members(room:_:)`): the one writer of `JSONLine`'s members, so that a listing
/// line's nine members cost one capacity check, not one a member or a byte.
///
/// Each member first checks that its room (`room(_:value:)` and the others, the same figures the
/// reservation adds up) is left, and traps rather than write past it.
struct JSONMembers {
  private let out: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  /// The bytes written.
  private(set) var count = 0
  /// Whether no member has been written to the object yet (then no comma goes first).
  private(set) var first: Bool

  init(out: UnsafeMutablePointer<UInt8>, capacity: Int, first: Bool) {
    self.out = out
    self.capacity = capacity
    self.first = first
  }

  // MARK: - Room

  /// The room of a member named `name` whose value takes at most `value` bytes: a comma, the
  /// quoted name and a colon.
  @inline(__always)
  static func room(_ name: StaticString, value: Int) -> Int { name.utf8CodeUnitCount + 4 + value }

  @inline(__always)
  static func room(_ name: StaticString, string: String?) -> Int {
    guard let string else { return 0 }
    return room(name, value: JSONText.stringRoom(string.utf8.count))
  }

  @inline(__always)
  static func room(_ name: StaticString, text: InlineText?) -> Int {
    guard let text else { return 0 }
    return room(name, value: JSONText.stringRoom(text.utf8Count))
  }

  @inline(__always)
  static func room(_ name: StaticString, int: Int64?) -> Int {
    int == nil ? 0 : room(name, value: DecimalText.maximumLength())
  }

  @inline(__always)
  static func room(_ name: StaticString, time: Timestamp?) -> Int {
    time == nil ? 0 : room(name, value: Timestamp.rfc3339MaximumLength + 2)
  }

  static func room(_ name: StaticString, metadata: [MetadataEntry]) -> Int {
    var value = 2
    for entry in metadata {
      value += 2 + JSONText.stringRoom(entry.name.utf8.count)
      value += JSONText.stringRoom(entry.value.utf8.count)
    }
    return room(name, value: value)
  }

  static func room(_ name: StaticString, ints: [Int64]) -> Int {
    room(name, value: 2 + ints.count * (1 + DecimalText.maximumLength()))
  }

  // MARK: - Members

  /// `,"name":` (no comma before the first member), after checking that `valueRoom` is left
  /// after it.
  @inline(__always)
  private mutating func name(_ name: StaticString, valueRoom: Int) {
    precondition(count + Self.room(name, value: valueRoom) <= capacity, "JSONMembers: no room")
    out[count] = UInt8(ascii: ",")
    count += first ? 0 : 1
    first = false
    out[count] = UInt8(ascii: "\"")
    count += 1 + (out + count + 1).write(name)
    out[count] = UInt8(ascii: "\"")
    out[count + 1] = UInt8(ascii: ":")
    count += 2
  }

  /// Calls `body` with `value`'s UTF-8, borrowed where it lies (no copy of the string, no
  /// retain). The UTF-8 span is new in macOS 26; before it, the contiguous storage (a copy for a
  /// bridged string).
  @inline(__always)
  private static func withUTF8(
    _ value: borrowing String, _ body: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
      value.utf8.span.withUnsafeBufferPointer(body)
    } else {
      let done: Void? = value.utf8.withContiguousStorageIfAvailable(body)
      if done == nil { Array(value.utf8).withUnsafeBufferPointer(body) }
    }
  }

  @inline(__always)
  mutating func string(_ key: StaticString, _ value: borrowing String) {
    Self.withUTF8(value) { string(key, utf8: $0) }
  }

  @inline(__always)
  mutating func string(_ key: StaticString, _ value: String?) {
    if let value { string(key, value) }
  }

  /// A string member from a `InlineText`: inline ASCII with nothing to escape (a qetag, an MD5)
  /// is copied between the quotes as it is, anything else goes through the escaper.
  @inline(__always)
  mutating func text(_ key: StaticString, _ value: InlineText?) {
    guard let value else { return }
    name(key, valueRoom: JSONText.stringRoom(value.utf8Count))
    if let written = value.writePlainJSON(to: out + count) {
      count += written
    } else {
      value.withUTF8 { count += JSONText.write(utf8: $0, to: out + count) }
    }
  }

  /// A string member from the valid UTF-8 of a `String`.
  @inline(__always)
  private mutating func string(_ key: StaticString, utf8: UnsafeBufferPointer<UInt8>) {
    name(key, valueRoom: JSONText.stringRoom(utf8.count))
    count += JSONText.write(utf8: utf8, to: out + count)
  }

  /// A string member whose value is the program's own text (a line's `type`).
  mutating func literal(_ key: StaticString, _ value: StaticString) {
    value.withUTF8Buffer { string(key, utf8: $0) }
  }

  @inline(__always)
  mutating func int(_ key: StaticString, _ value: Int64?) {
    guard let value else { return }
    name(key, valueRoom: DecimalText.maximumLength())
    count += DecimalText.write(value, to: out + count)
  }

  /// A time as an RFC 3339 string with the service's precision.
  @inline(__always)
  mutating func time(_ key: StaticString, _ value: Timestamp?) {
    guard let value else { return }
    name(key, valueRoom: Timestamp.rfc3339MaximumLength + 2)
    out[count] = UInt8(ascii: "\"")
    count += 1 + value.writeRFC3339(to: out + count + 1)
    out[count] = UInt8(ascii: "\"")
    count += 1
  }

  /// User metadata as a JSON object, its members in the order given.
  mutating func metadata(_ key: StaticString, _ entries: [MetadataEntry]) {
    name(key, valueRoom: Self.room(key, metadata: entries) - Self.room(key, value: 0))
    out[count] = UInt8(ascii: "{")
    count += 1
    for (index, entry) in entries.enumerated() {
      if index > 0 {
        out[count] = UInt8(ascii: ",")
        count += 1
      }
      Self.withUTF8(entry.name) { count += JSONText.write(utf8: $0, to: out + count) }
      out[count] = UInt8(ascii: ":")
      count += 1
      Self.withUTF8(entry.value) { count += JSONText.write(utf8: $0, to: out + count) }
    }
    out[count] = UInt8(ascii: "}")
    count += 1
  }

  /// Numbers as a JSON array.
  mutating func ints(_ key: StaticString, _ values: [Int64]) {
    name(key, valueRoom: Self.room(key, ints: values) - Self.room(key, value: 0))
    out[count] = UInt8(ascii: "[")
    count += 1
    for (index, value) in values.enumerated() {
      if index > 0 {
        out[count] = UInt8(ascii: ",")
        count += 1
      }
      count += DecimalText.write(value, to: out + count)
    }
    out[count] = UInt8(ascii: "]")
    count += 1
  }

  /// Bytes that are already JSON (`json`'s UTF-8, `true`, `false`).
  mutating func raw(_ key: StaticString, json: UnsafeBufferPointer<UInt8>) {
    name(key, valueRoom: json.count)
    count += (out + count).write(json)
  }
}
