/// Parses expiry durations: `3600` (seconds), `90s`, `15m`, `2h`, `7d`, or a sum such as `1h30m`.
package enum DurationParser {
  /// The duration in seconds.
  ///
  /// - Throws: `StorageError` (`invalidInput`) for anything else, for zero, and for durations that
  ///   overflow 64 bits.
  package static func seconds(_ text: String) throws(StorageError) -> Int64 {
    let bytes = Array(text.utf8)
    func invalid(_ why: String) -> StorageError {
      StorageError(
        .invalidInput,
        "invalid duration \(DisplayText.quoted(text)): \(why); use seconds (3600) or a number with s, m, h or d (90s, 15m, 2h, 7d)"
      )
    }
    guard !bytes.isEmpty else { throw invalid("it is empty") }
    var total: Int64 = 0
    var index = 0
    var sawUnit = false
    while index < bytes.count {
      var value: Int64 = 0
      let start = index
      while index < bytes.count, bytes[index] >= UInt8(ascii: "0"),
        bytes[index] <= UInt8(ascii: "9")
      {
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(
          Int64(bytes[index] - UInt8(ascii: "0")))
        if overflow1 || overflow2 { throw invalid("it is too large") }
        value = sum
        index += 1
      }
      guard index > start else { throw invalid("expected a number") }
      var multiplier: Int64 = 1
      if index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "s"): multiplier = 1
        case UInt8(ascii: "m"): multiplier = 60
        case UInt8(ascii: "h"): multiplier = 3_600
        case UInt8(ascii: "d"): multiplier = 86_400
        default: throw invalid("unknown unit")
        }
        index += 1
        sawUnit = true
      } else if sawUnit {
        throw invalid("a number without a unit after one with a unit")
      }
      let (scaled, overflow3) = value.multipliedReportingOverflow(by: multiplier)
      let (sum, overflow4) = total.addingReportingOverflow(scaled)
      if overflow3 || overflow4 { throw invalid("it is too large") }
      total = sum
    }
    guard total > 0 else { throw invalid("it must be longer than zero") }
    return total
  }
}
