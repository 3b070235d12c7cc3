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
    let copied: Void? = value.utf8.withContiguousStorageIfAvailable { buffer in
      bytes.appendBytes(upTo: stringRoom(buffer.count)) { write(utf8: buffer, to: $0) }
    }
    if copied == nil { appendString(Substring(value), to: &bytes, asciiOnly: false) }
  }

  /// The most bytes `write(utf8:to:)` writes for `count` bytes of UTF-8: the quotes, and six
  /// bytes a byte (`\u00XX` for a control character; `\u2028` for the three of U+2028).
  @inlinable @inline(__always)
  package static func stringRoom(_ count: Int) -> Int { 2 + 6 * count }

  /// Writes valid UTF-8 `value` as a JSON string, quotes included, at `out`, which has room for
  /// `stringRoom(value.count)` bytes; returns how many bytes it wrote. The escaper of
  /// `appendString(_:to:)` and of the CLI's lines: plain text (the usual) is copied whole.
  package static func write(
    utf8 value: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>
  )
    -> Int
  {
    out[0] = UInt8(ascii: "\"")
    var at = 1
    if copyIfPlain(value, to: out + 1) {
      at += value.count
    } else {
      var index = 0
      while index < value.count {
        let byte = value[index]
        index += 1
        switch byte {
        case 0..<0x20, 0x22, 0x5C: at += writeEscape(UInt32(byte), to: out + at)
        case 0xE2
        where index + 1 < value.count && value[index] == 0x80
          && (value[index + 1] == 0xA8 || value[index + 1] == 0xA9):
          // U+2028 and U+2029.
          at += writeEscape(value[index + 1] == 0xA8 ? 0x2028 : 0x2029, to: out + at)
          index += 2
        default:
          out[at] = byte
          at += 1
        }
      }
    }
    out[at] = UInt8(ascii: "\"")
    return at + 1
  }

  /// Appends `value` as a JSON string (see the `String` overload); with `asciiOnly`, every
  /// character outside printable ASCII is written as `\uXXXX`.
  package static func appendString(
    _ value: some StringProtocol, to bytes: inout [UInt8], asciiOnly: Bool
  ) {
    guard asciiOnly else {
      let written: Void? = value.utf8.withContiguousStorageIfAvailable { buffer in
        bytes.appendBytes(upTo: stringRoom(buffer.count)) { write(utf8: buffer, to: $0) }
      }
      if written == nil {
        Array(value.utf8).withUnsafeBufferPointer { buffer in
          bytes.appendBytes(upTo: stringRoom(buffer.count)) { write(utf8: buffer, to: $0) }
        }
      }
      return
    }
    bytes.append(UInt8(ascii: "\""))
    for unit in value.utf16 {
      if unit >= 0x20 && unit < 0x7F && unit != 0x22 && unit != 0x5C {
        bytes.append(UInt8(unit))
      } else {
        appendEscape(UInt32(unit), to: &bytes)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// Whether UTF-8 `buffer` may hold a byte the writer escapes: `false` means it can be copied
  /// as it is. `"`, `\`, control characters, and 0xE2 (the lead byte of U+2028 and U+2029, and
  /// of other characters, which `write(utf8:to:)` then copies unchanged).
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
        if escapeMarks(word) & ByteWord.highs != 0 { return true }
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

  /// Copies `value` to `out` and returns `true` when it holds no byte the writer escapes (see
  /// `mayNeedEscaping`); otherwise returns `false` (what it copied is then written over). One
  /// pass, a word at a time: the last word (or, below eight bytes, the last four) is loaded where
  /// it ends, overlapping the one before, so no byte is handled on its own from four bytes up.
  @inline(__always)
  package static func copyIfPlain(
    _ value: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>
  ) -> Bool {
    let count = value.count
    guard let base = value.baseAddress, count > 0 else { return true }
    let source = UnsafeRawPointer(base)
    let target = UnsafeMutableRawPointer(out)
    if count >= 8 {
      var marks: UInt64 = 0
      var index = 0
      while index + 8 < count {
        let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        marks |= escapeMarks(word)
        target.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
        index += 8
      }
      let last = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
      target.storeBytes(of: last, toByteOffset: count - 8, as: UInt64.self)
      return (marks | escapeMarks(last)) & ByteWord.highs == 0
    }
    if count >= 4 {
      let first = source.loadUnaligned(as: UInt32.self)
      let last = source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
      target.storeBytes(of: first, as: UInt32.self)
      target.storeBytes(of: last, toByteOffset: count - 4, as: UInt32.self)
      return escapeMarks(UInt64(first) | UInt64(last) << 32) & ByteWord.highs == 0
    }
    var plain = true
    for index in 0..<count {
      let byte = value[index]
      out[index] = byte
      plain = plain && byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0xE2
    }
    return plain
  }

  /// The marks (`ByteWord`) of the bytes of `word` the writer may escape: `"`, `\`, control
  /// characters and 0xE2.
  @inline(__always)
  static func escapeMarks(_ word: UInt64) -> UInt64 {
    ByteWord.below(0x20, word) | ByteWord.equal(0x22, word) | ByteWord.equal(0x5C, word)
      | ByteWord.equal(0xE2, word)
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
    bytes.appendBytes(upTo: 6) { writeEscape(value, to: $0) }
  }

  /// Writes the escape of `value` (a character below U+10000) at `out`, which has room for 6
  /// bytes: the short forms where JSON has them, else `\uXXXX`; returns its length.
  private static func writeEscape(_ value: UInt32, to out: UnsafeMutablePointer<UInt8>) -> Int {
    out[0] = UInt8(ascii: "\\")
    let short: UInt8
    switch value {
    case 0x22: short = UInt8(ascii: "\"")
    case 0x5C: short = UInt8(ascii: "\\")
    case 0x0A: short = UInt8(ascii: "n")
    case 0x0D: short = UInt8(ascii: "r")
    case 0x09: short = UInt8(ascii: "t")
    case 0x08: short = UInt8(ascii: "b")
    case 0x0C: short = UInt8(ascii: "f")
    default:
      out[1] = UInt8(ascii: "u")
      out[2] = hex[Int(value >> 12 & 0xF)]
      out[3] = hex[Int(value >> 8 & 0xF)]
      out[4] = hex[Int(value >> 4 & 0xF)]
      out[5] = hex[Int(value & 0xF)]
      return 6
    }
    out[1] = short
    return 2
  }
}
