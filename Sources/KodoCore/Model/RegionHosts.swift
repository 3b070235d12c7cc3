/// One region's service hosts from `/v4/query`: per service, `domains` then `old`.
package struct RegionHosts: Sendable, Equatable {
  /// The region id.
  package var region: String
  /// How long the answer may be cached, in seconds.
  package var ttl: Int64
  /// Bare host names (no scheme) per service name (`rs`, `rsf`, `uc`, `api`, `io_src`, …);
  /// `up` holds only its `domains` (as Qiniu's SDKs use them) and `up_acc` its `acc_domains`.
  package var services: [String: [String]]
}
