import ArgumentParser
import Foundation
import StorageCore

/// What a command runs with: the merged options, the configuration, the runtime, and the
/// provider it talks to.
struct Context: Sendable {
  let options: GlobalOptions
  let configuration: Configuration
  let runtime: Runtime
  /// The provider a scheme on a bucket argument named.
  let scheme = SchemeChoice()

  var environment: [String: String] { runtime.environment }

  /// Loads the configuration (warning once if the file is readable by others).
  init(options: GlobalOptions) throws(StorageError) {
    self.options = options
    runtime = Runtime.current
    configuration = try Configuration.load(
      configFlag: options.config, profileFlag: options.profile, environment: runtime.environment)
    if configuration.fileReadableByOthers, let file = configuration.file {
      Diagnostics.warning(
        "config file \(file) can be read by other users and holds a secret key; run: chmod 600 \(file)"
      )
    }
  }

  var transportConfiguration: CurlTransport.Configuration {
    var configuration = CurlTransport.Configuration()
    if let timeout = options.timeout {
      configuration.idleTimeout = .seconds(timeout)
      configuration.connectTimeout = .seconds(min(timeout, 10))
      configuration.requestTimeout = .seconds(timeout)
    }
    return configuration
  }

  var retryPolicy: RetryPolicy {
    var retry = RetryPolicy()
    if let retries = options.retries { retry.maxAttempts = retries }
    return retry
  }

  /// `-v` request lines and the clock-skew warning.
  var observer: @Sendable (ClientNotice) -> Void {
    let verbose = options.verbose
    let runtime = self.runtime
    return { notice in
      Runtime.$current.withValue(runtime) {
        switch notice {
        case .request(let event):
          if verbose { Diagnostics.note(Context.describe(event)) }
        case .clockSkew(let seconds):
          Diagnostics.warning(
            "the local clock is \(abs(seconds)) s \(seconds > 0 ? "behind" : "ahead of") the service's; signing with the service's time (fix the system clock)"
          )
        }
      }
    }
  }

  /// One `-v` line: method, URL, status, time, request id, attempt, and the redacted
  /// `Authorization`.
  static func describe(_ event: RequestEvent) -> DisplayText {
    let milliseconds =
      event.duration.components.seconds * 1000 + event.duration.components.attoseconds
      / 1_000_000_000_000_000
    var line: DisplayText = "\(event.method) \(event.url) -> "
    if let status = event.status { line += "\(status)" } else { line += "no answer" }
    line += " (\(milliseconds) ms)"
    if let requestID = event.requestID { line += " request id \(requestID)" }
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
    if let given, !given.isEmpty { return try strippingScheme(given) }
    if let bucket = configuration.bucket { return bucket }
    throw ValidationError(
      "no bucket given: name one (kodo buckets lists them), or set a default \"bucket\" in the config file"
    )
  }

  /// `[BUCKET] KEY` from one or two positional arguments.
  func bucketAndKey(_ arguments: [String]) throws -> (bucket: String, key: String) {
    switch arguments.count {
    case 1: return try object(arguments[0])
    case 2: return (try strippingScheme(arguments[0]), arguments[1])
    default: throw ValidationError("expected [BUCKET] KEY: one object")
    }
  }

  /// One argument that names an object: `oss://BUCKET/KEY` or `kodo://BUCKET/KEY`; else a key
  /// in the default bucket; else, when no default bucket is configured, `BUCKET/KEY` (as
  /// ossutil, mc and aws write it).
  func object(_ argument: String) throws -> (bucket: String, key: String) {
    let path = try strippingScheme(argument)
    let schemed = path != argument
    if !schemed, let bucket = configuration.bucket { return (bucket, argument) }
    if let (bucket, key) = KeySegments.splitAtFirstSlash(path), !bucket.isEmpty, !key.isEmpty {
      return (String(bucket), String(key))
    }
    let quoted = DisplayText(quoting: argument)
    if schemed {
      throw ValidationError(
        "\(quoted) names a bucket but no key: give BUCKET/KEY after the scheme, or BUCKET KEY")
    }
    throw ValidationError(
      "\(quoted) alone would be a key in the default bucket, and none is configured: give the bucket and the key, as BUCKET KEY or BUCKET/KEY"
    )
  }
}

/// Adopted by every subcommand: global options merged with the root's; failures are thrown to
/// the one error path (`ErrorReporting`).
protocol KodoCommand: AsyncParsableCommand, Sendable {
  var global: GlobalOptions { get }
  var root: Kodo { get }
  func execute(_ context: Context) async throws
}

extension KodoCommand {
  mutating func run() async throws {
    let options = global.merged(with: root.global)
    let command = self
    try await Signals.run {
      try await command.execute(try Context(options: options))
    }
  }
}
