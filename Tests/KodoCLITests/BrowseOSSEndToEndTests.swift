import Foundation
import KodoTestSupport
import Testing

/// The real `kodo browse` in a detached tmux against `kodo-emulator --protocol oss`, configured
/// by the environment as the emulator's export line does: the same browser through the OSS
/// provider.
@Suite("kodo browse on OSS in tmux", .serialized)
struct BrowseOSSEndToEndTests {
  final class Fixture: Sendable {
    static let shared = Task { try await Fixture() }
    let emulator: EmulatorProcess
    let environment: [String: String]
    let kodo = CLIRunner("kodo").executable

    static let files: [String: String] = [
      "top.txt": "top",
      "2024/05/a.jpg": String(repeating: "a", count: 66),
      "2024/05/b 中文.png": String(repeating: "b", count: 5000),
      "2024/日志/x.log": "x\u{1B}]0;t\u{7}y\n",
      "2024/日志/blob.bin": "\u{0}\u{1}ABC\u{1B}",
    ]

    private init() async throws {
      let root = FileManager.default.temporaryDirectory.appendingPathComponent(
        "kodo-browse-oss-\(UUID())"
      ).path
      try CLIEnvironment.writeTree(
        root: root, [("photos", Self.files.mapValues { Array($0.utf8) })])
      emulator = try await EmulatorProcess([
        "--protocol", "oss", "--bucket", "photos=\(root)/photos",
      ])
      var environment =
        CLIRunner(
          "kodo",
          environment: [
            "KODO_PROVIDER": "oss", "OSS_ENDPOINT": emulator.baseURL, "OSS_REGION": "cn-hangzhou",
            "OSS_ACCESS_KEY_ID": emulator.accessKey,
            "OSS_ACCESS_KEY_SECRET": emulator.secretKey,
          ]
        ).environment
      environment["TERM"] = "xterm-256color"
      environment["SWIFT_BACKTRACE"] = "interactive=no"
      self.environment = environment
    }
  }

  static func start(_ arguments: String, width: Int = 120) async throws -> TmuxSession {
    let fixture = try await Fixture.shared.value
    return try await TmuxSession(
      command: TmuxSession.quote(fixture.kodo) + " browse " + arguments,
      environment: fixture.environment, width: width, height: 30)
  }

  @Test func navigatesFromTheBucketListWithTheWholeRegionShown() async throws {
    let session = try await Self.start("")
    var seen = try await session.waitFor { $0.contains("photos") && $0.contains("1 bucket") }
    #expect(seen.holds, "\(seen.screen)")
    #expect(seen.screen.contains("oss-cn-hangzhou"), "\(seen.screen)")
    try await session.keys("Enter")
    seen = try await session.waitFor { $0.contains("2 entries") }
    #expect(seen.holds, "\(seen.screen)")
    let lines = seen.screen.split(separator: "\n")
    // Folders first.
    // Folders first, below the column header; the position at the title's end.
    #expect(lines.count > 3 && lines[2].contains("2024/") && lines[3].contains("top.txt"))
    #expect(lines[1].contains("name") && lines[0].hasSuffix("1/2"))
    try await session.keys("l")
    seen = try await session.waitFor { $0.contains("05/") && $0.contains("日志/") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("l")
    seen = try await session.waitFor { $0.contains("2 entries") && $0.contains("a.jpg") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("h", "h", "h")
    seen = try await session.waitFor { $0.contains("kodo · buckets") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  @Test func theDetailPaneShowsWhatOnlyOSSHas() async throws {
    let session = try await Self.start(TmuxSession.quote("photos/2024/05/b 中文.png"))
    // The ETag and CRC-64 come from the stat (HEAD), the object type and class too.
    let seen = try await session.waitFor { $0.contains("crc64") && $0.contains("etag") }
    #expect(seen.holds, "\(seen.screen)")
    let pane = seen.screen.split(separator: "\n").compactMap { line in
      line.split(separator: "│", maxSplits: 1).dropFirst().first.map {
        $0.trimmingCharacters(in: .whitespaces)
      }
    }
    let fields = Dictionary(
      pane.compactMap { line -> (String, String)? in
        guard let space = line.firstIndex(of: " ") else { return nil }
        return (
          String(line[..<space]),
          line[space...].trimmingCharacters(in: .whitespaces)
        )
      }, uniquingKeysWith: { first, _ in first })
    #expect(fields["size"] == "5000 (4.9 KiB)", "\(seen.screen)")
    #expect(fields["class"] == "standard")
    #expect(fields["object"] == "normal")
    // The ETag and CRC-64 are the ones `kodo stat` reports.
    let fixture = try await Fixture.shared.value
    var stat = CLIRunner("kodo")
    stat.environment = fixture.environment
    let result = try await stat.run(["stat", "--json", "photos", "2024/05/b 中文.png"])
    #expect(result.status == 0, "\(result)")
    let json = try CLIEnvironment.jsonLines(result).first ?? [:]
    #expect(fields["etag"] != nil && fields["etag"] == json["etag"] as? String, "\(seen.screen)")
    #expect(fields["crc64"] != nil && fields["crc64"] == json["crc64"] as? String)
    #expect(!seen.screen.contains("hash "))
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  @Test func downloadsAndCopiesAPresignedURLThatWorks() async throws {
    let session = try await Self.start(TmuxSession.quote("photos/2024/05/b 中文.png"))
    #expect(try await session.waitFor { $0.contains("size       5000") }.holds)
    try await session.keys("s")
    var seen = try await session.waitFor { $0.contains("saved b 中文.png") }
    #expect(seen.holds, "\(seen.screen)")
    #expect(session.file("b 中文.png") == String(repeating: "b", count: 5000))
    try await session.keys("y", "u")
    seen = try await session.waitFor { $0.contains("download URL sent by OSC 52") }
    #expect(seen.holds, "\(seen.screen)")
    let url = try await session.buffer()
    let fixture = try await Fixture.shared.value
    #expect(url.hasPrefix(fixture.emulator.baseURL + "/photos/2024/05/b%20"), "\(url)")
    #expect(url.contains("x-oss-signature="), "\(url)")
    let fetched = try await CLIRunner("kodo").runShell("curl -s \(TmuxSession.quote(url))")
    #expect(fetched.stdout == String(repeating: "b", count: 5000))
    try await session.keys("q")
    #expect(try await session.exitStatus() == 0)
  }

  @Test func previewsTextAndBinaryByRange() async throws {
    let session = try await Self.start(TmuxSession.quote("photos/2024/日志/x.log"))
    #expect(try await session.waitFor { $0.contains("size       9") }.holds)
    try await session.keys("Enter")
    var seen = try await session.waitFor {
      $0.contains(#"x\u{1B}]0;t\u{7}y"#) && $0.contains(" text ·")
    }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("q", "g", "Enter")
    seen = try await session.waitFor { $0.contains("0000000000  00 01 41 42 43 1b") }
    #expect(seen.holds, "\(seen.screen)")
    try await session.keys("q", "q")
    #expect(try await session.exitStatus() == 0)
  }
}
