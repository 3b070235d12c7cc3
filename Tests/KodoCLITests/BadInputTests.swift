import Foundation
import KodoTestSupport
import Testing

/// Item 4 of "reliability", the user's side: bad arguments, bad config files, missing
/// credentials. Each gives the documented exit code and one `kodo: error:` line, before any
/// request is made. Configs here point every host at 127.0.0.1 so that nothing could leave the
/// machine even if a check regressed.
@Suite("Bad input from the user")
struct BadInputTests {
  /// Hosts nobody listens on (the discard port), for runs that must fail before any request.
  static let nowhere = "http://127.0.0.1:9"

  static func kodo(extra: String = "") throws -> CLIRunner {
    CLIRunner(
      "kodo",
      environment: ["KODO_CONFIG": try writeTestConfig(baseURL: nowhere, extra: extra)])
  }

  static let badBuckets = ["BAD!", "a b", String(repeating: "x", count: 64), "中文", "tab\there"]

  @Test(arguments: badBuckets)
  func anInvalidBucketNameIs65ForEveryCommand(_ bucket: String) async throws {
    let kodo = try Self.kodo()
    let commands: [[String]] = [
      ["ls", bucket], ["ls", "-r", bucket + "/prefix/"], ["stat", bucket, "k"],
      ["url", bucket, "k"], ["url", "--domain", "http://127.0.0.1:9", bucket, "k"],
      ["cat", bucket, "k"], ["get", bucket, "k", "-o", "/tmp/kodo-never-written"],
      ["domains", bucket], ["token", "upload", bucket + ":k"],
    ]
    for command in commands {
      await expectFailure(try kodo.run(command), status: 65, containing: "invalid bucket name")
    }
  }

