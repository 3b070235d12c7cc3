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
    var at = CivilTime(unixSeconds: unixSeconds).writeRFC3339Seconds(to: out)
    if fractionDigits > 0 {
      var shown = fraction
      for _ in fractionDigits..<7 { shown /= 10 }
      out[at] = UInt8(ascii: ".")
      at += 1 + DecimalText.write(shown, minimumDigits: fractionDigits, to: out + at + 1)
    }
    out[at] = UInt8(ascii: "Z")
    return at + 1
  }
}

extension Timestamp {
  /// Unix seconds (lifecycle dates, bucket creation) as `YYYY-MM-DDTHH:MM:SSZ`, for any `Int64`.
  public static func rfc3339(unixSeconds: Int64) -> String {
    CivilTime(unixSeconds: unixSeconds).rfc3339Seconds + "Z"
  }
}
