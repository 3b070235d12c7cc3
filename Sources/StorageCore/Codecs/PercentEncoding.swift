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
    output.appendBytes(upTo: encodedRoom(bytes.count)) {
      write(bytes, keepSlash: keepSlash, to: $0)
    }
  }

  /// The most bytes `write` writes for `count` bytes (three for each).
  @inlinable @inline(__always)
  package static func encodedRoom(_ count: Int) -> Int { 3 * count }

  /// Writes UTF-8 `bytes` encoded as `append` encodes them at `out`, which has room for
  /// `encodedRoom(bytes.count)` bytes; returns how many it wrote (the one encoder: `append` and
  /// the emulator's listing writer use it). Runs of bytes that stay as they are (most keys: all
  /// of them) are found eight at a time and copied at once.
  package static func write(
    _ bytes: UnsafeBufferPointer<UInt8>, keepSlash: Bool, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    guard let base = bytes.baseAddress else { return 0 }
    var count = 0
    var start = 0
    var index = nextEncoded(base, bytes.count, from: 0, keepSlash: keepSlash)
    while index < bytes.count {
      let byte = base[index]
      (out + count).initialize(from: base + start, count: index - start)
      count += index - start
      out[count] = UInt8(ascii: "%")
      out[count + 1] = hexDigit(byte >> 4)
      out[count + 2] = hexDigit(byte & 15)
      count += 3
      start = index + 1
      index = nextEncoded(base, bytes.count, from: start, keepSlash: keepSlash)
    }
    (out + count).initialize(from: base + start, count: bytes.count - start)
    return count + bytes.count - start
  }

  /// The place of the first byte at or after `from` that `write` encodes, or `count`: eight
  /// bytes at a time while eight are left, then one at a time.
  @inline(__always)
  private static func nextEncoded(
    _ base: UnsafePointer<UInt8>, _ count: Int, from: Int, keepSlash: Bool
  ) -> Int {
    var index = from
    let raw = UnsafeRawPointer(base)
    while index + 8 <= count {
      let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      let lanes = encodedLanes(word, keepSlash: keepSlash)
      if lanes != 0 { return index + lanes.trailingZeroBitCount >> 3 }
      index += 8
    }
    while index < count, isUnreserved(base[index]) || (keepSlash && base[index] == 0x2F) {
      index += 1
    }
    return index
  }

  /// The high bit of each byte of `word` that `write` encodes (every byte outside the
  /// unreserved set, and `/` unless `keepSlash`), the others clear. Each byte's low seven bits
  /// are compared with the bounds of the set's ranges by adding `0x80 - bound` in its lane
  /// (below 0x100, so no lane carries into the next): its high bit is then whether it is at
  /// least `bound`.
  @inline(__always)
  private static func encodedLanes(_ word: UInt64, keepSlash: Bool) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high: UInt64 = 0x8080_8080_8080_8080
    let low = word & ~high
    let folded = low | 0x20 &* ones  // A–Z as a–z; nothing else lands in a–z
    @inline(__always) func atLeast(_ value: UInt64, _ bound: UInt64) -> UInt64 {
      (value &+ (0x80 &- bound) &* ones) & high
    }
    let letter = atLeast(folded, 0x61) & ~atLeast(folded, 0x7B)
    let digit = atLeast(low, 0x30) & ~atLeast(low, 0x3A)
    let dashOrDot = atLeast(low, 0x2D) & ~atLeast(low, 0x2F)
    let underscore = atLeast(low, 0x5F) & ~atLeast(low, 0x60)
    let tilde = atLeast(low, 0x7E) & ~atLeast(low, 0x7F)
    var kept = letter | digit | dashOrDot | underscore | tilde
    if keepSlash { kept |= atLeast(low, 0x2F) & ~atLeast(low, 0x30) }
    // A byte from 0x80 up is never kept.
    return ~(kept & ~word) & high
  }

  /// The unreserved bytes below 64 (`-`, `.`, `0`–`9`), bit `byte`.
  private static var unreservedBelow64: UInt64 { 1 << 0x2D | 1 << 0x2E | 0x3FF << 0x30 }
  /// The unreserved bytes from 64 to 127 (`A`–`Z`, `_`, `a`–`z`, `~`), bit `byte - 64`.
  private static var unreservedFrom64: UInt64 {
    0x3FF_FFFF << 1 | 1 << (0x5F - 64) | 0x3FF_FFFF << (0x61 - 64) | 1 << (0x7E - 64)
  }

  /// An upper-case hex digit for a value under 16.
  @inline(__always)
  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "A") &+ (value &- 10)
  }

  /// Whether `byte` is in RFC 3986's unreserved set, `A–Z a–z 0–9 - _ . ~` (one bit each).
  @inline(__always)
  private static func isUnreserved(_ byte: UInt8) -> Bool {
    byte < 64
      ? (unreservedBelow64 >> UInt64(byte)) & 1 != 0
      : byte < 128 && (unreservedFrom64 >> UInt64(byte &- 64)) & 1 != 0
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
