import Foundation
import StorageCore

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
    }
  }
}

extension KodoClient {
  /// The base URLs to try for `service`, in order.
  ///
  /// A configured host wins; uc falls back through the default uc hosts; rs, rsf and api come
  /// from the bucket's region answer (`domains` before `old`, then the next region), with the
  /// scheme of the uc host that answered.
  func bases(for service: Service, bucket: String?) async throws(StorageError) -> [String] {
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
        let base = host.contains("://") ? host : resolved.scheme + "://" + host
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
    if let cached = state.regions.withLock({ $0[cacheKey] }), cached.expires > now {
      return cached
    }
    let cacheFile = options.regionCacheDirectory.map { directory in
      directory + "/regions-"
        + Hex.encode(Digest.sha1(Array(cacheKey.utf8))) + ".json"
    }
    if let cacheFile, let cached = Self.readRegionCache(cacheFile), cached.expires > now {
      state.regions.withLock { $0[cacheKey] = cached }
      return cached
    }
    var query = QueryString()
    query.append("ak", credentials.accessKey)
    query.append("bucket", bucket)
    let context = CallContext(
      what: "the region query for bucket \(DisplayText.quoted(bucket))", bucket: bucket)
    let (response, base) = try await perform(
      method: "GET", bases: ucBases, path: "/v4/query?" + query.encoded, signed: false,
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
    state.regions.withLock { $0[cacheKey] = resolved }
    if let cacheFile {
      Self.writeRegionCache(cacheFile, resolved: resolved, body: response.body)
    }
    return resolved
  }

  private static func readRegionCache(_ path: String) -> ResolvedRegions? {
    guard let data = FileManager.default.contents(atPath: path),
      let root = try? JSONValue.parse(String(decoding: data, as: UTF8.self)),
      let members = root.objectMembers
    else { return nil }
    var expires: Int64?
    var scheme: String?
    var body: String?
    for member in members {
      switch (member.name, member.value) {
      case ("expires", .number(let text)): expires = Int64(text)
      case ("scheme", .string(let text)): scheme = text
      case ("body", .string(let text)): body = text
      default: break
      }
    }
    guard let expires, let scheme, let body else { return nil }
    var reader = JSONReader(Array(body.utf8))
    guard let regions = try? Decode.regions(&reader) else { return nil }
    return ResolvedRegions(expires: expires, scheme: scheme, regions: regions)
  }

  private static func writeRegionCache(_ path: String, resolved: ResolvedRegions, body: [UInt8]) {
    let text = JSONValue.object([
      .init("expires", .number(String(resolved.expires))),
      .init("scheme", .string(resolved.scheme)),
      .init("body", .string(String(decoding: body, as: UTF8.self))),
    ]).asciiCompactText
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let temporary = path + ".\(getpid()).tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else {
      return
    }
    if rename(temporary, path) != 0 { unlink(temporary) }
  }
}
