import Foundation
import KodoTestSupport
import StorageCore
import Testing

/// A synthetic bucket's keys that need URL encoding (a space, `+`, `%`, `~`, CJK, an emoji, `&<>`,
/// a trailing space) come out of `kodo ls -r --json` byte for byte on both providers, and each
/// one stats as itself.
@Suite("Synthetic keys that need URL encoding")
struct HostileSyntheticKeyTests {
  static let hostileNames = [
    " with space", "+plus+", " 100%41%", "~tilde", "-照片", "-😀", " a&b<c>",
  ]

  /// The keys of `ls -r --json` and of `ls -r -0`, which must agree.
  static func listed(_ kodo: CLIRunner) async throws -> [String] {
    let json = try await kodo.run(["ls", "-r", "--json", "keys"])
    try #require(json.status == 0, "\(json)")
    let keys = try json.lines.map { line in
      try #require(JSONValue.parse(line)["key"]?.stringValue, "\(line)")
    }
    let raw = try await kodo.run(["ls", "-r", "-0", "keys"])
    try #require(raw.status == 0, "\(raw)")
    let zeroSeparated = raw.stdoutBytes.split(separator: 0, omittingEmptySubsequences: false)
      .dropLast().map { String(decoding: $0, as: UTF8.self) }
    #expect(Array(zeroSeparated) == keys)
    return keys
  }

  @Test func lsJSONRoundTripsThemOnBothProviders() async throws {
    let arguments = ["--synthetic", "keys=400", "--seed", "4"]
    let kodoEmulator = try await EmulatorProcess(arguments)
    defer { kodoEmulator.stop() }
    let ossEmulator = try await EmulatorProcess(["--protocol", "oss"] + arguments)
    defer { ossEmulator.stop() }
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try kodoEmulator.configFile()])
    let oss = CLIRunner(
      "kodo",
      environment: [
        "KODO_PROVIDER": "oss", "OSS_ENDPOINT": ossEmulator.baseURL, "OSS_REGION": "cn-hangzhou",
        "OSS_ACCESS_KEY_ID": ossEmulator.accessKey,
        "OSS_ACCESS_KEY_SECRET": ossEmulator.secretKey,
      ])

    let kodoKeys = try await Self.listed(kodo)
    let ossKeys = try await Self.listed(oss)
    #expect(kodoKeys.count == 400)
    #expect(ossKeys == kodoKeys)
    #expect(
      zip(kodoKeys, kodoKeys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    var hostile = kodoKeys.filter { key in Self.hostileNames.contains { key.contains($0) } }
    for name in Self.hostileNames {
      #expect(hostile.contains { $0.contains(name) }, "no key with \(name.debugDescription)")
    }
    let trailing = kodoKeys.filter { $0.utf8.last == UInt8(ascii: " ") }
    #expect(!trailing.isEmpty)
    hostile += trailing

    // Each stats as itself on both providers: a key mangled on the way would be a 404.
    for runner in [kodo, oss] {
      let stat = try await runner.run(["stat", "--json", "keys"] + hostile)
      #expect(stat.status == 0, "\(stat)")
      let statted = try stat.lines.map { line in
        try #require(JSONValue.parse(line)["key"]?.stringValue, "\(line)")
      }
      #expect(statted == hostile)
    }
  }
}
