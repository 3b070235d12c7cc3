import ArgumentParser
import KodoCore
import KodoEmulator
import StorageCore

/// `kodo-emulator`'s flags and what they mean: the checks that need nothing but the flags, and the
/// `EmulatorConfiguration` they make. `EmulatorMain` runs it.
struct EmulatorCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "kodo-emulator",
    abstract: "A local Kodo- or OSS-compatible server for demos and for testing scripts.",
    discussion: """
      One base URL serves the uc, rs, rsf and api endpoints (/v4/query, /buckets, /v2/buckets, \
      /v2/bucketInfo, /v2/domains, /list, /stat/...); each bucket's objects download from \
      http://HOST:PORT/dl/BUCKET/KEY. The first line on stdout is \
      'kodo-emulator listening on http://HOST:PORT'; a later 'export' line points kodo at it \
      (KODO_ENDPOINT and the credentials). Runs until SIGINT or SIGTERM.

      The secret key can also come from --secret-key-file or the environment variable \
      KODO_EMULATOR_SECRET_KEY, which keep it out of the process list. A secret key given in \
      any of these ways is never printed.

      Writes (uploads, deletes, copies, moves, metadata changes) are taken by in-memory buckets \
      (--bucket NAME) and by directory buckets named with --writable; other buckets refuse them \
      with the service's access-denied answer.

      With --protocol oss it serves the same buckets as Aliyun OSS does, path style \
      (http://HOST:PORT/BUCKET/KEY), with V1/V4 signatures, presigned URLs and STS tokens.

      See docs/emulator.md for the endpoints, the control API and fault injection.
      """,
    version: KodoVersion.current)

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on; 0 picks a free one.")
  var port = 0

  @Option(help: "The access key requests must be signed with (default: a demo key, printed).")
  var accessKey: String?

  @Option(
    help: """
      The secret key requests must be signed with (default: a demo key, printed). Visible in \
      the process list: --secret-key-file or KODO_EMULATOR_SECRET_KEY are safer.
      """)
  var secretKey: String?

  @Option(
    help: ArgumentHelp(
      "Read the secret key from the first line of FILE.", valueName: "FILE"))
  var secretKeyFile: String?

  @Option(
    name: .customLong("bucket"),
    help: ArgumentHelp(
      """
      Serve directory DIR as bucket NAME (read-only unless --writable NAME); NAME alone is an \
      empty in-memory bucket that takes writes.
      """, valueName: "NAME[=DIR]"))
  var directoryBuckets: [String] = []

  @Option(
    name: .customLong("writable"),
    help: ArgumentHelp(
      """
      Let the directory bucket NAME take writes into its directory (atomic renames; metadata \
      in DIR/.kodo-emulator/).
      """, valueName: "NAME"))
  var writableBuckets: [String] = []

  @Option(
    help: ArgumentHelp(
      "Forget unfinished multipart and resumable uploads after this many seconds.",
      valueName: "SECONDS"))
  var uploadTtl: Int64 = 7 * 86_400

  @Option(
    help: ArgumentHelp(
      "The bytes in-memory buckets and unfinished uploads may hold together (MiB).",
      valueName: "MIB"))
  var memoryLimit: Int64 = 1_024

  @Option(
    name: .customLong("synthetic"),
    help: ArgumentHelp(
      "Serve COUNT generated objects as bucket NAME (COUNT:flat puts them all in one folder).",
      valueName: "NAME=COUNT"))
  var syntheticBuckets: [String] = []

  @Option(
    name: .customLong("private"),
    help: ArgumentHelp("Require private-URL tokens to download from NAME.", valueName: "NAME"))
  var privateBuckets: [String] = []

  @Option(help: "Delay every API response by N milliseconds (downloads are not delayed).")
  var latencyMs = 0

  @Option(help: "Delay every download's answer by N milliseconds.")
  var downloadLatencyMs = 0

  @Option(
    help: "Answer this fraction (0-1) of API requests with a retryable failure.")
  var failRate = 0.0

  @Option(help: "Seed for synthetic buckets and the fail-rate sequence.")
  var seed: UInt64 = 0

  @Option(
    name: .customLong("protocol"),
    help: ArgumentHelp(
      "The protocol to speak: kodo, or oss (Aliyun OSS, path style).", valueName: "kodo|oss"))
  var wireProtocol = "kodo"

  @Option(help: "OSS: the region ID V4 signatures must name.")
  var region = "cn-hangzhou"

  @Option(help: "OSS: the STS security token every signed request must carry.")
  var securityToken: String?

  func validate() throws {
    guard (0...65_535).contains(port) else {
      throw ValidationError("--port must be between 0 and 65535, not \(port).")
    }
    guard secretKey == nil || secretKeyFile == nil else {
      throw ValidationError("Give --secret-key or --secret-key-file, not both.")
    }
    guard (0...EmulatorServer.maximumLatencyMilliseconds).contains(latencyMs) else {
      throw ValidationError(
        "--latency-ms must be between 0 and \(EmulatorServer.maximumLatencyMilliseconds).")
    }
    guard (0...EmulatorServer.maximumLatencyMilliseconds).contains(downloadLatencyMs) else {
      throw ValidationError(
        "--download-latency-ms must be between 0 and \(EmulatorServer.maximumLatencyMilliseconds)."
      )
    }
    guard EmulatorProtocol(rawValue: wireProtocol) != nil else {
      throw ValidationError("--protocol must be kodo or oss, not '\(wireProtocol)'.")
    }
    guard (0...1).contains(failRate) else {
      throw ValidationError("--fail-rate must be between 0 and 1, not \(failRate).")
    }
    var names = Set<String>()
    for bucket in try buckets() {
      guard names.insert(bucket.name).inserted else {
        throw ValidationError("Bucket '\(bucket.name)' is defined twice.")
      }
    }
    for name in privateBuckets where !names.contains(name) {
      throw ValidationError(
        "--private \(name): no bucket '\(name)'; define it with --bucket or --synthetic.")
    }
    let directories = Set(
      try buckets().compactMap { bucket -> String? in
        if case .directory = bucket.source { return bucket.name }
        return nil
      })
    for name in writableBuckets where !directories.contains(name) {
      throw ValidationError(
        "--writable \(name): no directory bucket '\(name)'; define it with --bucket \(name)=DIR.")
    }
    guard uploadTtl >= 1 && uploadTtl <= 365 * 86_400 else {
      throw ValidationError("--upload-ttl must be between 1 and 31536000 seconds.")
    }
    guard memoryLimit >= 1 && memoryLimit <= 1 << 20 else {
      throw ValidationError("--memory-limit must be between 1 and 1048576 MiB.")
    }
  }

  /// The buckets the flags define.
  private func buckets() throws -> [EmulatorBucket] {
    var result = [EmulatorBucket]()
    for spec in directoryBuckets {
      if !spec.contains("=") {
        try validateName(spec, flag: "--bucket", spec: spec)
        result.append(.memory(spec))
        continue
      }
      let (name, directory) = try split(spec, flag: "--bucket", value: "DIR")
      result.append(.directory(name, path: directory))
    }
    for spec in syntheticBuckets {
      var (name, countText) = try split(spec, flag: "--synthetic", value: "COUNT")
      let flat = countText.hasSuffix(":flat")
      if flat { countText = String(countText.dropLast(5)) }
      guard let count = Int(countText), (0...1_000_000_000).contains(count) else {
        throw ValidationError(
          "--synthetic \(spec): COUNT must be a whole number between 0 and 1000000000.")
      }
      result.append(.synthetic(name, count: count, flat: flat))
    }
    return result
  }

  private func split(_ spec: String, flag: String, value: String) throws -> (String, String) {
    guard let equals = spec.firstIndex(of: "=") else {
      throw ValidationError("\(flag) \(spec): expected NAME=\(value).")
    }
    let name = String(spec[..<equals])
    let rest = String(spec[spec.index(after: equals)...])
    try validateName(name, flag: flag, spec: spec)
    guard !rest.isEmpty else { throw ValidationError("\(flag) \(spec): \(value) is empty.") }
    return (name, rest)
  }

  private func validateName(_ name: String, flag: String, spec: String) throws {
    do {
      try BucketName.validate(name)
    } catch {
      throw ValidationError(
        "\(flag) \(spec): a bucket name is 1-63 characters of a-z A-Z 0-9 - _.")
    }
  }

  /// Where the secret key comes from, if not the default.
  func secretKeySource(environment: [String: String]) -> SecretKeySource? {
    if secretKey != nil { return .flag }
    if let secretKeyFile { return .file(secretKeyFile) }
    if environment[SecretKeySource.environmentVariable] != nil { return .environment }
    return nil
  }

  /// The checks that also read the environment (`KODO_EMULATOR_SECRET_KEY`): a secret key needs
  /// an access key, and an access key a secret key.
  func validateCredentials(environment: [String: String]) throws {
    let secretSource = secretKeySource(environment: environment)
    if accessKey == nil, let secretSource {
      throw ValidationError(
        "A secret key comes from \(secretSource.name): give --access-key with it"
          + (secretSource == .environment ? " (or unset KODO_EMULATOR_SECRET_KEY)." : "."))
    }
    guard accessKey == nil || secretSource != nil else {
      throw ValidationError(
        "Give --access-key with a secret key (--secret-key, --secret-key-file or "
          + "KODO_EMULATOR_SECRET_KEY), or neither.")
    }
  }

  /// The server's configuration; the secret key read from where the flags say.
  ///
  /// - Throws: `SecretKeySource.Failure` when the secret key cannot be read.
  func configuration(environment: [String: String]) throws -> EmulatorConfiguration {
    var configuration = EmulatorConfiguration(
      host: host, port: port, buckets: try buckets(), privateBuckets: Set(privateBuckets),
      latencyMilliseconds: latencyMs, failRate: failRate, seed: seed)
    configuration.wireProtocol = EmulatorProtocol(rawValue: wireProtocol) ?? .kodo
    configuration.downloadLatencyMilliseconds = downloadLatencyMs
    configuration.region = region
    configuration.securityToken = securityToken
    configuration.writableBuckets = Set(writableBuckets)
    configuration.uploadTTLSeconds = uploadTtl
    configuration.memoryLimit = memoryLimit << 20
    if let accessKey, let source = secretKeySource(environment: environment) {
      let secret = try source.read(flag: secretKey, environment: environment)
      configuration.credentials = Credentials(accessKey: accessKey, secretKey: secret)
    }
    return configuration
  }

  /// The exit status for a server that could not start.
  static func status(for error: EmulatorError) -> Int32 {
    switch error {
    case .directoryNotFound, .notADirectory, .unreadableDirectory, .unreadableFile: 66
    case .bindFailed: 69
    case .invalidBucketName, .duplicateBucket, .unknownPrivateBucket, .duplicateKey,
      .invalidConfiguration, .notAWritableBucket, .directoryInUse:
      64
    }
  }
}
