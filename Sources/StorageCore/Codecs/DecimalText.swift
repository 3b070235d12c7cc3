/// Integers as decimal ASCII bytes, appended straight into an output buffer (no `String`).
package enum DecimalText {
  /// Appends `value` in decimal, zero-padded to at least `minimumDigits` digits after any `-`:
  /// `append(7, minimumDigits: 2)` → `07`, `append(-12)` → `-12`.
  @inline(__always)
  package static func append(_ value: Int64, minimumDigits: Int = 1, to bytes: inout [UInt8]) {
    bytes.appendBytes(upTo: maximumLength(minimumDigits: minimumDigits)) {
      write(value, minimumDigits: minimumDigits, to: $0)
    }
  }

  /// The most bytes `write` writes with `minimumDigits`: a sign and 19 digits, or the padding.
  @inlinable @inline(__always)
  package static func maximumLength(minimumDigits: Int = 1) -> Int {
    1 + max(19, minimumDigits)
  }

  /// Writes `value` as `append` does at `out`, which has room for
  /// `maximumLength(minimumDigits:)` bytes; returns how many it wrote.
  @inlinable @inline(__always)
  package static func write(
    _ value: Int64, minimumDigits: Int = 1, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    var magnitude = value.magnitude
    var start = 0
    if value < 0 {
      out[0] = UInt8(ascii: "-")
      start = 1
    }
    // The digits are written from the end back, the padding zeros with them.
    var end = start + max(digitCount(magnitude), minimumDigits)
    let written = end
    repeat {
      end -= 1
      out[end] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
      magnitude /= 10
    } while end > start
    return written
  }

  /// The number of decimal digits of `value` (1 for 0).
  @inlinable @inline(__always)
  static func digitCount(_ value: UInt64) -> Int {
    var count = 1
    var bound: UInt64 = 10
    while count < 20, value >= bound {
      count += 1
      bound = count < 20 ? bound &* 10 : .max
    }
    return count
  }

  /// The value of unsigned decimal digits (no sign, no spaces, at least one digit), or `nil`
  /// when there is another byte or the value does not fit in an Int64. Never traps.
  package static func parse(_ digits: some Collection<UInt8>) -> Int64? {
    if let value = digits.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return value }
    return Array(digits).withUnsafeBufferPointer { parse(bytes: $0) }
  }

  /// `parse` over a buffer: not generic, so that a caller in another module does not go
  /// through the unspecialised generic one (metadata look-ups for every byte).
  package static func parse(bytes digits: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard !digits.isEmpty else { return nil }
    var value: Int64 = 0
    for byte in digits {
      guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
      let (times, overflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, carry) = times.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
      guard !overflow && !carry else { return nil }
      value = sum
    }
    return value
  }
}
