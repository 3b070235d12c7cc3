import Foundation
import KodoTestSupport
import Testing

/// Issue 19 §3: the argument shapes and messages a user of ossutil, mc, aws or qshell types
/// first (`BUCKET/KEY`, `oss://`, `cp`, `-V`, `--range -20`), answered with what works or with
/// exactly what to type. Run in process.
@Suite("Arguments as other tools write them", .serialized)
struct ArgumentShapeTests {
  let env: CLIEnvironment
  /// The emulator's config without a default bucket.
  let noDefault: [String: String]
  /// The emulator's config with `photos` as the default bucket.
  let withDefault: [String: String]

  init() async throws {
    env = try await CLIEnvironment.get()
    noDefault = ["KODO_CONFIG": try env.emulator.configFile()]
    withDefault = ["KODO_CONFIG": env.config]
  }

  func run(_ arguments: [String], _ environment: [String: String]) async throws
    -> CLIRunner.Result
  {
    try await InProcess.run(arguments, environment: environment)
  }

  @Test func oneBucketSlashKeyArgumentNamesTheObjectWhenNoBucketIsConfigured() async throws {
    for command in ["stat", "cat", "url"] {
      let result = try await run([command, "photos/a.txt"], noDefault)
      #expect(result.status == 0, "\(command) \(result)")
    }
    let cat = try await run(["cat", "photos/a.txt"], noDefault)
    #expect(cat.stdout == "hello\n", "\(cat)")
    let url = try await run(["url", "--json", "logs/2024-06-01/app.log"], noDefault)
    #expect(url.stdout.contains("/2024-06-01/app.log?e="), "\(url)")
    // With a default bucket, one argument stays a key in it (the contract), with the hint.
    expectFailure(
      try await run(["stat", "photos/a.txt"], withDefault), status: 66,
      containing: "give them as two arguments: photos a.txt")
  }

  @Test func aKeyAloneWithoutADefaultBucketSaysWhatToType() async throws {
    let result = try await run(["cat", "logs"], noDefault)
    expectFailure(result, status: 64, containing: "give the bucket and the key, as BUCKET KEY")
    #expect(!result.stderr.contains("Error: "), "\(result)")
  }

  @Test func theSchemeIsAcceptedWhereverABucketIs() async throws {
    let runs: [[String]] = [
      ["stat", "kodo://photos", "a.txt"], ["stat", "kodo://photos/a.txt"],
      ["stat", "kodo://photos", "a.txt", "b.json"], ["url", "kodo://photos", "a.txt"],
      ["url", "kodo://photos/a.txt"], ["cat", "kodo://photos/a.txt"],
      ["get", "-o", "-", "kodo://photos/a.txt"], ["domains", "kodo://photos"],
    ]
    for arguments in runs {
      let result = try await run(arguments, withDefault)
      #expect(result.status == 0, "\(arguments) \(result)")
    }
    expectFailure(
      try await run(["stat", "kodo://photos"], noDefault), status: 64,
      containing: "names a bucket but no key")
  }

  @Test func lsWithNothingToListListsTheBuckets() async throws {
    let result = try await run(["ls"], noDefault)
    #expect(result.status == 0, "\(result)")
    #expect(result.lines.map { String($0.prefix { $0 != " " }) } == ["big", "logs", "photos"])
    let json = try await run(["ls", "--json"], noDefault)
    #expect(json.lines.first?.hasPrefix(#"{"name":"big""#) == true, "\(json)")
    // With a default bucket, ls lists it.
    let configured = try await run(["ls"], withDefault)
    #expect(configured.stdout.contains("a.txt"), "\(configured)")
  }

  @Test func theBucketsRegionColumnIsAsWideAsItsWidestValue() async throws {
    let result = try await run(["buckets"], noDefault)
    for line in result.lines {
      #expect(
        line.range(of: #"^\S+ +z0  \d{4}-\d\d-\d\d \d\d:\d\d"#, options: .regularExpression)
          != nil, "\(result)")
    }
  }

