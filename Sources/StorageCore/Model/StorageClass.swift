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
