import Foundation
import KodoTestSupport
import Testing

/// One emulator for the CLI tests, with a fixture tree made on disk, and a runner wired to it.
final class CLIEnvironment: Sendable {
  static let shared = Task { try await CLIEnvironment() }

  static func get() async throws -> CLIEnvironment { try await shared.value }

  let emulator: EmulatorProcess
  let root: String
  let config: String
  let kodo: CLIRunner

  /// Files of bucket `photos` (public) and `logs` (private), by key.
  static let photos: [String: [UInt8]] = {
    var files: [String: [UInt8]] = [
      "a.txt": Array("hello\n".utf8),
      "b.json": Array(#"{"ok":true}"#.utf8),
      "2024/x.txt": Array("x".utf8),
      "2024/summer trip/beach day.txt": Array("sand\n".utf8),
      "中文/文件.txt": Array("你好\n".utf8),
      "odd/tab\there.txt": Array("t".utf8),
      "odd/new\nline.txt": Array("n".utf8),
      "odd/plus+percent%.txt": Array("p".utf8),
      "empty.bin": [],
    ]
    var big = [UInt8](repeating: 0, count: 5 * 1024 * 1024 + 17)
    for index in big.indices { big[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 13) }
    files["big/five-mib.bin"] = big
    return files
  }()

  static let logs: [String: [UInt8]] = [
    "2024-06-01/app.log": Array("INFO start\nERROR boom\n".utf8),
    "2024-06-02/app.log": Array("INFO again\n".utf8),
  ]

  private init() async throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-cli-\(UUID())").path
    try Self.writeTree(root: root, [("photos", Self.photos), ("logs", Self.logs)])
    emulator = try await EmulatorProcess([
      "--bucket", "photos=\(root)/photos", "--bucket", "logs=\(root)/logs", "--private", "logs",
      "--synthetic", "big=12000", "--seed", "7",
    ])
    config = try emulator.configFile(bucket: "photos")
    kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
  }

  /// Writes each bucket's files under `root/BUCKET/KEY`, for `--bucket NAME=DIR`.
  static func writeTree(root: String, _ buckets: [(String, [String: [UInt8]])]) throws {
    for (bucket, files) in buckets {
      for (key, bytes) in files {
        let path = root + "/" + bucket + "/" + key
        try FileManager.default.createDirectory(
          atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
          throw EmulatorStartFailure(output: "cannot create \(path)")
        }
      }
    }
  }

  /// Runs kodo with the emulator's config.
  func run(_ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:])
    async throws -> CLIRunner.Result
  {
    try await kodo.run(arguments, stdin: stdin, environment: environment)
  }

  /// Every key of `bucket` under `prefix`, sorted by bytes.
  static func keys(_ files: [String: [UInt8]], prefix: String = "") -> [String] {
    files.keys.filter { $0.hasPrefix(prefix) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// JSON lines of stdout, parsed.
  static func jsonLines(_ result: CLIRunner.Result) throws -> [[String: Any]] {
    try result.lines.map { line in
      guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      else {
        throw EmulatorStartFailure(output: "not a JSON object: \(line)")
      }
      return object
    }
  }
}
