import Foundation
import KodoTestSupport
import Testing

/// `get -r` and `get --json` on OSS: the CRC-64 decides "already there" and checks every
/// download, and JSON names it `crc64`.
@Suite("get -r on OSS", .serialized)
struct OSSRecursiveGetTests {
  /// M-6, H2: every run downloaded everything again and checked nothing (the listing's ETag is
  /// not always an MD5); the CRC-64 of HeadObject now decides both. L6: the JSON lines carry it,
  /// and a file already there prints a "skipped" line.
  @Test func aSecondRunKeepsWhatIsThereAndJSONNamesTheCRC64() async throws {
    let env = try await OSSEnvironment.get()
    let directory = try RecursiveGetTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = try await InProcess.run(
      ["get", "-r", "--json", "photos/dir/", directory], environment: env.variables)
    #expect(first.status == 0, "\(first)")
    let written = try OSSEnvironment.jsonLines(first)
    #expect(written.count == 3, "\(first)")
    #expect(written.allSatisfy { $0["type"] as? String == "written" && $0["crc64"] is String })
    #expect(written.allSatisfy { $0["hash"] == nil })
    let again = try await InProcess.run(
      ["get", "-r", "--json", "photos/dir/", directory], environment: env.variables)
    #expect(again.status == 0, "\(again)")
    let kept = try OSSEnvironment.jsonLines(again)
    #expect(kept.count == 3 && kept.allSatisfy { $0["type"] as? String == "skipped" }, "\(again)")
    let text = try await InProcess.run(
      ["get", "-r", "photos/dir/", directory], environment: env.variables)
    #expect(text.stderr.contains("0 written, 3 already there"), "\(text.stderr)")

    let single = try await InProcess.run(
      ["get", "--json", "photos", "a.txt", "-o", directory + "/a.txt"], environment: env.variables)
    #expect(single.status == 0, "\(single)")
    let line = try #require(try OSSEnvironment.jsonLines(single).first)
    #expect(line["crc64"] is String && line["hash"] == nil, "\(single)")
  }

  /// M-6: a body changed on its way (same length) was kept by `get -r`; it is 76 now, and
  /// nothing is left under the name.
  @Test func aCorruptBodyIsNotKept() async throws {
    // An emulator of its own: another suite's faults must not reach it, nor its faults them.
    let env = try await OSSEnvironment.get()
    let emulator = try await EmulatorProcess([
      "--protocol", "oss", "--bucket", "photos=\(env.root)/photos",
    ])
    defer { emulator.stop() }
    var variables = env.variables
    variables["OSS_ENDPOINT"] = emulator.baseURL
    variables["OSS_ACCESS_KEY_ID"] = emulator.accessKey
    variables["OSS_ACCESS_KEY_SECRET"] = emulator.secretKey
    let directory = try RecursiveGetTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await emulator.scheduleFault(endpoint: "download", mode: "corrupt-body")
    let result = try await InProcess.run(
      ["get", "-r", "photos/big/", directory], environment: variables)
    try await emulator.clearFaults()
    #expect(result.status == 76, "\(result)")
    #expect(result.stderr.contains("CRC-64"), "\(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }
}
