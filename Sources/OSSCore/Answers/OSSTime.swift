public import StorageCore

/// OSS's times: ISO 8601 in XML answers (`2012-02-24T08:42:32.000Z`), RFC 1123 in headers.
public enum OSSTime {
  /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` → the exact time, keeping as many fraction digits as were
  /// given (up to 7, 100 ns): `2012-02-24T08:42:32.000Z` is 1330073752 s and 0 ms, shown with 3
  /// digits. `nil` for any other form or an impossible date.
  public static func parseISO8601(_ text: String) -> Timestamp? {
    var text = text
    return text.withUTF8 { parseISO8601(bytes: $0) }
  }

  /// `parseISO8601` over UTF-8 bytes.
  public static func parseISO8601(bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard bytes.count >= 20, bytes.count <= 30, bytes[4] == UInt8(ascii: "-"),
      bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
      bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
      bytes[bytes.count - 1] == UInt8(ascii: "Z"),
      let year = number(bytes, 0..<4), let month = number(bytes, 5..<7),
      let day = number(bytes, 8..<10), let hour = number(bytes, 11..<13),
      let minute = number(bytes, 14..<16), let second = number(bytes, 17..<19),
      (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24,
      minute < 60, second < 60
    else { return nil }
    var fraction: Int64 = 0
    var digits = 0
    if bytes.count > 20 {
      guard bytes[19] == UInt8(ascii: "."), bytes.count > 21,
        let value = number(bytes, 20..<(bytes.count - 1))
      else { return nil }
      digits = bytes.count - 21
      fraction = Int64(value)
      // To 100 ns units: pad to 7 digits, or drop the digits past the 7th.
      for _ in digits..<max(digits, 7) { fraction *= 10 }
      for _ in 7..<max(7, digits) { fraction /= 10 }
    } else if bytes[19] != UInt8(ascii: "Z") {
      return nil
    }
    let seconds = CivilTime(
      year: Int64(year), month: month, day: day, hour: hour, minute: minute, second: second
    ).unixSeconds
    return Timestamp(
      hundredNanoseconds: seconds * 10_000_000 + fraction, fractionDigits: min(digits, 7))
  }

  /// An RFC 1123 header date (`Last-Modified`, `Date`) as a whole-second time.
  public static func parseHTTPDate(_ text: String) -> Timestamp? {
    HTTPDate.parse(text).map { Timestamp(unixSeconds: $0) }
  }

  /// The ISO 8601 text OSS writes: `2012-02-24T08:42:32.000Z` (always 3 fraction digits).
  public static func iso8601(_ time: Timestamp) -> String {
    var shown = time
    shown.fractionDigits = 3
    return shown.rfc3339
  }

  /// The digits in `range` (at most 9, so the value cannot overflow), or `nil` when one of
  /// them is not a digit.
  @inline(__always)
  private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
    guard !range.isEmpty, range.count <= 9 else { return nil }
    var value = 0
    for index in range {
      let digit = bytes[index] &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      value = value * 10 + Int(digit)
    }
    return value
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}

extension XMLPullReader {
  /// The text content as an ISO 8601 time (`OSSTime.parseISO8601`).
  package mutating func readISO8601() throws(Failure) -> Timestamp {
    try readValue(OSSTime.parseISO8601(bytes:), problem: Self.notATime)
  }

  static func notATime(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    "\(quotedForMessage(bytes)) is not a time such as 2012-02-24T08:42:32.000Z"
  }
}