  @Test func aCommandsOwnUsageErrorNamesKodoOnce() async throws {
    let result = try await run(["cat", "logs", "a", "b"], withDefault)
    expectFailure(result, status: 64, containing: "Usage: kodo cat ")
    #expect(result.stderr.hasPrefix("kodo: error: expected [BUCKET] KEY"), "\(result)")
    #expect(result.stderr.contains("See 'kodo cat --help'"), "\(result)")
    #expect(!result.stderr.contains("Error: "), "\(result)")
    let token = try await InProcess.run(
      ["token", "qbox", "https://x/"],
      environment: [
        "KODO_PROVIDER": "oss", "OSS_ACCESS_KEY_ID": "a", "OSS_ACCESS_KEY_SECRET": "b",
        "OSS_REGION": "cn-hangzhou",
      ])
    #expect(token.stderr.contains("Usage: kodo token qbox "), "\(token)")
    #expect(token.stderr.contains("See 'kodo token qbox --help'"), "\(token)")
    let json = try await run(["--json", "cat", "logs", "a", "b"], withDefault)
    #expect(json.stderr.contains(#""message":"expected [BUCKET] KEY"#), "\(json)")
  }

  @Test func otherToolsVerbsGetHintsThatFit() async throws {
    let cases: [([String], String)] = [
      (["cp", "photos/a.txt", "."], "to download, run: kodo get photos a.txt"),
      (["cp", "oss://photos/a.txt", "copy.txt"], "kodo get photos a.txt -o copy.txt"),
      (["cp", "photos/2024/x.txt", "./out/"], "kodo get photos 2024/x.txt -o ./out/x.txt"),
      (
        ["copy", "-r", "photos/2024/", "out"],
        "to download a folder, run: kodo get -r photos/2024/ out"
      ),
      (["del", "photos", "a.txt"], "kodo rm [BUCKET] KEY... deletes objects"),
      (["move", "photos/a", "photos/b"], "kodo mv BUCKET/KEY BUCKET/KEY moves an object"),
      (["mb", "photos"], "this version reads (ls"),
      (["mirror", "./site", "web/"], "kodo sync DIR BUCKET/PREFIX/ (or the reverse)"),
      (["version"], "kodo --version prints the version"),
    ]
    for (arguments, text) in cases {
      let result = try await run(arguments, withDefault)
      expectFailure(result, status: 64, containing: text)
      #expect(!result.stderr.contains("did you mean"), "\(arguments) \(result)")
    }
  }

  @Test func optionHintsFitTheOption() async throws {
    let version = try await run(["-V"], withDefault)
    expectFailure(version, status: 64, containing: "kodo --version prints the version")
    let recursive = try await run(["ls", "-R", "photos"], withDefault)
    expectFailure(recursive, status: 64, containing: "did you mean '-r'?")
    let bogus = try await run(["ls", "--bogus", "photos"], withDefault)
    expectFailure(bogus, status: 64, containing: "kodo ls --help lists the options")
    for result in [version, recursive, bogus] {
      #expect(!result.stderr.contains("goes after '--'"), "\(result)")
    }
    expectFailure(
      try await run(["ls", "s3://b"], withDefault), status: 64,
      containing: "kodo knows the schemes kodo:// and oss://")
    expectFailure(
      try await run(["cat", "--range", "-20", "photos", "a.txt"], withDefault), status: 64,
      containing: "write --range=-20")
    let version2 = try await run(["--version"], withDefault)
    #expect(version2.stdout == "kodo 0.1.0\n" || version2.stdout.hasPrefix("kodo "), "\(version2)")
  }

  @Test func helpNamesTheOSSVariablesAndTheProviderChoice() async throws {
    let result = try await run(["--help"], withDefault)
    for name in [
      "OSS_ACCESS_KEY_ID", "OSS_ACCESS_KEY_SECRET", "OSS_REGION", "OSS_ENDPOINT", "KODO_PROVIDER",
    ] {
      #expect(result.stdout.contains(name), "\(name)")
    }
  }

