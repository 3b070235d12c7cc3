/// One region's service hosts from `/v4/query`: per service, `domains` then `old`.
public struct RegionHosts: Sendable, Equatable {
  /// The region id.
  public var region: String
  /// How long the answer may be cached, in seconds.
  public var ttl: Int64
  /// Bare host names (no scheme) per service name (`rs`, `rsf`, `uc`, `api`, `io_src`, …).
  public var services: [String: [String]]
}
