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

  /// `,"name":` (no comma before the first member), in one append: a listing writes eight
  /// names a line.
  private mutating func name(_ name: StaticString) {
    let comma = first ? 0 : 1
    first = false
    name.withUTF8Buffer { literal in
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: literal.count + 4) { scratch in
        scratch[0] = UInt8(ascii: ",")
        scratch[comma] = UInt8(ascii: "\"")
        for offset in 0..<literal.count { scratch[comma + 1 + offset] = literal[offset] }
        scratch[comma + 1 + literal.count] = UInt8(ascii: "\"")
        scratch[comma + 2 + literal.count] = UInt8(ascii: ":")
        bytes.append(
          contentsOf: UnsafeBufferPointer(rebasing: scratch[..<(comma + 3 + literal.count)]))
      }
    }
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

  mutating func map(_ key: StaticString, _ value: UserMetadata?) {
    guard let value else { return }
    name(key)
    bytes.append(UInt8(ascii: "{"))
    for (index, entry) in value.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      JSONText.appendString(entry.key, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      JSONText.appendString(entry.value, to: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
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

extension ObjectEntry {
  /// The contract's object fields (without `type`), appended to a JSON line: the fields both
  /// providers share by meaning under the same names, and each provider's own only when set.
  func appendJSONFields(to line: inout JSONLine) {
    line.string("key", key)
    line.int("size", size)
    line.string("hash", hash)
    line.string("etag", etag)
    line.string("mimeType", mimeType)
    line.time("putTime", putTime)
    line.string("storageClass", storageClass.name)
    line.string("status", status?.name)
    line.string("objectType", objectType)
    line.string("md5", md5)
    line.string("endUser", endUser)
    line.map("meta", meta)
    line.string("restoreStatus", restoreStatus?.name)
    line.time("lastModified", lastModified)
  }
}

extension ObjectDetails {
  /// The contract's `stat` fields: the object's, then what only a stat has.
  func appendJSONFields(to line: inout JSONLine) {
    object.appendJSONFields(to: &line)
    line.string("crc64", crc64)
    line.string("expiration", expiration.map(Timestamp.rfc3339(unixSeconds:)))
    line.string("transitionToIA", transitionToIA.map(Timestamp.rfc3339(unixSeconds:)))
    line.string(
      "transitionToArchiveIR", transitionToArchiveIR.map(Timestamp.rfc3339(unixSeconds:)))
    line.string("transitionToArchive", transitionToArchive.map(Timestamp.rfc3339(unixSeconds:)))
    line.string(
      "transitionToDeepArchive", transitionToDeepArchive.map(Timestamp.rfc3339(unixSeconds:)))
  }
}