  @Test func noCredentialsNamesTheConfigPathInUse() async throws {
    let result = try await InProcess.run(
      ["buckets"], environment: ["XDG_CONFIG_HOME": "/nonexistent-xdg"])
    expectFailure(result, status: 78, containing: #""/nonexistent-xdg/kodo/config.json""#)
  }

  @Test func aHugeConfigFileIsRefusedUnread() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-huge-\(UUID()).json"
    ).path
    defer { try? FileManager.default.removeItem(atPath: path) }
    var text = #"{"accessKey":"a","secretKey":"b","profiles":{"#
    var index = 0
    while text.utf8.count <= 1 << 20 {
      text += #""p\#(index)":{},"#
      index += 1
    }
    text += #""last":{}}}"#
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    expectFailure(
      try await InProcess.run(["buckets"], environment: ["KODO_CONFIG": path]), status: 78,
      containing: "is larger than 1 MiB")
  }

  @Test func aStorageClassTheProviderDoesNotHaveIsAUsageError() async throws {
    expectFailure(
      try await run(["find", "photos", "--storage-class", "cold_archive"], withDefault),
      status: 64, containing: "Kodo has no storage class \"cold_archive\": give one of standard")
    let spelled = try await run(["find", "photos", "--storage-class", "STANDARD"], withDefault)
    #expect(spelled.status == 0 && spelled.stdout.contains("a.txt"), "\(spelled)")
    let oss = try await OSSEnvironment.get()
    let runner = InProcessOSS(variables: oss.variables)
    let coldArchive = try await runner.run(["find", "photos", "--storage-class", "ColdArchive"])
    #expect(coldArchive.status == 0, "\(coldArchive)")
    expectFailure(
      try await runner.run(["find", "photos", "--storage-class", "deep_archive"]), status: 64,
      containing: "OSS has no storage class")
    expectFailure(
      try await runner.run(["find", "photos", "--mime", "image/*"]), status: 64,
      containing: "OSS listings do not carry")
  }

  @Test func anIncludeThatMatchedNothingAnywhereSuggestsDoubleStar() async throws {
    for command in [["ls", "-r", "logs"], ["find", "logs"]] {
      let result = try await run(command + ["--include", "*.log"], withDefault)
      #expect(result.status == 0 && result.stdout.isEmpty, "\(result)")
      #expect(
        result.stderr.contains(
          "--include '*.log' matched no key: patterns match whole keys and * stays within one folder level; to match at any depth, use --include '**/*.log'"
        ), "\(result)")
      let deep = try await run(command + ["--include", "**/*.log"], withDefault)
      #expect(deep.lines.count == 2 && deep.stderr.isEmpty, "\(deep)")
    }
  }

  @Test func aPlainDateIsThatDaysStartInUTC() async throws {
    let newer = try await run(["find", "logs", "--newer", "2024-01-01"], withDefault)
    #expect(newer.status == 0 && newer.lines.count == 2, "\(newer)")
    let older = try await run(["find", "logs", "--older", "2024-01-01"], withDefault)
    #expect(older.status == 0 && older.stdout.isEmpty, "\(older)")
    expectFailure(
      try await run(["find", "logs", "--newer", "2024-13-01"], withDefault), status: 65,
      containing: "a date (2024-06-01, UTC)")
  }

  @Test func anUploadTokensDeadlineFollowsURLsRules() async throws {
    let credentials = ["QINIU_ACCESS_KEY": "ak", "QINIU_SECRET_KEY": "sk"]
    expectFailure(
      try await InProcess.run(
        ["token", "upload", "--deadline", "1767225600", "b"], environment: credentials),
      status: 65, containing: "is in the past")
    expectFailure(
      try await InProcess.run(
        ["token", "upload", "--deadline", "4102444800", "--expires", "1h", "b"],
        environment: credentials),
      status: 64, containing: "cannot be combined")
  }

  @Test func refusedCredentialsAreNamedWhereTheyCameFrom() async throws {
    let endpoint = ["KODO_ENDPOINT": env.emulator.baseURL]
    let fromEnvironment = try await InProcess.run(
      ["buckets"],
      environment: endpoint.merging([
        "QINIU_ACCESS_KEY": env.emulator.accessKey, "QINIU_SECRET_KEY": "wrong",
      ]) { $1 })
    expectFailure(
      fromEnvironment, status: 77, containing: "check QINIU_ACCESS_KEY and QINIU_SECRET_KEY")
    #expect(!fromEnvironment.stderr.contains("secretKey"), "\(fromEnvironment)")
    let config = try writeTestConfig(
      baseURL: env.emulator.baseURL, accessKey: env.emulator.accessKey, secretKey: "wrong")
    expectFailure(
      try await InProcess.run(["buckets"], environment: ["KODO_CONFIG": config]), status: 77,
      containing: #"check "accessKey" and "secretKey" in the config file"#)
    let oss = try await OSSEnvironment.get()
    var variables = oss.variables
    variables["OSS_ACCESS_KEY_SECRET"] = "wrong"
    expectFailure(
      try await InProcess.run(["buckets"], environment: variables), status: 77,
      containing: "check OSS_ACCESS_KEY_SECRET, and for V4 signatures the region")
  }

  @Test func jsonErrorLinesCarryTheServicesCode() async throws {
    let kodo = try await run(["--json", "stat", "photos", "missing.txt"], withDefault)
    #expect(kodo.status == 66 && kodo.stderr.contains(#""code":"612""#), "\(kodo)")
    let oss = try await OSSEnvironment.get()
    let missing = try await InProcess.run(
      ["--json", "stat", "photos", "missing.txt"], environment: oss.variables)
    #expect(missing.status == 66 && missing.stderr.contains(#""code":"NoSuchKey""#), "\(missing)")
  }

  @Test func readingAnArchivedOSSObjectIsAPermissionError() async throws {
    let oss = try await OSSEnvironment.get()
    let archived = try await InProcess.run(
      ["find", "many", "--storage-class", "archive", "--limit", "1", "-0"],
      environment: oss.variables)
    let key = String(decoding: archived.stdoutBytes.prefix { $0 != 0 }, as: UTF8.self)
    #expect(archived.status == 0 && !key.isEmpty, "\(archived)")
    expectFailure(
      try await InProcess.run(["cat", "many", key], environment: oss.variables), status: 77,
      containing: "must be restored before it can be read")
  }

  @Test func ossDomainsAreURLsAndRegionsAreRegionIDs() async throws {
    let oss = try await OSSEnvironment.get()
    let domains = try await InProcess.run(["domains", "photos"], environment: oss.variables)
    #expect(domains.status == 0, "\(domains)")
    #expect(
      !domains.lines.isEmpty && domains.lines.allSatisfy { $0.hasPrefix("http") }, "\(domains)")
    let buckets = try await InProcess.run(["buckets"], environment: oss.variables)
    #expect(buckets.status == 0 && buckets.stdout.contains(" cn-hangzhou "), "\(buckets)")
    #expect(!buckets.stdout.contains("oss-cn-hangzhou"), "\(buckets)")
  }

  @Test func lsAndFindSayHowToResumeAlikeOnBothProviders() async throws {
    let oss = try await OSSEnvironment.get()
    let prefix =
      "resume with: OSS_ENDPOINT=\(oss.emulator.baseURL) OSS_REGION=cn-hangzhou kodo"
    let ls = try await InProcess.run(
      ["ls", "-r", "--limit", "1", "photos"], environment: oss.variables)
    #expect(
      ls.stderr.contains(prefix + " ls --provider oss -r --limit 1 photos --marker "), "\(ls)")
    let find = try await InProcess.run(
      ["find", "--limit", "1", "--name", "*.txt", "photos"], environment: oss.variables)
    #expect(
      find.stderr.contains(
        prefix + " find --provider oss --name '*.txt' --limit 1 photos --marker "), "\(find)")
    let kodo = try await run(["find", "--limit", "1", "photos"], withDefault)
    #expect(
      kodo.stderr.contains(
        "resume with: kodo find --config \(env.config) --limit 1 photos --marker "),
      "\(kodo)")
  }

  /// Examples are copied and pasted: at 80 columns none is wrapped, and cat's and get's help
  /// speaks of one object.
  @Test(arguments: HelpGoldenTests.commands)
  func helpExamplesFitEightyColumns(_ command: [String]) async throws {
    let result = try await CLIRunner("kodo", environment: ["COLUMNS": "80"]).run(
      command + ["--help"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(of: "Examples:") else { return }
    for line in lines[(start + 1)...].prefix(while: { !$0.hasPrefix("USAGE:") }) {
      // A wrapped line starts at the margin.
      #expect(line.isEmpty || line.hasPrefix("  "), "\(command): \(line)")
    }
    if command == ["cat"] || command == ["get"] {
      #expect(!result.stdout.contains("stat takes"), "\(command)")
    }
  }

  /// `ls -r -l` rows stay within 120 columns for names up to 24 characters, on both providers
  /// (OSS listings carry no MIME type: no column of `-`); a recursive summary counts no folders.
  @Test func longRecursiveListingsFitAHundredAndTwentyColumns() async throws {
    let oss = try await OSSEnvironment.get()
    let kodo = try await run(["ls", "-r", "-l", "--summarize", "logs"], withDefault)
    let other = try await InProcess.run(
      ["ls", "-r", "-l", "--summarize", "photos"], environment: oss.variables)
    let cases = [(kodo, CLIEnvironment.logs.keys), (other, OSSEnvironment.photos.keys)]
    for (result, keys) in cases {
      #expect(result.status == 0, "\(result)")
      var measured = 0
      for row in result.lines.dropLast() {
        guard let key = keys.filter({ row.hasSuffix(" " + $0) }).max(by: { $0.count < $1.count })
        else { continue }
        // Sizes take 10 columns on a terminal, 14 (exact bytes) here.
        #expect(row.count - key.count - 4 + 24 <= 120, "\(row)")
        measured += 1
      }
      #expect(measured >= 2, "\(result)")
      #expect(result.lines.last?.contains("folder") == false, "\(result)")
    }
    #expect(!other.stdout.contains(" - "), "\(other)")
  }

  /// `du --depth N` as GNU `du -d N`: every folder up to N levels, each after the folders in
  /// it; the counts line up; a total with many classes stays within 120 columns.
  @Test func duDepthShowsEveryLevelUpToNAligned() async throws {
    let json = try await run(["du", "--json", "--depth", "2", "photos"], withDefault)
    #expect(json.status == 0, "\(json)")
    let prefixes = try CLIEnvironment.jsonLines(json).compactMap { $0["prefix"] as? String }
    #expect(
      prefixes == ["2024/summer trip/", "2024/", "big/", "odd/", "中文/", ""], "\(json)")
    let text = try await run(["du", "--depth", "1", "photos"], withDefault)
    let columns = Set(
      text.lines.compactMap { line in
        line.range(of: " object").map { line.distance(from: line.startIndex, to: $0.lowerBound) }
      })
    #expect(columns.count == 1, "\(text)")
    #expect(text.stdout.contains(" 1 object ") && text.stdout.contains(" 2 objects "), "\(text)")
    let big = try await run(["du", "big"], withDefault)
    #expect(big.status == 0 && big.lines.count > 1, "\(big)")
    for line in big.lines { #expect(line.count <= 120, "\(line)") }
  }

  /// A command's help lists its own options before the global ones.
  @Test(arguments: [
    ["ls"], ["find"], ["du"], ["url"], ["token", "upload"], ["token", "qiniu"],
  ])
  func helpListsTheCommandsOwnOptionsFirst(_ command: [String]) async throws {
    let result = try await run(command + ["--help"], withDefault)
    let lines = result.stdout.split(separator: "\n")
    guard let start = lines.firstIndex(of: "OPTIONS:") else {
      Issue.record("no OPTIONS in \(result)")
      return
    }
    #expect(lines.dropFirst(start + 1).first?.hasPrefix("  --config") == false, "\(result)")
  }
}

/// In-process runs configured for OSS by the environment only.
struct InProcessOSS {
  var variables: [String: String]

  func run(_ arguments: [String]) async throws -> CLIRunner.Result {
    try await InProcess.run(arguments, environment: variables)
  }
}
