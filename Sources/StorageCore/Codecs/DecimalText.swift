/// Integers as decimal ASCII bytes, appended straight into an output buffer (no `String`).
package enum DecimalText {
  /// Appends `value` in decimal, zero-padded to at least `minimumDigits` digits after any `-`:
  /// `append(7, minimumDigits: 2)` → `07`, `append(-12)` → `-12`.
  @inline(__always)
  package static func append(_ value: Int64, minimumDigits: Int = 1, to bytes: inout [UInt8]) {
    var magnitude = value.magnitude
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    // A UInt64 has at most 20 digits; they are written from the end of a stack buffer.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
      var start = 20
      repeat {
        start -= 1
        buffer[start] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
        magnitude /= 10
      } while magnitude > 0
      for _ in 0..<max(0, minimumDigits - (20 - start)) { bytes.append(UInt8(ascii: "0")) }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<20]))
    }
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