  @Test func anEmptyKeyIs65() async throws {
    let kodo = try Self.kodo()
    for command in [["stat", "b", ""], ["cat", "b", ""], ["get", "b", ""], ["url", "b", ""]] {
      await expectFailure(try kodo.run(command), status: 65, containing: "empty")
    }
    // With the default bucket from the config, one (empty) argument is the key.
    let withDefault = try Self.kodo(extra: #""bucket":"b","#)
    await expectFailure(try withDefault.run(["stat", ""]), status: 65, containing: "empty")
    // In a `url --stdin` stream, an empty line is an empty key: the URLs before it are printed,
    // then the error names the line.
    let stdin = try await kodo.run(
      ["url", "--public", "--domain", "http://127.0.0.1:9", "--stdin", "b"],
      stdin: Array("a\n\nb\n".utf8))
    expectFailure(stdin, status: 65, containing: "line 2", stdoutEmpty: false)
    #expect(stdin.stdout == "http://127.0.0.1:9/a\n")
  }

  @Test func aKeyOnStdinThatIsNotUTF8Is65() async throws {
    let kodo = try Self.kodo()
    let command = ["url", "--public", "--domain", Self.nowhere, "--stdin", "b"]
    // A lone continuation byte, a truncated sequence at the end, an overlong `/`, a surrogate,
    // and a four-byte sequence cut after three bytes: the last one repairs to a single U+FFFD of
    // three bytes, so the repaired line has as many bytes as the input and only a byte-by-byte
    // comparison tells them apart.
    let bad: [[UInt8]] = [
      [0x80], [0x61, 0xE2, 0x82], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98, 0x61],
    ]
    for line in bad {
      let run = try await kodo.run(command, stdin: line + [0x0A])
      expectFailure(run, status: 65, containing: "not valid UTF-8")
    }
    // Valid text, ASCII or not, is a key like any other.
    let good = try await kodo.run(command, stdin: Array("a\r\n中文/é\n😀".utf8))
    #expect(good.status == 0)
    #expect(
      good.stdout
        == [
          "a", "%E4%B8%AD%E6%96%87/%C3%A9", "%F0%9F%98%80",
        ].map { Self.nowhere + "/" + $0 + "\n" }.joined())
  }

  static let badPolicies = [
    "{not json", "", "[1]", "null", #""text""#, #"{"a":1"#, #"{"a":1}x"#, "{'a':1}",
    #"{"a":01}"#, "\u{1}",
  ]

  @Test(arguments: badPolicies)
  func aMalformedPolicyIs65(_ policy: String) async throws {
    let kodo = try Self.kodo()
    let result = try await kodo.run(["token", "upload", "--policy", policy, "b"])
    expectFailure(result, status: 65)
    #expect(result.stderr.contains("--policy") || result.stderr.contains("policy"))
  }

  static let badDurations = [
    "", "0", "-5", "5y", "1.5h", "99999999999999999999", " 60", "60 ", "h", "5s10", "0x10",
    "9223372036854775807d", "1e3",
  ]

  @Test(arguments: badDurations)
  func aBadDurationIs65(_ duration: String) async throws {
    let kodo = try Self.kodo()
    // `--expires=-5` (a value that looks like a flag), `--expires ""` (an empty one).
    let option = duration.hasPrefix("-") ? ["--expires=" + duration] : ["--expires", duration]
    let url = try await kodo.run(["url", "--domain", Self.nowhere] + option + ["b", "k"])
    expectFailure(url, status: 65, containing: "invalid duration")
    let token = try await kodo.run(["token", "upload"] + option + ["b"])
    expectFailure(token, status: 65, containing: "invalid duration")
  }

  static let usageErrors: [[String]] = [
    ["ls", "--page-size=0", "b"], ["ls", "--page-size=1001", "b"], ["ls", "--page-size=-1", "b"],
    ["ls", "--page-size=abc", "b"], ["ls", "--page-size=99999999999999999999", "b"],
    ["ls", "--page-size=1.5", "b"], ["ls", "--limit=0", "b"], ["ls", "--bogus", "b"],
    ["--bogus", "ls", "b"], ["stat", "-x", "b", "k"], ["url", "--deadline=-1", "b", "k"],
    ["url", "--deadline=soon", "b", "k"], ["token", "qiniu", "--bogus", "http://h/"],
    ["frobnicate"], ["stat"], ["cat", "a", "b", "c"], ["ls", "-r", "-0", "--json", "b"],
    ["--retries", "0", "ls", "b"], ["--retries", "21", "ls", "b"], ["--timeout", "0", "ls", "b"],
    ["ls", "--parallel", "4", "b"], ["url", "--stdin", "a", "b"],
  ]

  /// Usage errors are 64 and, like every other error, say so on one `kodo: error:` line (the
  /// usage summary may follow).
  @Test(arguments: usageErrors)
  func aUsageErrorIs64WithOneErrorLine(_ arguments: [String]) async throws {
    let result = try await Self.kodo().run(arguments)
    expectFailure(result, status: 64)
    #expect(!result.stderr.contains("\nError: ") && !result.stderr.hasPrefix("Error: "))
  }

  // MARK: - Config files

  /// Writes `text` as a config file with `mode`.
  static func configFile(_ text: [UInt8], mode: Int = 0o600) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-bad-config-\(UUID()).json"
    ).path
    guard
      FileManager.default.createFile(
        atPath: path, contents: Data(text), attributes: [.posixPermissions: mode])
    else { throw EmulatorStartFailure(output: "cannot write \(path)") }
    return path
  }

  static let hosts =
    #""hosts":{"uc":"http://127.0.0.1:9","rs":"http://127.0.0.1:9","rsf":"http://127.0.0.1:9"}"#

  /// (config text, what the error must name besides the file).
  static let badConfigs: [(text: [UInt8], names: String)] = [
    (Array(#"{"accessKey":"a","secretKey":"s","acessKey":"x",\#(hosts)}"#.utf8), #""acessKey""#),
    (Array(#"{"accessKey":"a","secretKey":5,\#(hosts)}"#.utf8), #""secretKey" must be a string"#),
    (Array(#"{"accessKey":"a","secretKey":"s","hosts":{"uc":"ftp://x"}}"#.utf8), #""hosts.uc""#),
    (Array(#"{"accessKey":"a","secretKey":"s","hosts":{"io":"http://h"}}"#.utf8), #""hosts.io""#),
    (
      Array(#"{"accessKey":"a","secretKey":"s","domains":{"b":"cdn.example.com"},\#(hosts)}"#.utf8),
      #""domains.b""#
    ),
    (
      Array(#"{"accessKey":"a","secretKey":"s","profiles":{"p":{"bogus":1}},\#(hosts)}"#.utf8),
      #""profiles.p.bogus""#
    ),
    (Array(#"{"accessKey":"a","secretKey":"s","profiles":[],\#(hosts)}"#.utf8), #""profiles""#),
    (Array(#"{"accessKey":"a","secretKey":"s" "bucket":"b"}"#.utf8), "not valid JSON"),
    (Array("".utf8), "not valid JSON"),
    (Array("[]".utf8), "must hold a JSON object"),
    (
      Array(#"{"accessKey":"a","secretKey":"s"#.utf8) + [0xFF] + Array(#"",\#(hosts)}"#.utf8),
      "UTF-8"
    ),
  ]

  @Test(arguments: badConfigs)
  func anInvalidConfigFileIs78NamingTheFileAndTheKey(_ text: [UInt8], names: String) async throws {
    let path = try Self.configFile(text)
    for arguments in [["--config", path, "buckets"], ["ls", "b", "--config", path]] {
      let result = try await CLIRunner().run(arguments)
      expectFailure(result, status: 78, containing: path)
      #expect(result.stderr.contains(names), "\(result.stderr)")
    }
    // The same file through KODO_CONFIG.
    let viaEnvironment = try await CLIRunner("kodo", environment: ["KODO_CONFIG": path]).run([
      "buckets"
    ])
    expectFailure(viaEnvironment, status: 78, containing: path)
  }

  @Test func aMissingOrUnreadableConfigFileIs78() async throws {
    let missing = "/nonexistent-\(UUID()).json"
    await expectFailure(
      try CLIRunner().run(["buckets", "--config", missing]), status: 78,
      containing: "\(missing)\" (from --config): it does not exist")
    await expectFailure(
      try CLIRunner("kodo", environment: ["KODO_CONFIG": missing]).run(["ls", "b"]), status: 78,
      containing: missing)
    let directory = try temporaryDirectory()
    await expectFailure(
      try CLIRunner().run(["buckets", "--config", directory]), status: 78, containing: directory)
    await expectFailure(
      try CLIRunner().run(["buckets", "--config", directory]), status: 78,
      containing: "it is a directory")

    let unreadable = try Self.configFile(
      Array(#"{"accessKey":"a","secretKey":"s",\#(Self.hosts)}"#.utf8), mode: 0o000)
    // chmod 000 does not stop root from reading; only check the refusal where it applies.
    if FileManager.default.isReadableFile(atPath: unreadable) {
      #expect(geteuid() == 0, "a mode 000 file is readable only by root")
    } else {
      await expectFailure(
        try CLIRunner().run(["buckets", "--config", unreadable]), status: 78,
        containing: "\(unreadable): permission denied")
    }
  }

  @Test func missingCredentialsAre78() async throws {
    // No environment and no default config file (the runner's HOME is empty).
    await expectFailure(
      try CLIRunner().run(["buckets"]), status: 78, containing: "QINIU_ACCESS_KEY")
    await expectFailure(
      try CLIRunner().run(["token", "upload", "b"]), status: 78, containing: "QINIU_SECRET_KEY")
    let accessOnly = try await CLIRunner("kodo", environment: ["QINIU_ACCESS_KEY": "a"]).run([
      "ls", "b",
    ])
    expectFailure(accessOnly, status: 78, containing: "no secret key")
    let secretOnly = try await CLIRunner("kodo", environment: ["QINIU_SECRET_KEY": "s"]).run([
      "ls", "b",
    ])
    expectFailure(secretOnly, status: 78)
    // A config with hosts but no keys.
    let keyless = try Self.configFile(Array("{\(Self.hosts)}".utf8))
    await expectFailure(
      try CLIRunner().run(["stat", "--config", keyless, "b", "k"]), status: 78, containing: keyless)
    // An unknown profile names the profiles there are.
    let profiled = try Self.configFile(
      Array(#"{"profiles":{"prod":{"accessKey":"a","secretKey":"s"}},\#(Self.hosts)}"#.utf8))
    await expectFailure(
      try CLIRunner().run(["buckets", "--config", profiled, "--profile", "staging"]), status: 78,
      containing: #""staging""#)
  }

  /// A 1 KB key (four 250-byte folders and a file name) works for stat, url, cat, get and ls.
  @Test func aOneKilobyteKeyWorksEverywhere() async throws {
    let root = try temporaryDirectory()
    let folders = ["a", "b", "c", "d"].map { String(repeating: $0, count: 250) }
    let name = String(repeating: "中", count: 5) + String(repeating: "e", count: 1024 - 1004 - 15)
    let key = (folders + [name]).joined(separator: "/")
    #expect(key.utf8.count == 1024)
    let body = Array("a long way down\n".utf8)
    try FileManager.default.createDirectory(
      atPath: root + "/" + folders.joined(separator: "/"), withIntermediateDirectories: true)
    #expect(FileManager.default.createFile(atPath: root + "/" + key, contents: Data(body)))
    let emulator = try await EmulatorProcess(["--bucket", "deep=\(root)", "--private", "deep"])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])

    let listed = try await kodo.run(["ls", "-r", "-0", "deep"])
    #expect(listed.stdoutBytes == Array(key.utf8) + [0])
    let stat = try await CLIEnvironment.jsonLines(try kodo.run(["--json", "stat", "deep", key]))
    #expect(stat.first?["key"] as? String == key && stat.first?["size"] as? Int == body.count)
    let url = try await kodo.run(["url", "deep", key])
    #expect(url.status == 0 && url.stdout.contains("/dl/deep/" + folders[0] + "/"), "\(url)")
    #expect(url.stdout.contains("%E4%B8%AD%E4%B8%AD"))
    await #expect(try kodo.run(["cat", "deep", key]).stdoutBytes == body)
    let directory = try temporaryDirectory()
    let get = try await kodo.run(["get", "deep", key, "-o", directory])
    #expect(get.status == 0, "\(get)")
    #expect(FileManager.default.contents(atPath: directory + "/" + name).map(Array.init) == body)
    // A 1 KB key that does not exist is "not found", on one line.
    let missing = String(repeating: "z", count: 1024)
    for command in ["stat", "cat"] {
      await expectFailure(
        try kodo.run([command, "deep", missing]), status: 66, containing: "no such key")
    }
  }
}
