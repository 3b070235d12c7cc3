/// An object's storage class: the contract's name, and how the service itself calls it.
///
/// Names (the contract's): `standard`, `ia`, `archive`, `deep_archive`, `archive_ir`,
/// `intelligent_tiering` (Kodo), `cold_archive`, `deep_cold_archive` (OSS); a class a provider
/// does not know keeps a name derived from the service's value (Kodo `type_N`, OSS lower-case
/// with `_` between words).
public struct StorageClass: Sendable, Hashable {
  /// The contract's name, as JSON output and filters use it.
  public var name: String
  /// The service's own value, for people: Kodo's `type 2`, OSS's `Archive`.
  public var serviceName: String

  /// A class from its two names.
  public init(name: String, serviceName: String) {
    self.name = name
    self.serviceName = serviceName
  }
}

/// An object's status: `enabled` or `disabled`; a value a provider does not know as `status_N`.
public enum ObjectStatus: Sendable, Equatable, Hashable {
  case enabled, disabled
  /// A status this version does not know, by the service's number for it.
  case unknown(Int)

  /// The contract's name.
  public var name: String {
    switch self {
    case .enabled: "enabled"
    case .disabled: "disabled"
    case .unknown(let code): "status_\(code)"
    }
  }
}

/// An archived object's restore state: `restoring`, `restored`, or another value by name.
public enum RestoreStatus: Sendable, Equatable, Hashable {
  case restoring, restored
  /// A state this version does not know, by the contract's name for it (`status_N`).
  case other(String)

  /// The contract's name.
  public var name: String {
    switch self {
    case .restoring: "restoring"
    case .restored: "restored"
    case .other(let name): name
    }
  }
}
