/// Strings from bytes that must be UTF-8, built without the standard library's generic
/// validator (`String(validating:as:)` looks up generic metadata on every call, which a
/// listing of a million objects pays several million times).
package enum UTF8Text {
  /// The string of `bytes`, or `nil` when they are not valid UTF-8.
  ///
  /// ASCII (the common case) is copied as it is. Other text is decoded, which repairs invalid
  /// sequences with U+FFFD, and then compared with the input: valid input is exactly what
  /// comes back, so a repaired sequence is caught.
  @inline(__always)
  package static func validating(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    if isASCII(bytes) { return text }
    return text.utf8.elementsEqual(bytes) ? text : nil
  }

  /// Whether every byte is below 0x80.
  @inline(__always)
  package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var bits: UInt8 = 0
    for byte in bytes { bits |= byte }
    return bits < 0x80
  }

  /// `text` with ASCII capitals made small, as `lowercased()` does for ASCII; other text goes
  /// through `lowercased()`.
  package static func lowercased(_ text: String) -> String {
    var text = text
    return text.withUTF8 { bytes in
      guard isASCII(bytes) else { return String(decoding: bytes, as: UTF8.self).lowercased() }
      guard bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
        return String(decoding: bytes, as: UTF8.self)
      }
      return String(unsafeUninitializedCapacity: bytes.count) { output in
        for (index, byte) in bytes.enumerated() {
          output[index] =
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }
        return bytes.count
      }
    }
  }
}
