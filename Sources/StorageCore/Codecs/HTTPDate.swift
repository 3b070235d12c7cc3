/// RFC 1123 dates in HTTP `Date` headers (`Sun, 06 Nov 1994 08:49:37 GMT`), without Foundation's
/// formatters.
package enum HTTPDate {
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]
  private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

  /// Unix seconds of an RFC 1123 date, or `nil`.
  ///
  /// Fields out of range (a year beyond four digits, hour 24, day 32) are `nil`: the text comes
  /// from a server and the arithmetic must not overflow on it.
  package static func parse(_ text: String) -> Int64? {
    let parts = WireText.split(text, at: " ", omittingEmpty: true)
    guard parts.count == 6, WireText.same(parts[5], "GMT"), let day = Int(parts[1]),
      (1...31).contains(day),
      let month = months.firstIndex(of: String(parts[2])), let year = Int64(parts[3]),
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
    let civil = CivilTime(unixSeconds: unixSeconds)
    let days = CivilTime.days(unixSeconds)
    let weekday = weekdays[Int(((days % 7) + 7) % 7)]
    return
      "\(weekday), \(pad(Int64(civil.day), 2)) \(months[civil.month - 1]) \(pad(civil.year, 4)) "
      + "\(pad(Int64(civil.hour), 2)):\(pad(Int64(civil.minute), 2)):\(pad(Int64(civil.second), 2)) GMT"
  }
}
