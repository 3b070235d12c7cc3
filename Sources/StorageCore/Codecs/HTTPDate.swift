/// RFC 1123 dates in HTTP `Date` headers (`Sun, 06 Nov 1994 08:49:37 GMT`), without Foundation's
/// formatters.
package enum HTTPDate {
  private static let months: [StaticString] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]
  private static let weekdays: [StaticString] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

  /// Unix seconds of an RFC 1123 date, or `nil`.
  ///
  /// Fields out of range (a year beyond four digits, hour 24, day 32) are `nil`: the text comes
  /// from a server and the arithmetic must not overflow on it.
  package static func parse(_ text: String) -> Int64? {
    let parts = WireText.split(text, at: " ", omittingEmpty: true)
    guard parts.count == 6, WireText.same(parts[5], "GMT"), let day = Int(parts[1]),
      (1...31).contains(day),
      let month = months.firstIndex(where: { name in
        name.withUTF8Buffer { parts[2].utf8.elementsEqual($0) }
      }), let year = Int64(parts[3]),
      (0...9_999).contains(year)
    else { return nil }
    let time = WireText.split(parts[4], at: ":", omittingEmpty: true)
    guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]),
      let second = Int(time[2]), (0...23).contains(hour), (0...59).contains(minute),
      (0...60).contains(second)
    else { return nil }
    return CivilTime(
      year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second
    )
    .unixSeconds
  }

  /// The RFC 1123 text for Unix seconds.
  package static func format(unixSeconds: Int64) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
      guard let base = buffer.baseAddress else { return "" }
      let count = write(unixSeconds: unixSeconds, to: base)
      return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
  }

  /// The most bytes `write(unixSeconds:to:)` writes: the fixed fields and a year of any `Int64`.
  package static var maximumLength: Int { 25 + DecimalText.maximumLength(minimumDigits: 4) }

  /// Writes `format(unixSeconds:)`'s text at `out`, which has room for `maximumLength` bytes;
  /// returns how many it wrote (the one formatter: `format` and the emulator's listing writer,
  /// which writes archived objects' restore dates, use it).
  package static func write(unixSeconds: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
    let civil = CivilTime(unixSeconds: unixSeconds)
    let days = CivilTime.days(unixSeconds)
    var at = out.write(weekdays[Int(((days % 7) + 7) % 7)])
    at += (out + at).write(", ")
    at += DecimalText.write(Int64(civil.day), minimumDigits: 2, to: out + at)
    at += (out + at).write(" ")
    at += (out + at).write(months[civil.month - 1])
    at += (out + at).write(" ")
    at += DecimalText.write(civil.year, minimumDigits: 4, to: out + at)
    at += (out + at).write(" ")
    at += DecimalText.write(Int64(civil.hour), minimumDigits: 2, to: out + at)
    at += (out + at).write(":")
    at += DecimalText.write(Int64(civil.minute), minimumDigits: 2, to: out + at)
    at += (out + at).write(":")
    at += DecimalText.write(Int64(civil.second), minimumDigits: 2, to: out + at)
    return at + (out + at).write(" GMT")
  }
}
