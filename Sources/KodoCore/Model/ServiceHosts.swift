import StorageCore

/// Base URLs that replace region discovery for Kodo's services.
public struct ServiceHosts: Sendable, Equatable {
  /// The uc (bucket) service.
  public var uc: String?
  /// The rs (stat) service.
  public var rs: String?
  /// The rsf (list) service.
  public var rsf: String?
  /// The api service.
  public var api: String?
  /// The up (upload) service.
  public var up: String?

  /// Hosts from their parts; each `nil` means "discover".
  public init(
    uc: String? = nil, rs: String? = nil, rsf: String? = nil, api: String? = nil,
    up: String? = nil
  ) {
    self.uc = uc
    self.rs = rs
    self.rsf = rsf
    self.api = api
    self.up = up
  }

  /// `other`'s hosts where it has them, these elsewhere.
  public func overridden(by other: ServiceHosts) -> ServiceHosts {
    ServiceHosts(
      uc: other.uc ?? uc, rs: other.rs ?? rs, rsf: other.rsf ?? rsf, api: other.api ?? api,
      up: other.up ?? up)
  }
}
