/// Base64 with the URL-safe alphabet (`-` and `_`), as every Qiniu SDK writes it.
///
/// Encoding always keeps the `=` padding, which Kodo's tokens and `EncodedEntryURI` include.
/// Decoding accepts padded and unpadded input, but only the URL-safe alphabet.
package enum URLSafeBase64 {
  private static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  private static let decodeTable: [Int8] = {
    var table = [Int8](repeating: -1, count: 256)
    for (index, byte) in alphabet.enumerated() { table[Int(byte)] = Int8(index) }
    return table
  }()

  /// Encodes bytes, keeping `=` padding.
  ///
  /// Generic, so it runs unspecialised when called from another module (`package` functions are
  /// not offered to cross-module optimisation): callers with an array get the overload below.
  package static func encode(_ bytes: some Collection<UInt8>) -> String {
    encode(Array(bytes))
  }

  /// Encodes bytes, keeping `=` padding.
  package static func encode(_ bytes: [UInt8]) -> String {
    var output = [UInt8]()
    output.reserveCapacity((bytes.count + 2) / 3 * 4)
    bytes.withUnsafeBufferPointer { append($0, to: &output) }
    return String(decoding: output, as: UTF8.self)
  }

  /// Appends the encoding of `input`, with `=` padding, to `output`.
  package static func append(_ input: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
    let count = (input.count + 2) / 3 * 4
    // Written into a buffer of its own, then appended at once: one capacity check, not four a
    // group of three bytes.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { encoded in
      alphabet.withUnsafeBufferPointer { alphabet in
        var index = 0
        var next = 0
        func put(_ byte: UInt8) {
          encoded.initializeElement(at: next, to: byte)
          next += 1
        }
        while index + 3 <= input.count {
          let chunk =
            UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
          put(alphabet[Int(chunk >> 18 & 63)])
          put(alphabet[Int(chunk >> 12 & 63)])
          put(alphabet[Int(chunk >> 6 & 63)])
          put(alphabet[Int(chunk & 63)])
          index += 3
        }
        let remaining = input.count - index
        if remaining == 1 {
          let chunk = UInt32(input[index]) << 16
          put(alphabet[Int(chunk >> 18 & 63)])
          put(alphabet[Int(chunk >> 12 & 63)])
          put(UInt8(ascii: "="))
          put(UInt8(ascii: "="))
        } else if remaining == 2 {
          let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
          put(alphabet[Int(chunk >> 18 & 63)])
          put(alphabet[Int(chunk >> 12 & 63)])
          put(alphabet[Int(chunk >> 6 & 63)])
          put(UInt8(ascii: "="))
        }
      }
      output.append(contentsOf: UnsafeBufferPointer(encoded))
    }
  }

  /// Encodes the UTF-8 bytes of a string, keeping `=` padding.
  package static func encode(_ string: String) -> String {
    encode(Array(string.utf8))
  }

  /// Decodes URL-safe base64, padded or not.
  ///
  /// - Returns: the bytes, or `nil` when the input has characters outside the URL-safe alphabet,
  ///   misplaced padding, or a length no encoder produces.
  package static func decode(_ string: String) -> [UInt8]? {
    var symbols = Array(string.utf8)
    var padding = 0
    while symbols.last == UInt8(ascii: "=") {
      symbols.removeLast()
      padding += 1
    }
    if padding > 2 { return nil }
    if padding > 0 && (symbols.count + padding) % 4 != 0 { return nil }
    if symbols.count % 4 == 1 { return nil }
    var output = [UInt8]()
    output.reserveCapacity(symbols.count * 3 / 4)
    var accumulator: UInt32 = 0
    var bits = 0
    for symbol in symbols {
      let value = decodeTable[Int(symbol)]
      if value < 0 { return nil }
      accumulator = accumulator << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      }
    }
    // Leftover bits must be zero, as a canonical encoder leaves them.
    if bits > 0 && accumulator & ((1 << UInt32(bits)) - 1) != 0 { return nil }
    return output
  }
}
