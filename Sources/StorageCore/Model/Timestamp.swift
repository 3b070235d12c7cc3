/// A point in time as a service gave it: 100 ns units since the Unix epoch, and how many
/// fractional digits of a second the service gave, so that output keeps its precision (Kodo's
/// `putTime`: 7 digits; OSS's listing `LastModified`: 3; HTTP dates and lifecycle days: 0).
public struct Timestamp: Sendable, Hashable, Comparable {
  /// 100 ns units since the Unix epoch.
  public var hundredNanoseconds: Int64
  /// Fractional digits of a second to show (0–7).
  public var fractionDigits: Int

  /// A time in 100 ns units, shown with `fractionDigits` digits.
  public init(hundredNanoseconds: Int64, fractionDigits: Int = 7) {
    self.hundredNanoseconds = hundredNanoseconds
    self.fractionDigits = min(7, max(0, fractionDigits))
  }

  /// A whole second (saturating far outside the representable range of ±29,000 years).
  public init(unixSeconds: Int64) {
    let (value, overflow) = unixSeconds.multipliedReportingOverflow(by: 10_000_000)
    self.init(
      hundredNanoseconds: overflow ? (unixSeconds < 0 ? .min : .max) : value, fractionDigits: 0)
  }

  /// Whole Unix seconds, rounded down.
  public var unixSeconds: Int64 {
    hundredNanoseconds / 10_000_000 - (hundredNanoseconds % 10_000_000 < 0 ? 1 : 0)
  }

  /// Ordered by time, then by the digits shown: `==` compares both, and `Comparable` needs
  /// exactly one of `a < b`, `a == b`, `b < a` (sorts and searches rely on it). To order by the
  /// instant alone, compare `hundredNanoseconds` (as `ObjectOrder` does).
  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    (lhs.hundredNanoseconds, lhs.fractionDigits) < (rhs.hundredNanoseconds, rhs.fractionDigits)
  }

  /// RFC 3339 in UTC with `fractionDigits` digits: `2013-02-09T07:41:13.4587420Z`.
  public var rfc3339: String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(28)
    appendRFC3339(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends `rfc3339` as ASCII bytes, building no strings (output written straight into a
  /// buffer).
  public func appendRFC3339(to bytes: inout [UInt8]) {
    bytes.appendBytes(upTo: Self.rfc3339MaximumLength) { writeRFC3339(to: $0) }
  }

  /// The most bytes `writeRFC3339` writes: a year of at most five digits and a sign (the range
  /// of 100 ns units is ±29,000 years around 1970), the other fields, a fraction of up to seven
  /// digits and `Z` (the extremes are 30 bytes).
  @inlinable
  package static var rfc3339MaximumLength: Int { 32 }

  /// Writes `rfc3339` at `out`, which has room for `rfc3339MaximumLength` bytes; returns how many
  /// it wrote (the one formatter: `appendRFC3339` and the JSON writer use it).
  @inline(__always)
  package func writeRFC3339(to out: UnsafeMutablePointer<UInt8>) -> Int {
    var fraction = hundredNanoseconds % 10_000_000
    if fraction < 0 { fraction += 10_000_000 }
    let civil = CivilTime(unixSeconds: unixSeconds)
    if (0...9999).contains(civil.year) {
      return Self.writeFourDigitYear(civil, fraction: fraction, digits: fractionDigits, to: out)
    }
    var at = civil.writeRFC3339Seconds(to: out)
    if fractionDigits > 0 {
      var shown = fraction
      for _ in fractionDigits..<7 { shown /= 10 }
      out[at] = UInt8(ascii: ".")
      at += 1 + DecimalText.write(shown, minimumDigits: fractionDigits, to: out + at + 1)
    }
    out[at] = UInt8(ascii: "Z")
    return at + 1
  }

  /// `writeRFC3339` for the years 0–9999 (every time a service sends): the fields at fixed
  /// places, eight bytes at a time, the digits made in parallel in the bytes of a word. At most
  /// 28 bytes are stored (the `Z` after the fraction overwrites what follows it).
  @inline(__always)
  private static func writeFourDigitYear(
    _ civil: CivilTime, fraction: Int64, digits: Int, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    let year = Int(civil.year)
    // `YYYY-MM-`, `DDTHH:MM`, `:SS`.
    let dash: UInt64 = 0x2D
    let colon: UInt64 = 0x3A
    let letterT: UInt64 = 0x54
    let date: UInt64 =
      pair(year / 100) | pair(year % 100) << 16 | dash << 32 | pair(civil.month) << 40
      | dash << 56
    let time: UInt64 =
      pair(civil.day) | letterT << 16 | pair(civil.hour) << 24 | colon << 40
      | pair(civil.minute) << 48
    let raw = UnsafeMutableRawPointer(out)
    raw.storeBytes(of: date.littleEndian, toByteOffset: 0, as: UInt64.self)
    raw.storeBytes(of: time.littleEndian, toByteOffset: 8, as: UInt64.self)
    let second = pair(civil.second)
    out[16] = UInt8(ascii: ":")
    out[17] = UInt8(truncatingIfNeeded: second)
    out[18] = UInt8(truncatingIfNeeded: second >> 8)
    guard digits > 0 else {
      out[19] = UInt8(ascii: "Z")
      return 20
    }
    out[19] = UInt8(ascii: ".")
    // The seven digits of the fraction (the eighth, a leading zero, shifted out), of which the
    // first `digits` are shown (the value cut, as dividing by ten for each digit left out does).
    let fractionDigits = eightDigits(UInt64(fraction)) >> 8
    raw.storeBytes(of: fractionDigits.littleEndian, toByteOffset: 20, as: UInt64.self)
    out[20 + digits] = UInt8(ascii: "Z")
    return 21 + digits
  }

  /// The two ASCII digits of `value` (0–99), the tens in the lower byte.
  @inline(__always)
  private static func pair(_ value: Int) -> UInt64 {
    let tens = (value &* 103) >> 10
    return UInt64(truncatingIfNeeded: tens | (value &- tens &* 10) << 8) &+ 0x3030
  }

  /// The eight ASCII digits of `value` (below 10^8, with leading zeros), the first in the lowest
  /// byte: split into halves of four digits, each into pairs, each pair into digits, every lane
  /// of the word at once (x / 100 as x · 10486 >> 20 for x below 10^4, x / 10 as x · 103 >> 10
  /// for x below 100: exact there).
  @inline(__always)
  private static func eightDigits(_ value: UInt64) -> UInt64 {
    var lanes = value / 10_000 | (value % 10_000) << 32
    let hundreds = ((lanes &* 10_486) >> 20) & 0x0000_007F_0000_007F
    lanes = hundreds | (lanes &- hundreds &* 100) << 16
    let tens = ((lanes &* 103) >> 10) & 0x000F_000F_000F_000F
    lanes = tens | (lanes &- tens &* 10) << 8
    return lanes &+ 0x3030_3030_3030_3030
  }
}

extension Timestamp {
  /// Unix seconds (lifecycle dates, bucket creation) as `YYYY-MM-DDTHH:MM:SSZ`, for any `Int64`.
  public static func rfc3339(unixSeconds: Int64) -> String {
    CivilTime(unixSeconds: unixSeconds).rfc3339Seconds + "Z"
  }
}
