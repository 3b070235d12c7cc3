/// Percent-encoding of keys and parameters in URLs (Kodo download paths, OSS paths and queries),
/// and the strict decoding of percent-encoded answers.
package enum PercentEncoding {

  /// Encodes a key for a download URL's path: every UTF-8 byte except `A–Z a–z 0–9 - _ . ~ /`
  /// becomes `%XX` with uppercase hex.
  package static func encodePath(_ key: String) -> String {
    encode(key, keepSlash: true)
  }

  /// Encodes a query value with the RFC 3986 unreserved set `A–Z a–z 0–9 - _ . ~`.
  package static func encodeQueryValue(_ value: String) -> String {
    encode(value, keepSlash: false)
  }

  /// Reverses `encodePath`/`encodeQueryValue` (and any other percent-encoding).
  ///
  /// - Returns: `nil` when a `%` is not followed by two hex digits or the bytes are not UTF-8.
  package static func decode(_ encoded: String) -> String? {
    var encoded = encoded
    return encoded.withUTF8 { decode(utf8: $0) }
  }

  /// Decodes the `%XX` escapes in UTF-8 bytes, strictly: a `+` stays a `+` (this is not form
  /// decoding), a `%` must be followed by two hex digits, and the result must be UTF-8.
  ///
  /// - Returns: the text, or `nil` when an escape is malformed or the bytes are not UTF-8.
  package static func decode(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String? {
    guard bytes.contains(UInt8(ascii: "%")) else {
      return UTF8Text.validating(bytes)
    }
    // Decoded into a scratch buffer (never longer than the input), checked once as UTF-8.
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { output in
      var count = 0
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%") {
          guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
            let low = hexValue(bytes[index + 2])
          else { return nil }
          output[count] = high << 4 | low
          index += 3
        } else {
          output[count] = byte
          index += 1
        }
        count += 1
      }
      return UTF8Text.validating(UnsafeBufferPointer(rebasing: output[0..<count]))
    }
  }

  /// Appends `key` encoded as `encodePath` encodes it to `bytes` (a URL built as bytes).
  package static func appendPath(_ key: String, to bytes: inout [UInt8]) {
    var key = key
    key.withUTF8 { append($0, keepSlash: true, to: &bytes) }
  }

  private static func encode(_ text: String, keepSlash: Bool) -> String {
    var output = [UInt8]()
    output.reserveCapacity(text.utf8.count)
    var text = text
    text.withUTF8 { append($0, keepSlash: keepSlash, to: &output) }
    return String(decoding: output, as: UTF8.self)
  }

  /// Appends UTF-8 `bytes` encoded as `encodeQueryValue` (or, `keepSlash`, `encodePath`)
  /// encodes them, building no string: listings encode every key this way.
  package static func append(
    _ bytes: UnsafeBufferPointer<UInt8>, keepSlash: Bool, to output: inout [UInt8]
  ) {
    // What precedes the first byte to escape (most keys: all of it) is copied in one go; the
    // rest is encoded into a scratch buffer (at most three bytes for each) and appended at once.
    let first =
      bytes.firstIndex { !isUnreserved($0) && !(keepSlash && $0 == UInt8(ascii: "/")) }
      ?? bytes.count
    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<first]))
    guard first < bytes.count else { return }
    let rest = UnsafeBufferPointer(rebasing: bytes[first...])
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: rest.count * 3) { scratch in
      var count = 0
      for byte in rest {
        if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
          scratch[count] = byte
          count += 1
        } else {
          scratch[count] = UInt8(ascii: "%")
          scratch[count + 1] = hexDigit(byte >> 4)
          scratch[count + 2] = hexDigit(byte & 15)
          count += 3
        }
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<count]))
    }
  }

  /// An upper-case hex digit for a value under 16.
  @inline(__always)
  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "A") &+ (value &- 10)
  }

  @inline(__always)
  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
      UInt8(ascii: "."), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}

/// Builds a raw query string in a fixed order, encoding each value with RFC 3986's unreserved set.
///
/// The result is exactly what is sent and signed, so `+`, `&`, `=` and `%` in values can never be
/// misread by the server.
package struct QueryString: Sendable, Equatable {
  /// The encoded `name=value` pairs, in order.
  package private(set) var pairs: [String] = []

  /// An empty query.
  package init() {}

  /// Appends `name=value` with the value percent-encoded.
  package mutating func append(_ name: String, _ value: String) {
    pairs.append(
      PercentEncoding.encodeQueryValue(name) + "=" + PercentEncoding.encodeQueryValue(value))
  }

  /// The raw query, without a leading `?`.
  package var encoded: String { pairs.joined(separator: "&") }
}
