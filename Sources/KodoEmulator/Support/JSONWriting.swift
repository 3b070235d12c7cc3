import NIOCore
import StorageCore

/// Hand-written JSON into a `ByteBuffer`: the list and stat answers are on the hot path, so no
/// encoder, no intermediate strings, and no per-item formatting.
///
/// Strings that need no escaping (nearly all) are copied straight into the buffer; the others go
/// through StorageCore's `JSONText`, the package's one escaping rule. A run of members is written
/// at a raw pointer into room reserved once (`writeRaw`, `RawJSON`).
extension ByteBuffer {
  /// Writes `bytes` (UTF-8) as a JSON string, quotes included: `"`, `\` and control characters
  /// escaped (not U+2028 and U+2029: a key's bytes are copied as they are otherwise).
  mutating func writeJSONString(_ bytes: some Collection<UInt8>) {
    let written: Void? = bytes.withContiguousStorageIfAvailable { buffer in
      if JSONText.mayNeedEscaping(buffer) {
        writeEscapedKey(buffer)
      } else {
        writeRaw(room: buffer.count + 2) { $0.quoted(plain: buffer) }
      }
    }
    if written == nil { Array(bytes).withUnsafeBufferPointer { writeJSONString($0) } }
  }

  /// `writeJSONString(_:)` for bytes that may need escaping: the escaper of `JSONText`'s byte
  /// form, which leaves U+2028 and U+2029 as they are.
  private mutating func writeEscapedKey(_ bytes: UnsafeBufferPointer<UInt8>) {
    var escaped = [UInt8]()
    JSONText.appendString(utf8: bytes, to: &escaped)
    writeBytes(escaped)
  }

  /// Writes a string as a JSON string (U+2028 and U+2029 escaped too: `JSONText.write`).
  mutating func writeJSONString(_ text: String) {
    writeRaw(room: RawJSON.room(text)) { $0.string(text) }
  }

  /// Writes a decimal integer.
  mutating func writeDecimal(_ value: Int64) {
    writeRaw(room: DecimalText.maximumLength()) { $0.decimal(value) }
  }

  /// Writes a decimal integer.
  mutating func writeDecimal(_ value: Int) {
    writeDecimal(Int64(value))
  }

  /// Writes a decimal integer.
  mutating func writeDecimal(_ value: UInt64) {
    guard value > UInt64(Int64.max) else { return writeDecimal(Int64(value)) }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
    var count = 0
    var rest = value
    withUnsafeMutableBytes(of: &digits) { raw in
      repeat {
        raw[23 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
        count += 1
      } while rest > 0
      writeBytes(UnsafeRawBufferPointer(rebasing: raw[(24 - count)...]))
    }
  }

  /// Writes `"name":` for an object member name that needs no escaping.
  mutating func writeJSONName(_ name: StaticString) {
    writeRaw(room: name.utf8CodeUnitCount + 3) { json in
      json.literal("\"")
      json.literal(name)
      json.literal("\":")
    }
  }

  /// Writes what `body` writes through a `RawJSON` into `room` bytes reserved at once.
  @inline(__always)
  mutating func writeRaw(room: Int, _ body: (inout RawJSON) -> Void) {
    writeRawBytes(room: room, as: RawJSON.self, body)
  }
}

/// JSON written at a raw pointer into room reserved for it (`ByteBuffer.writeRaw`, over
/// `RawBytes`), with StorageCore's writers (`JSONText.write`, `DecimalText.write`).
struct RawJSON: RawBytesWriter {
  private(set) var bytes: RawBytes

  init(_ bytes: RawBytes) { self.bytes = bytes }

  /// The most bytes `string(_:)` writes for `text`.
  @inline(__always)
  static func room(_ text: String) -> Int { JSONText.stringRoom(text.utf8.count) }

  /// The most bytes `string(_:)` writes for `text`, when there is one.
  @inline(__always)
  static func room(_ text: String?) -> Int { text.map(room) ?? 0 }

  /// The program's own text (member names, punctuation).
  @inline(__always)
  mutating func literal(_ text: StaticString) { bytes.literal(text) }

  /// A string as a JSON string, quotes included (`JSONText.write`).
  @inline(__always)
  mutating func string(_ text: String) {
    RawBytes.withUTF8(text) { string(utf8: $0) }
  }

  @inline(__always)
  private mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
    bytes.write(room: JSONText.stringRoom(utf8.count)) { JSONText.write(utf8: utf8, to: $0) }
  }

  /// Bytes that need no escaping (`JSONText.mayNeedEscaping` said so), in quotes.
  @inline(__always)
  mutating func quoted(plain: UnsafeBufferPointer<UInt8>) {
    bytes.write(room: plain.count + 2) { out in
      out[0] = UInt8(ascii: "\"")
      let written = (out + 1).write(plain)
      out[written + 1] = UInt8(ascii: "\"")
      return written + 2
    }
  }

  @inline(__always)
  mutating func decimal(_ value: Int64) { bytes.decimal(value) }

  @inline(__always)
  mutating func decimal(_ value: Int) { decimal(Int64(value)) }
}

/// Builds a JSON body; the small answers (errors, bucket lists) use it.
enum JSONBody {
  /// `{"error":"MESSAGE"}`.
  static func error(_ message: String) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeStaticString("{\"error\":")
    buffer.writeJSONString(message)
    buffer.writeStaticString("}")
    return buffer
  }

  /// A JSON array of strings.
  static func stringArray(_ values: [String]) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeInteger(UInt8(ascii: "["))
    for (index, value) in values.enumerated() {
      if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
      buffer.writeJSONString(value)
    }
    buffer.writeInteger(UInt8(ascii: "]"))
    return buffer
  }
}
