/// `Date` header values (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`) without
/// Foundation's formatters.
enum HTTPDate {
  private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// The IMF-fixdate for Unix seconds.
  static func format(unixSeconds: Int64) -> String {
    let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
    let secondsOfDay = Int(unixSeconds - days * 86_400)
    let weekday = weekdays[Int(((days % 7) + 7) % 7)]
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthPrime = (5 * dayOfYear + 2) / 153
    let day = Int(dayOfYear - (153 * monthPrime + 2) / 5 + 1)
    let month = Int(monthPrime < 10 ? monthPrime + 3 : monthPrime - 9)
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return weekday + ", " + two(day) + " " + months[month - 1] + " " + String(year) + " "
      + two(secondsOfDay / 3_600) + ":" + two(secondsOfDay % 3_600 / 60) + ":"
      + two(secondsOfDay % 60) + " GMT"
  }

  private static func two(_ value: Int) -> String {
    value < 10 ? "0" + String(value) : String(value)
  }
}
