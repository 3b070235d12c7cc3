public import StorageCore

/// Sizes, times and counts as the browser shows them.
public enum Format {
  /// `512 B`, `64.9 KiB`, `1.2 MiB`.
  public static func size(_ bytes: Int64) -> String {
    ByteSize.text(bytes, wholeFrom100: false)
  }

  /// `12,345`.
  public static func count(_ number: Int) -> String {
    let digits = String(number)
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
      out.append(digit)
    }
    return out
  }

  /// `2024-05-12 11:51` in UTC.
  public static func minute(_ time: Timestamp) -> String {
    let seconds = time.unixSeconds
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let inDay = seconds - days * 86_400
    let (year, month, day) = civil(days)
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(year)-\(two(month))-\(two(day)) \(two(inDay / 3600)):\(two(inDay % 3600 / 60))"
  }

  /// The date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
  static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
