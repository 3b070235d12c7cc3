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

/// Kodo's storage classes (`type` in list and stat answers).
public enum StorageClass: Sendable, Equatable, Hashable {
  case standard, infrequentAccess, archive, deepArchive, archiveInstantRetrieval
  case intelligentTiering
  case unknown(Int)

  /// The class for Kodo's `type` number.
  public init(code: Int) {
    switch code {
    case 0: self = .standard
    case 1: self = .infrequentAccess
    case 2: self = .archive
    case 3: self = .deepArchive
    case 4: self = .archiveInstantRetrieval
    case 5: self = .intelligentTiering
    default: self = .unknown(code)
    }
  }

  /// Kodo's `type` number for the class (the inverse of `init(code:)`).
  public var code: Int {
    switch self {
    case .standard: 0
    case .infrequentAccess: 1
    case .archive: 2
    case .deepArchive: 3
    case .archiveInstantRetrieval: 4
    case .intelligentTiering: 5
    case .unknown(let code): code
    }
  }

  /// The contract's name: `standard`, `ia`, `archive`, `deep_archive`, `archive_ir`,
  /// `intelligent_tiering`, or `type_N` for a number this version does not know.
  public var name: String {
    switch self {
    case .standard: "standard"
    case .infrequentAccess: "ia"
    case .archive: "archive"
    case .deepArchive: "deep_archive"
    case .archiveInstantRetrieval: "archive_ir"
    case .intelligentTiering: "intelligent_tiering"
    case .unknown(let code): "type_\(code)"
    }
  }
}

/// An object's status: `enabled` (0) or `disabled` (1); other numbers as `status_N`.
public enum ObjectStatus: Sendable, Equatable, Hashable {
  case enabled, disabled
  case unknown(Int)

  /// The status for Kodo's `status` number (absent means enabled).
  public init(code: Int) {
    switch code {
    case 0: self = .enabled
    case 1: self = .disabled
    default: self = .unknown(code)
    }
  }

  /// The contract's name.
  public var name: String {
    switch self {
    case .enabled: "enabled"
    case .disabled: "disabled"
    case .unknown(let code): "status_\(code)"
    }
  }
}
