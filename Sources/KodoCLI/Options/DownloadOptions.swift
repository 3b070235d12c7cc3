import ArgumentParser
import StorageCore

/// How `url`, `cat` and `get` pick the base URL objects are fetched from.
struct DownloadOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Base URL to fetch from, scheme included (default: the config's domains[BUCKET], else the bucket's first bound domain).",
      valueName: "BASE_URL"))
  var domain: String?

  func validate() throws {
    if let domain, !URLParts.isBaseURL(domain) {
      throw ValidationError(
        "--domain must be a base URL with http:// or https://, such as https://cdn.example.com")
    }
  }

  /// The choice for `bucket`: `--domain`, else the configured domain.
  func choice(bucket: String, context: Context) -> DomainChoice {
    DomainChoice(explicit: domain, configured: context.configuration.domains[bucket])
  }

  /// Says on stderr which domain was picked when the service offered several.
  static func noteChoice(_ domain: DownloadDomain, bucket: String) {
    guard domain.source == .service, !domain.alternatives.isEmpty else { return }
    Diagnostics.note(
      "bucket \(bucket) has \(domain.alternatives.count + 1) domains; using \(domain.baseURL) (choose with --domain)"
    )
  }
}
