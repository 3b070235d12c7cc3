import ArgumentParser
import StorageCore

/// Options every command accepts, before or after the subcommand name.
struct GlobalOptions: ParsableArguments {
  @Option(
    name: .long, help: ArgumentHelp("Read configuration from FILE.", valueName: "FILE"),
    completion: .file())
  var config: String?

  @Option(
    name: .long, help: ArgumentHelp("Use profile NAME from the config file.", valueName: "NAME"),
    completion: ShellCompletion.profile)
  var profile: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The service: kodo (Qiniu Kodo) or oss (Aliyun OSS); also oss://BUCKET.", valueName: "NAME"))
  var provider: String?

  @Flag(name: .long, help: "Write JSON Lines (one compact object per line) to stdout.")
  var json = false

  @Flag(
    name: .shortAndLong, help: "Log each request (method, URL, status, time, X-Reqid) to stderr.")
  var verbose = false

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Send each request at most N times (1 = no retries; default 5).", valueName: "N"))
  var retries: Int?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Give up on a request after SECONDS in all, and on a download after SECONDS without progress (default: 120 and 30).",
      valueName: "SECONDS"))
  var timeout: Int?

  /// These options merged with the same options given before the subcommand name.
  func merged(with parent: GlobalOptions) -> GlobalOptions {
    var merged = self
    merged.config = config ?? parent.config
    merged.profile = profile ?? parent.profile
    merged.provider = provider ?? parent.provider
    merged.json = json || parent.json
    merged.verbose = verbose || parent.verbose
    merged.retries = retries ?? parent.retries
    merged.timeout = timeout ?? parent.timeout
    return merged
  }

  func validate() throws {
    if let provider, ProviderRegistry.named(provider) == nil {
      throw ValidationError("--provider must be \(ProviderRegistry.names("or")), not \(provider)")
    }
    if let retries, !(1...20).contains(retries) {
      throw ValidationError("--retries must be between 1 and 20")
    }
    if let timeout, !(1...3600).contains(timeout) {
      throw ValidationError("--timeout must be between 1 and 3600 seconds")
    }
  }
}
