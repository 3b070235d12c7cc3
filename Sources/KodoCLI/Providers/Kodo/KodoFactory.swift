import KodoCore
import StorageCore

/// Qiniu Kodo: credentials from `QINIU_ACCESS_KEY` and `QINIU_SECRET_KEY` or the file (settled in
/// `Configuration.load`), hosts from `KODO_ENDPOINT` or the file's `hosts`, regions cached under
/// `$XDG_CACHE_HOME/kodo`.
struct KodoFactory: ProviderFactory {
  var name: String { "kodo" }
  var displayName: String { "Kodo" }

  func ownKeys(in configuration: Configuration) -> [String] { configuration.kodoOnlyKeys }

  func makeProvider(_ context: Context) throws(StorageError) -> any StorageProvider {
    let credentials = try context.configuration.requireCredentials()
    let environment = context.environment
    let cacheDirectory =
      (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? environment["HOME"].map { $0 + "/.cache" }).map { $0 + "/kodo" }
    return KodoClient(
      credentials: credentials,
      transport: CurlTransport(configuration: context.transportConfiguration),
      options: KodoClient.Options(
        hosts: context.configuration.hosts, retry: context.retryPolicy,
        regionCacheDirectory: cacheDirectory, observer: context.observer))
  }

  /// Kodo's hash (28 characters) and the content type its listings carry.
  var longColumns: ListRenderer.LongColumns { .init(hashWidth: 28, mimeTypes: true) }

  var storageClassNames: [String] {
    ["standard", "ia", "archive", "deep_archive", "archive_ir", "intelligent_tiering"]
  }

  func storageClass(named text: String) -> String? {
    let lower = text.lowercased()
    if storageClassNames.contains(lower) { return lower }
    // A class this version does not name yet, by Kodo's number (as listings show it).
    if lower.hasPrefix("type_"), let number = Int(lower.dropFirst(5)), number >= 0 {
      return lower
    }
    return nil
  }

  /// Kodo's blocks are 4 MiB: parts of that size make the service's hash the qetag.
  var defaultPartSize: Int64 { 4 << 20 }

  var batchReportsMissing: Bool { true }

  func configuredRegion(listed region: String) -> String { region }

  /// The bucket's bound domain, looked up once when no domain was given or configured.
  func fixedDownloadChoice(
    _ choice: DomainChoice, bucket: String, provider: any StorageProvider
  ) async throws(StorageError) -> DomainChoice {
    guard choice.explicit == nil, choice.configured == nil, let kodo = provider as? KodoClient
    else { return choice }
    let domain = try await kodo.downloadDomain(bucket: bucket, choice: choice)
    return DomainChoice(configured: domain.baseURL)
  }
}
