import Foundation
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// One `kodo-emulator --protocol oss` for the OSS command tests, with a fixture tree of hostile
/// keys on disk, and runners that configure kodo through the environment only (no config file),
/// as the emulator's export line does.
final class OSSEnvironment: Sendable {
  static let shared = Task { try await OSSEnvironment() }
  /// A second emulator for the tests that schedule faults, so that no other suite's request
  /// takes a fault meant for them (suites run in parallel).
  static let forFaults = Task { try await OSSEnvironment() }

  static func get() async throws -> OSSEnvironment { try await shared.value }

  let emulator: EmulatorProcess
  let root: String

  /// Files of bucket `photos` (public-read) and `vault` (private), by key.
  static let photos: [String: [UInt8]] = {
    var files: [String: [UInt8]] = [
      "a.txt": Array("hello\n".utf8),
      "dir/b c+%.txt": Array("space plus percent\n".utf8),
      "dir/tilde~x.txt": Array("tilde".utf8),
      "dir/pct%2Fnot-a-slash.txt": Array("pct".utf8),
      "中文/文件.txt": Array("你好\n".utf8),
      "emoji😀.txt": Array("smile".utf8),
      "trailing space ": Array("ts".utf8),
      "plus+only.txt": Array("p".utf8),
      "empty.bin": [],
    ]
    var big = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 5)
    for index in big.indices { big[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index >> 11) }
    files["big/three-mib.bin"] = big
    return files
  }()

  static let vault: [String: [UInt8]] = ["secret/plan.txt": Array("private bytes\n".utf8)]

  private init() async throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-oss-\(UUID())").path
    try CLIEnvironment.writeTree(root: root, [("photos", Self.photos), ("vault", Self.vault)])
    emulator = try await EmulatorProcess([
      "--protocol", "oss", "--bucket", "photos=\(root)/photos", "--bucket", "vault=\(root)/vault",
      "--private", "vault", "--synthetic", "many=2500", "--seed", "3",
    ])
  }

  /// The environment the emulator's export line sets.
  var variables: [String: String] {
    [
      "KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.baseURL, "OSS_REGION": "cn-hangzhou",
      "OSS_ACCESS_KEY_ID": emulator.accessKey, "OSS_ACCESS_KEY_SECRET": emulator.secretKey,
    ]
  }

  /// A runner configured by the environment for another OSS emulator (`OSS_SESSION_TOKEN` set
  /// when `token` is given).
  func runner(for other: EmulatorProcess, token: String? = nil) -> CLIRunner {
    var variables = self.variables
    variables["OSS_ENDPOINT"] = other.baseURL
    variables["OSS_ACCESS_KEY_ID"] = other.accessKey
    variables["OSS_ACCESS_KEY_SECRET"] = other.secretKey
    if let token { variables["OSS_SESSION_TOKEN"] = token }
    return CLIRunner("kodo", environment: variables)
  }

  /// Runs kodo configured by the environment only (V4), with `environment` on top.
  func run(_ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:])
    async throws -> CLIRunner.Result
  {
    try await CLIRunner("kodo", environment: variables).run(
      arguments, stdin: stdin, environment: environment)
  }

  /// Runs kodo with a config file holding `json` (and the environment's credentials, unless
  /// `environment` overrides them).
  func run(config json: String, _ arguments: [String], environment: [String: String] = [:])
    async throws -> CLIRunner.Result
  {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-oss-config-\(UUID()).json"
    ).path
    try Data(json.utf8).write(to: URL(fileURLWithPath: path))
    _ = chmod(path, 0o600)
    defer { try? FileManager.default.removeItem(atPath: path) }
    var variables = self.variables
    variables["KODO_CONFIG"] = path
    for (name, value) in environment { variables[name] = value }
    return try await CLIRunner("kodo", environment: variables).run(arguments)
  }

  /// A V1 config for the emulator.
  var v1Config: String {
    #"{"provider":"oss","signatureVersion":"v1","endpoint":"\#(emulator.baseURL)","region":"cn-hangzhou"}"#
  }

  /// Every key of `files` under `prefix`, sorted by bytes.
  static func keys(_ files: [String: [UInt8]], prefix: String = "") -> [String] {
    files.keys.filter { $0.hasPrefix(prefix) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// Fetches `url` without kodo: status and body.
  static func fetch(_ url: String) async throws -> (status: Int, body: [UInt8]) {
    var configuration = CurlTransport.Configuration()
    configuration.proxy = .none
    let response = try await CurlTransport(configuration: configuration).send(
      HTTPRequest(method: "GET", url: url))
    return (response.status, response.body)
  }

  /// JSON lines of stdout, parsed.
  static func jsonLines(_ result: CLIRunner.Result) throws -> [[String: Any]] {
    try CLIEnvironment.jsonLines(result)
  }
}
