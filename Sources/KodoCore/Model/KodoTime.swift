import StorageCore

/// Kodo's timestamps as RFC 3339 UTC strings.
package enum KodoTime {
  /// `putTime`/`lastModify` (100 ns units since the Unix epoch) with all seven fractional digits:
  /// `13603956734587420` → `2013-02-09T07:41:13.4587420Z`.
  package static func rfc3339(hundredNanoseconds value: Int64) -> String {
    Timestamp(hundredNanoseconds: value).rfc3339
  }

  /// Unix seconds (lifecycle dates, bucket `ctime`) → `YYYY-MM-DDTHH:MM:SSZ`.
  package static func rfc3339(unixSeconds: Int64) -> String {
    Timestamp.rfc3339(unixSeconds: unixSeconds)
  }

  /// Whole Unix seconds of a `putTime`.
  package static func unixSeconds(hundredNanoseconds value: Int64) -> Int64 {
    Timestamp(hundredNanoseconds: value).unixSeconds
  }
}
