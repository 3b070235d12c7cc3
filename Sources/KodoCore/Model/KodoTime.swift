public import StorageCore

/// Kodo's timestamps as RFC 3339 UTC strings.
public enum KodoTime {
  /// `putTime`/`lastModify` (100 ns units since the Unix epoch) with all seven fractional digits:
  /// `13603956734587420` → `2013-02-09T07:41:13.4587420Z`.
  public static func rfc3339(hundredNanoseconds value: Int64) -> String {
    Timestamp(hundredNanoseconds: value).rfc3339
  }

  /// Appends the same text as `rfc3339(hundredNanoseconds:)` as ASCII bytes.
  public static func appendRFC3339(hundredNanoseconds value: Int64, to bytes: inout [UInt8]) {
    Timestamp(hundredNanoseconds: value).appendRFC3339(to: &bytes)
  }

  /// Unix seconds (lifecycle dates, bucket `ctime`) → `YYYY-MM-DDTHH:MM:SSZ`.
  public static func rfc3339(unixSeconds: Int64) -> String {
    Timestamp.rfc3339(unixSeconds: unixSeconds)
  }

  /// Whole Unix seconds of a `putTime`.
  public static func unixSeconds(hundredNanoseconds value: Int64) -> Int64 {
    Timestamp(hundredNanoseconds: value).unixSeconds
  }
}

extension StorageClass {
  // String literals: copying an entry copies its class without reference counting (a listing
  // copies a million entries).
  private static let kodoClasses: [StorageClass] = [
    StorageClass(name: "standard", serviceName: "type 0"),
    StorageClass(name: "ia", serviceName: "type 1"),
    StorageClass(name: "archive", serviceName: "type 2"),
    StorageClass(name: "deep_archive", serviceName: "type 3"),
    StorageClass(name: "archive_ir", serviceName: "type 4"),
    StorageClass(name: "intelligent_tiering", serviceName: "type 5"),
  ]

  /// The class for Kodo's `type` number: `standard` (0), `ia` (1), `archive` (2),
  /// `deep_archive` (3), `archive_ir` (4), `intelligent_tiering` (5), else `type_N`.
  public static func kodo(type: Int) -> StorageClass {
    if kodoClasses.indices.contains(type) { return kodoClasses[type] }
    return StorageClass(name: "type_\(type)", serviceName: "type \(type)")
  }

  /// Kodo's `type` number for the class (the inverse of `kodo(type:)`), when it is Kodo's.
  public var kodoType: Int? {
    guard serviceName.hasPrefix("type "), let number = Int(serviceName.dropFirst(5)) else {
      return nil
    }
    return number
  }
}

extension RestoreStatus {
  /// The state for Kodo's `restoreStatus` number: 1 restoring, 2 restored, else `status_N`.
  public static func kodo(code: Int) -> RestoreStatus {
    switch code {
    case 1: .restoring
    case 2: .restored
    default: .other("status_\(code)")
    }
  }
}
