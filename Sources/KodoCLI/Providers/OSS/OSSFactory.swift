import OSSCore
import StorageCore

/// Aliyun OSS: credentials from `OSS_ACCESS_KEY_ID`, `OSS_ACCESS_KEY_SECRET` and
/// `OSS_SESSION_TOKEN`, else the file; region and endpoint from `OSS_REGION` and `OSS_ENDPOINT`,
/// else the file (the endpoint defaults to the region's public one, the region to the one an
/// Aliyun endpoint names).
struct OSSFactory: ProviderFactory {
  var name: String { "oss" }
  var displayName: String { "OSS" }

  func ownKeys(in configuration: Configuration) -> [String] { configuration.oss.keys }

  func makeProvider(_ context: Context) throws(StorageError) -> any StorageProvider {
    let configuration = context.configuration
    func variable(_ name: String) -> String? {
      guard let value = context.environment[name], !value.isEmpty else { return nil }
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
      transport: CurlTransport(configuration: context.transportConfiguration),
      options: OSSClient.Options(
        addressing: OSSAddressing(
          endpoint: endpoint, pathStyle: configuration.oss.pathStyle ?? false),
        region: region, signatureVersion: version, customDomains: domains,
        retry: context.retryPolicy, observer: context.observer))
  }

  /// OSS's ETag (32 characters); its listings carry no content type (no column of `-`).
  var longColumns: ListRenderer.LongColumns { .init(hashWidth: 32, mimeTypes: false) }

  var storageClassNames: [String] {
    ["standard", "ia", "archive", "cold_archive", "deep_cold_archive"]
  }

  /// The contract's names, or OSS's own spellings (`IA`, `ColdArchive`), in any case.
  func storageClass(named text: String) -> String? {
    let lower = text.lowercased()
    if storageClassNames.contains(lower) { return lower }
    let name = OSSClient.storageClass(text).name
    return storageClassNames.contains(name) ? name : nil
  }

  var defaultPartSize: Int64 { 8 << 20 }

  var batchReportsMissing: Bool { false }

  /// OSS lists its location (`oss-cn-hangzhou`); `OSS_REGION` and the config want the region ID
  /// (`cn-hangzhou`).
  func configuredRegion(listed region: String) -> String {
    region.hasPrefix("oss-") ? String(region.dropFirst(4)) : region
  }

  func fixedDownloadChoice(
    _ choice: DomainChoice, bucket: String, provider: any StorageProvider
  ) async throws(StorageError) -> DomainChoice { choice }
}
