/// UTC calendar fields from Unix seconds, without Foundation's formatters (exact and fast).
package struct CivilTime: Equatable {
  package var year: Int64
  package var month: Int
  package var day: Int
  package var hour: Int
  package var minute: Int
  package var second: Int

  /// Howard Hinnant's days-from-civil inverse; valid for the whole proleptic Gregorian calendar.
  package init(unixSeconds: Int64) {
    let days = Self.days(unixSeconds)
    let secondsOfDay = Int((unixSeconds % 86_400 + 86_400) % 86_400)
    hour = secondsOfDay / 3_600
    minute = secondsOfDay % 3_600 / 60
    second = secondsOfDay % 60
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthPrime = (5 * dayOfYear + 2) / 153
    day = Int(dayOfYear - (153 * monthPrime + 2) / 5 + 1)
    month = Int(monthPrime < 10 ? monthPrime + 3 : monthPrime - 9)
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// Whole days since the epoch, rounded down, for any Int64 (no overflow at `Int64.min`).
  package static func days(_ unixSeconds: Int64) -> Int64 {
    unixSeconds / 86_400 - (unixSeconds % 86_400 < 0 ? 1 : 0)
  }

  package init(year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
    self.year = year
    self.month = month
    self.day = day
    self.hour = hour
    self.minute = minute
    self.second = second
  }

  package var unixSeconds: Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let m = Int64(month)
    let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
  }

  /// `YYYY-MM-DDTHH:MM:SS` (no zone, no fraction).
  package var rfc3339Seconds: String {
    var bytes: [UInt8] = []
    appendRFC3339Seconds(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `YYYY-MM-DDTHH:MM:SS` as ASCII, without building strings (listings format a
  /// million of these).
  package func appendRFC3339Seconds(to bytes: inout [UInt8]) {
    bytes.appendBytes(upTo: Self.rfc3339SecondsMaximumLength) { writeRFC3339Seconds(to: $0) }
  }

  /// The most bytes `writeRFC3339Seconds` writes (a year of any `Int64`, and fields out of their
  /// usual ranges written in full).
  package static var rfc3339SecondsMaximumLength: Int { 6 * DecimalText.maximumLength() + 5 }

  /// Writes `YYYY-MM-DDTHH:MM:SS` at `out`, which has room for `rfc3339SecondsMaximumLength`
  /// bytes; returns how many it wrote.
  @inline(__always)
  package func writeRFC3339Seconds(to out: UnsafeMutablePointer<UInt8>) -> Int {
    var at = DecimalText.write(year, minimumDigits: 4, to: out)
    at += Self.write(UInt8(ascii: "-"), month, to: out + at)
    at += Self.write(UInt8(ascii: "-"), day, to: out + at)
    at += Self.write(UInt8(ascii: "T"), hour, to: out + at)
    at += Self.write(UInt8(ascii: ":"), minute, to: out + at)
    at += Self.write(UInt8(ascii: ":"), second, to: out + at)
    return at
  }

  /// `separator`, then `value` in two digits (in full when it is not below 100).
  @inline(__always)
  private static func write(
    _ separator: UInt8, _ value: Int, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    out[0] = separator
    return 1 + writeTwoDigits(value, to: out + 1)
  }

  /// `DecimalText.write(value, minimumDigits: 2)` for the fields below 100 (all but the year),
  /// as two bytes rather than through the general digit loop.
  @inline(__always)
  private static func writeTwoDigits(_ value: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
    guard (0..<100).contains(value) else {
      return DecimalText.write(Int64(value), minimumDigits: 2, to: out)
    }
    out[0] = UInt8(truncatingIfNeeded: value / 10) &+ UInt8(ascii: "0")
    out[1] = UInt8(truncatingIfNeeded: value % 10) &+ UInt8(ascii: "0")
    return 2
  }

  /// `YYYYMMDDTHHMMSSZ`.
  package var compact: String {
    pad(year, 4) + pad(Int64(month), 2) + pad(Int64(day), 2) + "T" + pad(Int64(hour), 2)
      + pad(Int64(minute), 2) + pad(Int64(second), 2) + "Z"
  }

  package static func parseCompact(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else {
      return nil
    }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for index in range {
        let byte = bytes[index]
        guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
      let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    return CivilTime(
      year: Int64(year), month: month, day: day, hour: hour, minute: minute, second: second
    ).unixSeconds
  }
}

@inline(__always)
package func pad(_ value: Int64, _ width: Int) -> String {
  var bytes: [UInt8] = []
  DecimalText.append(value, minimumDigits: width, to: &bytes)
  return String(decoding: bytes, as: UTF8.self)
}
