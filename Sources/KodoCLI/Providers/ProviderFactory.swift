import StorageCore

/// Everything the CLI knows about one service, in one place: its name, its own config keys and
/// environment variables, how to make its client, and what its listings and writes carry. The
/// rest of the CLI asks the factory (`ProviderRegistry`) and never branches on a provider, so a
/// new service is one new folder under `Providers/` and one line in the registry.
protocol ProviderFactory: Sendable {
  /// The provider's name as users write it: `--provider`, `KODO_PROVIDER`, the config file's
  /// `provider`, and the scheme of a bucket argument (`NAME://BUCKET`).
  var name: String { get }
  /// The service's name in messages (`Kodo`, `OSS`).
  var displayName: String { get }

  /// The config file keys only this provider understands (at the top level or in a profile).
  var configKeys: [String] { get }
  /// Reads the file's `member`, one of `configKeys`, into `settings`, noting its full name
  /// `key` (`profiles.p.region`) among the provider's own; `path` is the file's, for messages.
  ///
  /// - Throws: `StorageError(.configuration)` naming the key when its value is wrong.
  func readSetting(
    _ member: JSONValue.Member, key: String, path: String, into settings: inout ConfigSettings
  ) throws(StorageError)
  /// The config file keys that only this provider understands which `configuration` sets, as
  /// the file names them (`profiles.p.region`); another provider refuses to run with them.
  func ownKeys(in configuration: Configuration) -> [String]
  /// The client, with the configured credentials, hosts, retries and timeouts.
  ///
  /// - Throws: `StorageError(.configuration)` naming what is missing and where to set it.
  func makeProvider(_ context: Context) throws(StorageError) -> any StorageProvider

  /// What `ls -l` and `find -l` show after the size and the time.
  var longColumns: ListRenderer.LongColumns { get }
  /// The storage classes `find --storage-class` takes, in the contract's names.
  var storageClassNames: [String] { get }
  /// The contract's name for a storage class the user wrote (any case, or the service's own
  /// spelling), or `nil` when the provider has no such class.
  func storageClass(named text: String) -> String?
  /// `put`'s part size unless `--part-size` is given.
  var defaultPartSize: Int64 { get }
  /// Whether a batch delete answers "no such object" for a key that is missing (Kodo's does;
  /// OSS's reports every key deleted).
  var batchReportsMissing: Bool { get }
  /// A region as a bucket listing gives it, as the user configures it.
  func configuredRegion(listed region: String) -> String
  /// `choice` with any per-bucket lookup the provider needs done once for many downloads (Kodo's
  /// bound domain), so that each object does not ask again.
  func fixedDownloadChoice(
    _ choice: DomainChoice, bucket: String, provider: any StorageProvider
  ) async throws(StorageError) -> DomainChoice
}

extension ProviderFactory {
  /// The scheme of a bucket argument: `NAME://`.
  var scheme: String { name + "://" }

  /// Whether both are the same provider.
  func same(as other: any ProviderFactory) -> Bool { name == other.name }
}

/// The kind of provider a command talks to: its factory.
typealias ProviderKind = any ProviderFactory

/// The providers kodo speaks, in the order messages list them; the first is the default.
enum ProviderRegistry {
  static let all: [any ProviderFactory] = [KodoFactory(), OSSFactory()]

  /// The provider used when nothing names one.
  static var standard: any ProviderFactory { all[0] }

  /// The provider called `name`, if any.
  static func named(_ name: String) -> (any ProviderFactory)? {
    all.first { $0.name == name }
  }

  /// The provider whose scheme `text` starts with, if any.
  static func scheme(of text: String) -> (any ProviderFactory)? {
    all.first { text.hasPrefix($0.scheme) }
  }

  /// The names for a message, each through `quote`, the last two joined by `conjunction`
  /// (`kodo or oss`, `"kodo" or "oss"`, `kodo:// and oss://`).
  static func names(
    _ conjunction: String, _ quote: (any ProviderFactory) -> String = { $0.name }
  ) -> String {
    let names = all.map(quote)
    guard let last = names.last, names.count > 1 else { return names.first ?? "" }
    return names.dropLast().joined(separator: ", ") + " \(conjunction) " + last
  }
}
