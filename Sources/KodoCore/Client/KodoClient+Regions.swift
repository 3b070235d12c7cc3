import Foundation
package import StorageCore

/// A region answer for one bucket, with the scheme of the uc host that gave it.
struct ResolvedRegions: Sendable {
  var expires: Int64
  var scheme: String
  var regions: [RegionHosts]
}

extension ServiceHosts {
  subscript(service: Service) -> String? {
    switch service {
    case .uc: uc
    case .rs: rs
    case .rsf: rsf
    case .api: api
    case .up: up
    case .upAccelerated: nil
    }
  }
}

extension KodoClient {
  /// The base URLs to try for `service`, in order.
  ///
  /// A configured host wins; uc falls back through the default uc hosts; rs, rsf and api come
  /// from the bucket's region answer (`domains` before `old`, then the next region), with the
  /// scheme of the uc host that answered.
  package func bases(for service: Service, bucket: String?) async throws(StorageError)
    -> [String]
  {
    if let configured = options.hosts[service] { return [configured] }
    if service == .uc { return options.ucHosts }
    guard let bucket else {
      throw StorageError(
        .configuration,
        "no \(service.rawValue) host is configured and no bucket to discover it from")
    }
    let resolved = try await regions(for: bucket)
    var bases: [String] = []
    for region in resolved.regions {
      for host in region.services[service.rawValue] ?? [] where !host.isEmpty {
        let base = WireText.contains(host, "://") ? host : resolved.scheme + "://" + host
        if !bases.contains(base) { bases.append(base) }
      }
    }
    guard !bases.isEmpty else {
      throw StorageError(
        .protocolError,
        "Kodo's region answer for bucket \(DisplayText.quoted(bucket)) names no \(service.rawValue) host"
      )
    }
    return bases
  }

  /// The bucket's regions from memory, the disk cache, or `/v4/query` (unauthenticated).
  func regions(for bucket: String) async throws(StorageError) -> ResolvedRegions {
    let ucBases = options.hosts.uc.map { [$0] } ?? options.ucHosts
    let cacheKey = ucBases.joined(separator: ",") + "\n" + credentials.accessKey + "\n" + bucket
    let now = options.clock.unixSeconds
    if let cached = regions.resolved.withLock({ $0[cacheKey] }), cached.expires > now {
      return cached
    }
    let cacheFile = options.regionCacheDirectory.map { directory in
      directory + "/regions-v2-"
        + Hex.encode(Digest.sha1(Array(cacheKey.utf8))) + ".json"
    }
    if let cacheFile, let cached = Self.readRegionCache(cacheFile), cached.expires > now {
      regions.resolved.withLock { $0[cacheKey] = cached }
      return cached
    }
    let context = CallContext(
      what: "the region query for bucket \(DisplayText.quoted(bucket))", bucket: bucket)
    let (response, base) = try await perform(
      method: "GET", bases: ucBases,
      path: RegionQuery.path(accessKey: credentials.accessKey, bucket: bucket), signed: false,
      context: context)
    let regions = try Decode.answer("region query", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try Decode.regions(&reader)
    }
    guard !regions.isEmpty else {
      throw StorageError(
        .notFound,
        "Kodo knows no region for bucket \(DisplayText.quoted(bucket)); check the bucket name",
        status: response.status, requestID: response.requestID)
    }
    let ttl = max(60, regions.map(\.ttl).min() ?? 86_400)
    // The ttl is the server's number: a huge one means "for ever", not an overflow.
    let (expires, overflow) = now.addingReportingOverflow(ttl)
    let resolved = ResolvedRegions(
      expires: overflow ? .max : expires,
      scheme: URLParts(base).scheme.isEmpty ? "https" : URLParts(base).scheme,
      regions: regions)
    self.regions.resolved.withLock { $0[cacheKey] = resolved }
    if let cacheFile {
      Self.writeRegionCache(cacheFile, resolved: resolved, body: response.body)
    }
    return resolved
  }

  /// The cache file: `{"expires":N,"scheme":"https","answer":<Kodo's answer, as it came>}`.
  private static func readRegionCache(_ path: String) -> ResolvedRegions? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    var reader = JSONReader(Array(data))
    var expires: Int64?
    var scheme: String?
    var regions: [RegionHosts]?
    do {
      try reader.readObject { (reader, name) throws(JSONReader.Failure) in
        switch name {
        case "expires": expires = try reader.readInt64()
        case "scheme": scheme = try reader.readString()
        case "answer": regions = try Decode.regions(&reader)
        default: try reader.skipValue()
        }
      }
      try reader.expectEnd()
    } catch {
      return nil
    }
    guard let expires, let scheme, let regions else { return nil }
    return ResolvedRegions(expires: expires, scheme: scheme, regions: regions)
  }

  private static func writeRegionCache(_ path: String, resolved: ResolvedRegions, body: [UInt8]) {
    var text: [UInt8] = Array("{\"expires\":".utf8)
    DecimalText.append(resolved.expires, to: &text)
    text += Array(",\"scheme\":".utf8)
    JSONText.appendString(resolved.scheme, to: &text)
    text += Array(",\"answer\":".utf8) + body + [UInt8(ascii: "}")]
    let directory = String(path[..<(KeySegments.lastSlash(in: path) ?? path.startIndex)])
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let temporary = path + ".\(getpid()).tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text)) else {
      return
    }
    if rename(temporary, path) != 0 { unlink(temporary) }
  }
}
