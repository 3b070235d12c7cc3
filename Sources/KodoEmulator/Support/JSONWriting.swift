import NIOCore
import StorageCore

/// Hand-written JSON into a `ByteBuffer`: the list and stat answers are on the hot path, so no
/// encoder, no intermediate strings, and no per-item formatting.
///
/// Strings that need no escaping (nearly all) are copied straight into the buffer; the others go
/// through StorageCore's `JSONText`, the package's one escaping rule.
extension ByteBuffer {
  /// Writes `bytes` (UTF-8) as a JSON string, quotes included.
  mutating func writeJSONString(_ bytes: some Collection<UInt8>) {
    guard Self.isPlain(bytes, lineSeparatorsToo: false) else {
      var escaped = [UInt8]()
      JSONText.appendString(utf8: bytes, to: &escaped)
      writeBytes(escaped)
      return
    }
    writeQuoted(bytes)
  }

  /// Writes a string as a JSON string (U+2028 and U+2029 escaped too, as `JSONText` does).
  mutating func writeJSONString(_ text: String) {
    guard Self.isPlain(text.utf8, lineSeparatorsToo: true) else {
      var escaped = [UInt8]()
      JSONText.appendString(text, to: &escaped)
      writeBytes(escaped)
      return
    }
    writeQuoted(text.utf8)
  }

  /// Whether `bytes` need no escaping: no control character, `"` or `\` (and, when asked, no
  /// 0xE2 byte, which starts U+2028 and U+2029).
  private static func isPlain(_ bytes: some Collection<UInt8>, lineSeparatorsToo: Bool) -> Bool {
    !bytes.contains { byte in
      byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        || (lineSeparatorsToo && byte == 0xE2)
    }
  }

  private mutating func writeQuoted(_ bytes: some Collection<UInt8>) {
    writeInteger(UInt8(ascii: "\""))
    writeBytes(bytes)
    writeInteger(UInt8(ascii: "\""))
  }

  /// Writes a decimal integer.
  mutating func writeDecimal(_ value: Int64) {
    if value < 0 {
      writeInteger(UInt8(ascii: "-"))
      writeDecimal(UInt64(value.magnitude))
    } else {
      writeDecimal(UInt64(value))
    }
  }

  /// Writes a decimal integer.
  mutating func writeDecimal(_ value: Int) {
    writeDecimal(Int64(value))
  }

  /// Writes a decimal integer.
  mutating func writeDecimal(_ value: UInt64) {
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
    writeInteger(UInt8(ascii: "\""))
    writeStaticString(name)
    writeStaticString("\":")
  }
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
