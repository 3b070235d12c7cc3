import ArgumentParser
import KodoCore
import OSSCore
import StorageCore
import Synchronization

/// The services kodo speaks.
enum ProviderKind: String, Sendable, CaseIterable {
  case kodo, oss
}

/// The provider named by a scheme on a bucket argument (`oss://…`, `kodo://…`), once one is seen.
final class SchemeChoice: Sendable {
  private let chosen = Mutex<ProviderKind?>(nil)

  var kind: ProviderKind? { chosen.withLock { $0 } }

  /// Records `kind`; a different scheme seen before is a usage error.
  func record(_ kind: ProviderKind) throws {
    let previous = chosen.withLock { value -> ProviderKind? in
      defer { if value == nil { value = kind } }
      return value
    }
    if let previous, previous != kind {
      throw ValidationError(
        "the arguments name both \(previous.rawValue):// and \(kind.rawValue):// buckets; one command talks to one service"
      )
    }
  }
}

extension Context {
  /// `text` without a leading `oss://` or `kodo://`, whose provider is recorded for `provider()`.
  ///
  /// - Throws: `ValidationError` (64) when the scheme contradicts `--provider`, or is another
  ///   tool's (`s3://`).
  func strippingScheme(_ text: String) throws -> String {
    for kind in ProviderKind.allCases {
      let scheme = kind.rawValue + "://"
      guard text.hasPrefix(scheme) else { continue }
      if let flag = options.provider, flag != kind.rawValue {
        throw ValidationError(
          "\(DisplayText(quoting: text)) names a \(kind.rawValue) bucket, but --provider says \(flag)"
        )
      }
      try self.scheme.record(kind)
      return String(text.dropFirst(scheme.count))
    }
    if let separator = text.range(of: "://"), !text[..<separator.lowerBound].isEmpty,
      text[..<separator.lowerBound].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
    {
      throw ValidationError(
        "\(DisplayText(quoting: text)): kodo knows the schemes kodo:// and oss://, or a BUCKET with none"
      )
    }
    return text
  }

  /// The provider: a scheme on a bucket argument, `--provider`, `KODO_PROVIDER`, the config
  /// file's `provider` (profile, then top level), else Kodo.
  ///
  /// - Throws: `StorageError(.configuration)` when `KODO_PROVIDER` names no provider.
  func providerKind() throws(StorageError) -> ProviderKind {
    if let kind = scheme.kind { return kind }
    if let flag = options.provider, let kind = ProviderKind(rawValue: flag) { return kind }
    if let variable = environment["KODO_PROVIDER"], !variable.isEmpty {
      guard let kind = ProviderKind(rawValue: variable) else {
        throw StorageError(
          .configuration,
          "KODO_PROVIDER must be kodo or oss, not \(DisplayText(quoting: variable))")
      }
      return kind
    }
    if let name = configuration.provider, let kind = ProviderKind(rawValue: name) { return kind }
    return .kodo
  }

  /// The storage provider with the configured credentials, hosts, retries and timeouts.
  func provider() throws(StorageError) -> any StorageProvider {
    switch try providerKind() {
    case .kodo:
      if let key = configuration.oss.keys.first {
        throw meaningless(key, to: "Kodo", file: configuration.file)
      }
      return try kodoClient()
    case .oss:
      if let key = configuration.kodoOnlyKeys.first {
        throw meaningless(key, to: "OSS", file: configuration.file)
      }
      return try ossClient()
    }
  }

  private func meaningless(_ key: String, to service: String, file: String?) -> StorageError {
    StorageError(
      .configuration,
      "config file \(file ?? ""): \"\(DisplayText.escaped(key))\" means nothing to \(service); remove it, or choose the provider it belongs to"
    )
  }

  /// The OSS client: credentials from `OSS_ACCESS_KEY_ID`, `OSS_ACCESS_KEY_SECRET` and
  /// `OSS_SESSION_TOKEN`, else the file; region and endpoint from `OSS_REGION` and
  /// `OSS_ENDPOINT`, else the file (the endpoint defaults to the region's public one, the region
  /// to the one an Aliyun endpoint names).
  func ossClient() throws(StorageError) -> OSSClient {
    func variable(_ name: String) -> String? {
      guard let value = environment[name], !value.isEmpty else { return nil }
      return value
    }
    let accessKey = variable("OSS_ACCESS_KEY_ID") ?? configuration.fileAccessKey
    let secretKey = variable("OSS_ACCESS_KEY_SECRET") ?? configuration.fileSecretKey
    let token = variable("OSS_SESSION_TOKEN") ?? configuration.oss.securityToken
    guard let accessKey, let secretKey else {
      let missing = accessKey == nil ? "an access key" : "a secret key"
      throw StorageError(
        .configuration,
        "no OSS credentials (\(missing) is missing): set OSS_ACCESS_KEY_ID and OSS_ACCESS_KEY_SECRET, or \"accessKey\" and \"secretKey\" in the config file"
      )
    }
    let endpointText = variable("OSS_ENDPOINT") ?? configuration.oss.endpoint
    var region = variable("OSS_REGION") ?? configuration.oss.region
    let endpoint: OSSEndpoint
    if let endpointText {
      endpoint = try OSSEndpoint(endpointText)
      if region == nil { region = endpoint.regionID }
    } else if let region {
      endpoint = try OSSEndpoint(region: region)
    } else {
      throw StorageError(
        .configuration,
        "OSS needs a region: set OSS_REGION (such as cn-hangzhou), or \"region\" in the config file"
      )
    }
    guard let region else {
      throw StorageError(
        .configuration,
        "OSS needs a region for endpoint \(endpoint.baseURL): set OSS_REGION (such as cn-hangzhou), or \"region\" in the config file"
      )
    }
    var domains: [String: OSSEndpoint] = [:]
    for (bucket, text) in configuration.domains {
      domains[bucket] = try OSSEndpoint(text)
    }
    let version: OSSSigner.Version = configuration.oss.signatureVersion == "v1" ? .v1 : .v4
    return try OSSClient(
      credentials: Credentials(accessKey: accessKey, secretKey: secretKey, securityToken: token),
      transport: CurlTransport(configuration: transportConfiguration),
      options: OSSClient.Options(
        addressing: OSSAddressing(
          endpoint: endpoint, pathStyle: configuration.oss.pathStyle ?? false),
        region: region, signatureVersion: version, customDomains: domains, retry: retryPolicy,
        observer: observer))
  }
}
