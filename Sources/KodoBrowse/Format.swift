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
    let civil = CivilTime(unixSeconds: time.unixSeconds)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return
      "\(civil.year)-\(two(civil.month))-\(two(civil.day)) \(two(civil.hour)):\(two(civil.minute))"
  }
}
