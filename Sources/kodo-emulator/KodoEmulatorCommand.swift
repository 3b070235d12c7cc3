import ArgumentParser
import Dispatch
import Foundation
import KodoCore
import KodoEmulator
import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `kodo-emulator`: parses the flags, starts an `EmulatorServer`, prints where it listens, and
/// serves until SIGINT or SIGTERM.
@main
struct KodoEmulatorCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "kodo-emulator",
    abstract: "A local Kodo- or OSS-compatible server for demos and for testing scripts.",
    discussion: """
      One base URL serves the uc, rs, rsf and api endpoints (/v4/query, /buckets, /v2/buckets,
      /v2/bucketInfo, /v2/domains, /list, /stat/...); each bucket's objects download from
      http://HOST:PORT/dl/BUCKET/KEY. The first line on stdout is
      'kodo-emulator listening on http://HOST:PORT'. Runs until SIGINT or SIGTERM.
      With --protocol oss it serves the same buckets as Aliyun OSS does, path style
      (http://HOST:PORT/BUCKET/KEY), with V1/V4 signatures, presigned URLs and STS.
      See docs/emulator.md for the endpoints, the control API and fault injection.
      """,
    version: KodoVersion.current)

  @Option(help: "The address to listen on.")
  var host = "127.0.0.1"

  @Option(help: "The port to listen on; 0 picks a free one.")
  var port = 0

  @Option(help: "The access key requests must be signed with (default: a demo key, printed).")
  var accessKey: String?

  @Option(help: "The secret key requests must be signed with (default: a demo key, printed).")
  var secretKey: String?

  @Option(
    name: .customLong("bucket"),
    help: ArgumentHelp("Serve directory DIR, read-only, as bucket NAME.", valueName: "NAME=DIR"))
  var directoryBuckets: [String] = []

  @Option(
    name: .customLong("synthetic"),
    help: ArgumentHelp("Serve COUNT generated objects as bucket NAME.", valueName: "NAME=COUNT"))
  var syntheticBuckets: [String] = []

  @Option(
    name: .customLong("private"),
    help: ArgumentHelp("Require private-URL tokens to download from NAME.", valueName: "NAME"))
  var privateBuckets: [String] = []

  @Option(help: "Delay every API response by N milliseconds (downloads are not delayed).")
  var latencyMs = 0

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
    guard (accessKey == nil) == (secretKey == nil) else {
      throw ValidationError("Give --access-key and --secret-key together, or neither.")
    }
    guard EmulatorProtocol(rawValue: wireProtocol) != nil else {
      throw ValidationError("--protocol must be kodo or oss, not '\(wireProtocol)'.")
    }
    guard latencyMs >= 0 else { throw ValidationError("--latency-ms must not be negative.") }
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
  }

  /// The buckets the flags define.
  private func buckets() throws -> [EmulatorBucket] {
    var result = [EmulatorBucket]()
    for spec in directoryBuckets {
      let (name, directory) = try split(spec, flag: "--bucket", value: "DIR")
      result.append(.directory(name, path: directory))
    }
    for spec in syntheticBuckets {
      let (name, countText) = try split(spec, flag: "--synthetic", value: "COUNT")
      guard let count = Int(countText), (0...1_000_000_000).contains(count) else {
        throw ValidationError(
          "--synthetic \(spec): COUNT must be a whole number between 0 and 1000000000.")
      }
      result.append(.synthetic(name, count: count))
    }
    return result
  }

  private func split(_ spec: String, flag: String, value: String) throws -> (String, String) {
    guard let equals = spec.firstIndex(of: "=") else {
      throw ValidationError("\(flag) \(spec): expected NAME=\(value).")
    }
    let name = String(spec[..<equals])
    let rest = String(spec[spec.index(after: equals)...])
    guard Self.isValidBucketName(name) else {
      throw ValidationError(
        "\(flag) \(spec): a bucket name is 1-63 characters of a-z A-Z 0-9 - _.")
    }
    guard !rest.isEmpty else { throw ValidationError("\(flag) \(spec): \(value) is empty.") }
    return (name, rest)
  }

  private static func isValidBucketName(_ name: String) -> Bool {
    (1...63).contains(name.utf8.count)
      && name.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
      }
  }

  func run() async throws {
    signal(SIGPIPE, SIG_IGN)
    var configuration = EmulatorConfiguration(
      host: host, port: port, buckets: try buckets(), privateBuckets: Set(privateBuckets),
      latencyMilliseconds: latencyMs, failRate: failRate, seed: seed)
    configuration.wireProtocol = EmulatorProtocol(rawValue: wireProtocol) ?? .kodo
    configuration.region = region
    configuration.securityToken = securityToken
    let usesDefaultCredentials = accessKey == nil
    if let accessKey, let secretKey {
      configuration.credentials = Credentials(accessKey: accessKey, secretKey: secretKey)
    }
    let stop = TerminationSignals()
    let server: EmulatorServer
    do {
      server = try await EmulatorServer.start(configuration)
    } catch {
      Self.printError("\(error)")
      throw ExitCode(Self.status(for: error))
    }
    var lines = ["kodo-emulator listening on " + server.baseURL]
    for bucket in server.buckets {
      let objects = bucket.objectCount == 1 ? "1 object" : "\(bucket.objectCount) objects"
      lines.append(
        "bucket \(bucket.name): \(server.bucketURL(for: bucket.name)) (\(objects), \(bucket.source), "
          + (bucket.isPrivate ? "private" : "public") + ")")
    }
    if server.buckets.isEmpty {
      lines.append("no buckets: add some with --bucket NAME=DIR or --synthetic NAME=COUNT")
    }
    lines.append("access key: " + server.credentials.accessKey)
    lines.append(
      "secret key: "
        + (usesDefaultCredentials
          ? EmulatorConfiguration.defaultSecretKey : "(as given with --secret-key)"))
    if server.wireProtocol == .oss {
      lines.append("protocol: oss, region " + configuration.region + ", path style")
      if securityToken != nil { lines.append("security token: (as given with --security-token)") }
    }
    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))

    await stop.wait()
    try await server.shutdown()
  }

  private static func status(for error: EmulatorError) -> Int32 {
    switch error {
    case .directoryNotFound, .notADirectory, .unreadableDirectory, .unreadableFile: 66
    case .bindFailed: 69
    case .invalidBucketName, .duplicateBucket, .unknownPrivateBucket, .duplicateKey,
      .invalidConfiguration:
      64
    }
  }

  private static func printError(_ message: String) {
    FileHandle.standardError.write(Data(("kodo-emulator: error: " + message + "\n").utf8))
  }
}

