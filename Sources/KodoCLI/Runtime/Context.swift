import ArgumentParser
import Foundation
import KodoCore
import StorageCore

/// What a command runs with: the merged options, the configuration, and a client.
struct Context: Sendable {
  let options: GlobalOptions
  let configuration: Configuration
  let environment: [String: String]

  /// Loads the configuration (warning once if the file is readable by others).
  init(options: GlobalOptions) throws(StorageError) {
    self.options = options
    environment = ProcessInfo.processInfo.environment
    configuration = try Configuration.load(
      configFlag: options.config, profileFlag: options.profile, environment: environment)
    if configuration.fileReadableByOthers, let file = configuration.file {
      Diagnostics.warning(
        "config file \(file) can be read by other users and holds a secret key; run: chmod 600 \(file)"
      )
    }
  }

  /// A client with the configured credentials, hosts, retries and timeouts.
  func client() throws(StorageError) -> KodoClient {
    let credentials = try configuration.requireCredentials()
    var transportConfiguration = CurlTransport.Configuration()
    if let timeout = options.timeout {
      transportConfiguration.idleTimeout = .seconds(timeout)
      transportConfiguration.connectTimeout = .seconds(min(timeout, 10))
    }
    let verbose = options.verbose
    let observer: @Sendable (ClientNotice) -> Void = { notice in
      switch notice {
      case .request(let event):
        if verbose { Diagnostics.note(Context.describe(event)) }
      case .clockSkew(let seconds):
        Diagnostics.warning(
          "the local clock is \(abs(seconds)) s \(seconds > 0 ? "behind" : "ahead of") Kodo's; signing with Kodo's time (fix the system clock)"
        )
      }
    }
    var retry = RetryPolicy()
    if let retries = options.retries { retry.maxAttempts = retries }
    let cacheDirectory =
      (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? environment["HOME"].map { $0 + "/.cache" }).map { $0 + "/kodo" }
    return KodoClient(
      credentials: credentials, transport: CurlTransport(configuration: transportConfiguration),
      options: KodoClient.Options(
        hosts: configuration.hosts, retry: retry, regionCacheDirectory: cacheDirectory,
        observer: observer))
  }

  static func describe(_ event: RequestEvent) -> String {
    let milliseconds = Int(
      event.duration.components.seconds * 1000 + event.duration.components.attoseconds
        / 1_000_000_000_000_000)
    var line = "\(event.method) \(DisplayText.escaped(event.url)) -> "
    if let status = event.status { line += "\(status)" } else { line += "no answer" }
    line += " (\(milliseconds) ms)"
    if let requestID = event.requestID { line += " X-Reqid: \(DisplayText.escaped(requestID))" }
    if event.attempt > 1 { line += " attempt \(event.attempt)" }
    if let error = event.error, event.status == nil || event.willRetry {
      line += " [\(error.message)]"
    }
    if event.willRetry { line += ", retrying" }
    if let authorization = event.headers["Authorization"] {
      line += " Authorization: \(authorization)"
    }
    return line
  }

  /// The bucket named on the command line, else the configured default.
  func bucket(_ given: String?) throws -> String {
    if let given, !given.isEmpty { return given }
    if let bucket = configuration.bucket { return bucket }
    throw ValidationError("no bucket given and no default \"bucket\" in the config file")
  }

  /// `[BUCKET] KEY` from one or two positional arguments.
  func bucketAndKey(_ arguments: [String]) throws -> (bucket: String, key: String) {
    switch arguments.count {
    case 1: return (try bucket(nil), arguments[0])
    case 2: return (arguments[0], arguments[1])
    default: throw ValidationError("expected [BUCKET] KEY")
    }
  }
}

/// `[BUCKET] KEY` for commands about one object (stat, cat, get).
struct ObjectArguments: ParsableArguments {
  @Argument(
    help: ArgumentHelp(
      "[BUCKET] KEY: the bucket (default: the configured one) and the key.", valueName: "BUCKET KEY"
    ))
  var arguments: [String] = []

  func validate() throws {
    guard (1...2).contains(arguments.count) else { throw ValidationError("expected [BUCKET] KEY") }
  }

  /// The bucket (or the configured default) and a non-empty key.
  func resolve(_ context: Context) throws -> (bucket: String, key: String) {
    let (bucket, key) = try context.bucketAndKey(arguments)
    guard !key.isEmpty else { throw StorageError(.invalidInput, "the key is empty") }
    return (bucket, key)
  }
}

/// Adopted by every subcommand: global options merged with the root's, errors reported once.
protocol KodoCommand: AsyncParsableCommand, Sendable {
  var global: GlobalOptions { get }
  var root: Kodo { get }
  func execute(_ context: Context) async throws
}

extension KodoCommand {
  mutating func run() async throws {
    let options = global.merged(with: root.global)
    let command = self
    try await runReportingErrors {
      try await Signals.run {
        try await command.execute(try Context(options: options))
      }
    }
  }
}
