import Foundation
import KodoCore
import StorageCore

/// Text formats for people: sizes, times, escaped keys.
enum Human {
  /// `66441` → `64.9 KiB`; bytes below 1 KiB as `512 B`.
  static func size(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    return String(format: value >= 100 ? "%.0f %@" : "%.1f %@", value, units[unit])
  }

  /// Local time, `2016-02-25 11:51`, for Unix seconds.
  static func localTime(_ unixSeconds: Int64) -> String {
    var seconds = time_t(unixSeconds)
    var parts = tm()
    localtime_r(&seconds, &parts)
    return String(
      format: "%04d-%02d-%02d %02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
  }

  /// Local time with seconds and zone, `2016-02-25 11:51:13 +0800`.
  static func localTimeLong(_ unixSeconds: Int64) -> String {
    var seconds = time_t(unixSeconds)
    var parts = tm()
    localtime_r(&seconds, &parts)
    let offset = Int(parts.tm_gmtoff)
    let sign = offset < 0 ? "-" : "+"
    return String(
      format: "%04d-%02d-%02d %02d:%02d:%02d %@%02d%02d", Int(parts.tm_year) + 1900,
      Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min),
      Int(parts.tm_sec), sign, abs(offset) / 3600, abs(offset) % 3600 / 60)
  }

  static func padLeft(_ text: String, _ width: Int) -> String {
    let count = text.count
    return count >= width ? text : String(repeating: " ", count: width - count) + text
  }

  static func padRight(_ text: String, _ width: Int) -> String {
    let count = text.count
    return count >= width ? text : text + String(repeating: " ", count: width - count)
  }
}

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
  static func append(to buffer: inout [UInt8], _ body: (inout JSONLine) -> Void) {
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

  private mutating func name(_ name: StaticString) {
    if !first { bytes.append(UInt8(ascii: ",")) }
    first = false
    bytes.append(UInt8(ascii: "\""))
    name.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
  }

  mutating func string(_ key: StaticString, _ value: String) {
    name(key)
    JSONLine.appendString(value, to: &bytes)
  }

  mutating func string(_ key: StaticString, _ value: String?) {
    if let value { string(key, value) }
  }

  mutating func int(_ key: StaticString, _ value: Int64) {
    name(key)
    DecimalText.append(value, to: &bytes)
  }

  /// A Kodo time (100 ns units) as an RFC 3339 string with seven fractional digits.
  mutating func time(_ key: StaticString, hundredNanoseconds value: Int64?) {
    guard let value else { return }
    name(key)
    bytes.append(UInt8(ascii: "\""))
    KodoTime.appendRFC3339(hundredNanoseconds: value, to: &bytes)
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

  mutating func map(_ key: StaticString, _ value: [String: String]?) {
    guard let value else { return }
    name(key)
    bytes.append(UInt8(ascii: "{"))
    for (index, entry) in value.sorted(by: { $0.key < $1.key }).enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      JSONLine.appendString(entry.key, to: &bytes)
      bytes.append(UInt8(ascii: ":"))
      JSONLine.appendString(entry.value, to: &bytes)
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

  /// A JSON string, UTF-8 kept as is (see `JSONText.appendString`).
  @inline(__always)
  static func appendString(_ value: String, to bytes: inout [UInt8]) {
    JSONText.appendString(value, to: &bytes)
  }
}

extension ObjectEntry {
  /// The contract's object fields (without `type`), appended to a JSON line.
  func appendJSONFields(to line: inout JSONLine) {
    line.string("key", key)
    line.int("size", size)
    line.string("hash", hash)
    line.string("mimeType", mimeType)
    line.time("putTime", hundredNanoseconds: putTime)
    line.string("storageClass", storageClass.name)
    line.string("status", status.name)
    line.string("md5", md5)
    line.string("endUser", endUser)
    line.map("meta", meta)
    line.string("restoreStatus", restoreStatus?.name)
    line.time("lastModified", hundredNanoseconds: lastModify)
  }
}
