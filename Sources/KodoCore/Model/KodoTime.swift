import StorageCore

/// Kodo's timestamps as RFC 3339 UTC strings.
public enum KodoTime {
  /// `putTime`/`lastModify` (100 ns units since the Unix epoch) with all seven fractional digits:
  /// `13603956734587420` → `2013-02-09T07:41:13.4587420Z`.
  public static func rfc3339(hundredNanoseconds value: Int64) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(28)
    appendRFC3339(hundredNanoseconds: value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the same text as `rfc3339(hundredNanoseconds:)` as ASCII bytes, building no
  /// strings: the form for output written straight into a buffer.
  public static func appendRFC3339(hundredNanoseconds value: Int64, to bytes: inout [UInt8]) {
    var seconds = value / 10_000_000
    var fraction = value % 10_000_000
    if fraction < 0 {
      fraction += 10_000_000
      seconds -= 1
    }
    CivilTime(unixSeconds: seconds).appendRFC3339Seconds(to: &bytes)
    bytes.append(UInt8(ascii: "."))
    DecimalText.append(fraction, minimumDigits: 7, to: &bytes)
    bytes.append(UInt8(ascii: "Z"))
  }

  /// Unix seconds (lifecycle dates, bucket `ctime`) → `YYYY-MM-DDTHH:MM:SSZ`.
  public static func rfc3339(unixSeconds: Int64) -> String {
    CivilTime(unixSeconds: unixSeconds).rfc3339Seconds + "Z"
  }

  /// Whole Unix seconds of a `putTime`.
  public static func unixSeconds(hundredNanoseconds value: Int64) -> Int64 {
    value / 10_000_000 - (value % 10_000_000 < 0 ? 1 : 0)
  }
}
