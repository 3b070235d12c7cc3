/// JSON string literals written as bytes: the JSON string writer of the libraries and the CLI
/// (the CLI's output lines and `JSONValue`'s compact text use it).
package enum JSONText {
  private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

  /// Appends `value` as a JSON string, quotes included.
  ///
  /// UTF-8 is kept as is; `"`, `\` and control characters are escaped (`\n`, `\r`, `\t`, else
  /// `\u00XX`), and so are U+2028 and U+2029, which some JavaScript readers take for line breaks.
  /// With `asciiOnly`, every character outside printable ASCII is written as `\uXXXX` (UTF-16
  /// units), the form Qiniu's SDKs write policies in.
  package static func appendString(_ value: String, to bytes: inout [UInt8]) {
    // The concrete fast path (a listing writes millions of strings): no generic dispatch, and
    // the string's own bytes, borrowed (no copy of the string, no retain).
    let copied = value.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
      if mayNeedEscaping(buffer) { return false }
      bytes.append(UInt8(ascii: "\""))
      bytes.append(contentsOf: buffer)
      bytes.append(UInt8(ascii: "\""))
      return true
    }
    if copied != true { appendString(Substring(value), to: &bytes, asciiOnly: false) }
  }

  /// Appends `value` as a JSON string (see the `String` overload); with `asciiOnly`, every
  /// character outside printable ASCII is written as `\uXXXX`.
  package static func appendString(
    _ value: some StringProtocol, to bytes: inout [UInt8], asciiOnly: Bool
  ) {
    bytes.append(UInt8(ascii: "\""))
    if asciiOnly {
      for unit in value.utf16 {
        if unit >= 0x20 && unit < 0x7F && unit != 0x22 && unit != 0x5C {
          bytes.append(UInt8(unit))
        } else {
          appendEscape(UInt32(unit), to: &bytes)
        }
      }
      bytes.append(UInt8(ascii: "\""))
      return
    }
    let fast = value.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
      if mayNeedEscaping(buffer) { return false }
      bytes.append(contentsOf: buffer)
      return true
    }
    if fast != true {
      for scalar in value.unicodeScalars {
        switch scalar.value {
        case 0..<0x20, 0x22, 0x5C, 0x2028, 0x2029: appendEscape(scalar.value, to: &bytes)
        default: UTF8.encode(scalar) { bytes.append($0) }
        }
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// Whether UTF-8 `buffer` may hold a byte the writer escapes: `false` means it can be copied
  /// as it is. `"`, `\`, control characters, and 0xE2 (the lead byte of U+2028 and U+2029, and
  /// of other characters, which the scalar path then copies unchanged).
  ///
  /// Eight bytes at a time (`ByteWord`), then the remaining bytes one by one.
  @inline(__always)
  package static func mayNeedEscaping(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = buffer.count
    var index = 0
    if let base = buffer.baseAddress {
      let raw = UnsafeRawPointer(base)
      while index + 8 <= count {
        let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        let found =
          ByteWord.below(0x20, word) | ByteWord.equal(0x22, word) | ByteWord.equal(0x5C, word)
          | ByteWord.equal(0xE2, word)
        if found & ByteWord.highs != 0 { return true }
        index += 8
      }
    }
    while index < count {
      let byte = buffer[index]
      if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2 { return true }
      index += 1
    }
    return false
  }

  /// Appends UTF-8 `bytes` as a JSON string (as `appendString`; invalid UTF-8 is copied as is).
  package static func appendString(utf8 value: some Collection<UInt8>, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value {
      switch byte {
      case 0..<0x20, 0x22, 0x5C: appendEscape(UInt32(byte), to: &bytes)
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private static func appendEscape(_ value: UInt32, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\\"))
    switch value {
    case 0x22: bytes.append(UInt8(ascii: "\""))
    case 0x5C: bytes.append(UInt8(ascii: "\\"))
    case 0x0A: bytes.append(UInt8(ascii: "n"))
    case 0x0D: bytes.append(UInt8(ascii: "r"))
    case 0x09: bytes.append(UInt8(ascii: "t"))
    case 0x08: bytes.append(UInt8(ascii: "b"))
    case 0x0C: bytes.append(UInt8(ascii: "f"))
    default:
      bytes.append(UInt8(ascii: "u"))
      for shift in stride(from: 12, through: 0, by: -4) {
        bytes.append(hex[Int(value >> UInt32(shift) & 0xF)])
      }
    }
  }
}