/// Waits for SIGINT or SIGTERM, which stop killing the process once this exists.
private final class TerminationSignals {
  private let sources: [any DispatchSourceSignal]
  private let state = SignalState()

  init() {
    let queue = DispatchQueue(label: "kodo-emulator.signals")
    var sources = [any DispatchSourceSignal]()
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      sources.append(DispatchSource.makeSignalSource(signal: number, queue: queue))
    }
    self.sources = sources
    for source in sources {
      source.setEventHandler { [state] in state.fire() }
      source.resume()
    }
  }

  /// Returns once a signal has arrived (at once if one already has).
  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      state.register(continuation)
    }
  }
}

/// Whether a signal arrived, and who is waiting for one.
// Every access to `fired` and `waiter` holds `lock`, which makes the unchecked conformance sound.
private final class SignalState: @unchecked Sendable {
  private let lock = NSLock()
  private var fired = false
  private var waiter: CheckedContinuation<Void, Never>?

  func fire() {
    lock.lock()
    fired = true
    let waiting = waiter
    waiter = nil
    lock.unlock()
    waiting?.resume()
  }

  func register(_ continuation: CheckedContinuation<Void, Never>) {
    lock.lock()
    if fired {
      lock.unlock()
      continuation.resume()
      return
    }
    waiter = continuation
    lock.unlock()
  }
}
