import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// `ls -r` of a synthetic bucket (keys with spaces, `+`, `%`, `~`, CJK, emoji, `&<>`, trailing
/// spaces; every field a listing carries) writes exactly the bytes it wrote before the listing
/// path was tuned (issue 23), on both protocols, as JSON Lines, text and `-0`: the SHA-256 of
/// each output was recorded from the build before the change.
@Suite("Listing a synthetic bucket writes the recorded bytes (both protocols)")
struct ListingSyntheticGoldenTests {
  /// The SHA-256 of stdout, by protocol and form.
  static let golden: [String: String] = [
    "kodo json": "8fdff2b725dc4e5f7899098735fd7f6b8000ff93c85324763bf1f04d56362132",
    "kodo nul": "54e8eb5490936aac469a296672b251a41be05e68d01b4843cc0fa6075bf73f39",
    "kodo text": "6e9520c00f5f791900681020c05f2e37310c5645e72d065b47f9baeec713d654",
    "oss json": "f7f50f10db290af3d0c156b50a4a8725d8dc75ac0a7ee3717b8f1b293647afc7",
    "oss nul": "54e8eb5490936aac469a296672b251a41be05e68d01b4843cc0fa6075bf73f39",
    "oss text": "6e9520c00f5f791900681020c05f2e37310c5645e72d065b47f9baeec713d654",
    "kodo long": "f4843882042187794c56a2b501b01460e9f1a6a6df29bc838f1717dd9c646b65",
    "oss long": "57aa4d2be2b68152085b45f70e70b5d18d56bb1c123cfd4b610241c0e55f55d6",
  ]

  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  @Test(arguments: RemoveTests.wires)
  func outputIsTheRecordedBytes(_ wire: EmulatorProtocol) async throws {
    var configuration = EmulatorConfiguration(
      credentials: RemoveTests.credentials, buckets: [.synthetic("keys", count: 2_500)], seed: 4)
    configuration.wireProtocol = wire
    try await EmulatorHarness.with(configuration) { emulator in
      let environment = MoveRecursiveTests.environment(wire, emulator)
      let name = wire == .kodo ? "kodo" : "oss"
      let forms: [(String, [String])] = [
        ("json", ["--json"]), ("nul", ["-0"]), ("text", []), ("long", ["-l", "--summarize"]),
      ]
      for (form, flags) in forms {
        let arguments = ["ls", "-r", "--page-size", "700"] + flags + ["keys"]
        // Text shows local times: a process of its own, with `TZ=UTC` (CLIRunner's).
        let result =
          form == "text" || form == "long"
          ? try await CLIRunner("kodo", environment: environment).run(arguments)
          : try await InProcess.run(arguments, environment: environment)
        #expect(result.status == 0, "\(result)")
        if form == "nul" {
          // The bucket does hold the hostile keys.
          for hostile in HostileSyntheticKeyTests.hostileNames {
            #expect(result.stdout.contains(hostile), "no key with \(hostile.debugDescription)")
          }
        }
        let digest = Self.hex(Digest.sha256(result.stdoutBytes))
        #expect(digest == Self.golden["\(name) \(form)"], "\(name) \(form): \(digest)")
      }
    }
  }

  /// `find` and `du` share `ls`'s listing (`RecursiveScan`) and, for `find`, its renderer: on
  /// the same bucket they write the bytes recorded from the build before the listing path was
  /// tuned (`find --name '*'` exactly `ls -r`'s).
  @Test func findAndDiskUsageWriteTheRecordedBytes() async throws {
    let configuration = EmulatorConfiguration(
      credentials: RemoveTests.credentials, buckets: [.synthetic("keys", count: 2_500)], seed: 4)
    try await EmulatorHarness.with(configuration) { emulator in
      let environment = MoveRecursiveTests.environment(.kodo, emulator)
      let cases: [(String, [String], String?)] = [
        ("find json", ["find", "--json", "--name", "*"], Self.golden["kodo json"]),
        ("find nul", ["find", "-0", "--name", "*"], Self.golden["kodo nul"]),
        (
          "du json", ["du", "--json", "--depth", "2"],
          "60b75946fbacef786faddf2842dc9e59d18ab04701473c78693ecf3dd8817022"
        ),
        ("du text", ["du"], "a0c5b4095d020efeed5567377e719b49b6b42b7a41986c2d13e4ac7c1cde9505"),
      ]
      for (name, command, golden) in cases {
        let arguments = [command[0], "--page-size", "700"] + command.dropFirst() + ["keys"]
        let result = try await InProcess.run(arguments, environment: environment)
        #expect(result.status == 0, "\(result)")
        let digest = Self.hex(Digest.sha256(result.stdoutBytes))
        #expect(digest == golden, "\(name): \(digest)")
      }
    }
  }
}
