import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

/// Item 3 of "reliability": answers that are wrong in every way a server or a proxy can make
/// them wrong, through the real `kodo` binary. Each gives the contract's exit code and one clear
/// error line; none crashes, and none passes partial output off as complete.
@Suite("Bad answers from the service", .serialized)
struct BadAnswerTests {
  /// One emulator for the suite; each case schedules its faults and clears them afterwards.
  static let emulator = Task {
    try await EmulatorProcess(["--synthetic", "b=200", "--seed", "5"])
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var endpoint: String
    var mode: String
    var status: Int? = nil
    var body: String? = nil
    var exit: Int32
    var testDescription: String { "\(endpoint) \(mode)\(status.map { " \($0)" } ?? "") → \(exit)" }
  }

  /// What each bad answer becomes: a retryable failure that outlives the retries is 75, a
  /// timeout 69, an answer that cannot be understood 76.
  static let apiCases: [Case] = ["list", "stat", "buckets"].flatMap { endpoint in
    [
      Case(endpoint: endpoint, mode: "html", exit: 75),
      Case(endpoint: endpoint, mode: "status", status: 500, exit: 75),
      Case(endpoint: endpoint, mode: "status", status: 573, exit: 75),
      Case(endpoint: endpoint, mode: "drop", exit: 75),
      Case(endpoint: endpoint, mode: "short-body", exit: 75),
      Case(endpoint: endpoint, mode: "truncated", exit: 76),
      Case(endpoint: endpoint, mode: "no-reqid", exit: 76),
      Case(endpoint: endpoint, mode: "status", status: 200, body: "<html>hi</html>", exit: 76),
      Case(endpoint: endpoint, mode: "status", status: 200, body: "", exit: 76),
      Case(endpoint: endpoint, mode: "status", status: 401, exit: 77),
      Case(endpoint: endpoint, mode: "status", status: 403, exit: 77),
      Case(endpoint: endpoint, mode: "status", status: 418, exit: 1),
      Case(endpoint: endpoint, mode: "hang", exit: 69),
      Case(endpoint: endpoint, mode: "stall-after-headers", exit: 69),
    ]
  }

  static func command(for endpoint: String) -> [String] {
    switch endpoint {
    case "list": ["ls", "-r", "--summarize", "b"]
    case "stat": ["stat", "b", "dir-000/sub-00/file-0000.jpg"]
    default: ["buckets"]
    }
  }

  @Test(arguments: apiCases)
  func aBadAPIAnswerGivesTheContractsExitCode(_ testCase: Case) async throws {
    let emulator = try await Self.emulator.value
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    // Timeouts take a second an attempt; one output format is enough for them.
    let slow = ["hang", "stall-after-headers"].contains(testCase.mode)
    for format in slow ? [[]] : [[], ["--json"]] {
      try await emulator.scheduleFault(
        endpoint: testCase.endpoint, mode: testCase.mode, count: 20, status: testCase.status,
        body: testCase.body)
      let result = try await kodo.run(
        ["--retries", slow ? "1" : "2", "--timeout", "1"] + format
          + Self.command(for: testCase.endpoint))
      try await emulator.clearFaults()
      expectFailure(result, status: testCase.exit)
      #expect(!result.stderr.contains("<html") && !result.stderr.contains("<HTML"))
      #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
    }
  }

  /// The same for downloads, through `cat` and `get`. Download answers need no `X-Reqid` (CDNs
  /// do not send it), so `no-reqid` is a success there. A body that is shorter than the object
  /// is never passed off as the object: `cat` may already have streamed the part it got, but
  /// exits 76; `get` writes nothing.
  static let downloadCases: [Case] = [
    Case(endpoint: "download", mode: "html", exit: 75),
    Case(endpoint: "download", mode: "status", status: 503, exit: 75),
    Case(endpoint: "download", mode: "drop", exit: 75),
    Case(endpoint: "download", mode: "short-body", exit: 75),
    Case(endpoint: "download", mode: "truncated", exit: 76),
    Case(endpoint: "download", mode: "hang", exit: 69),
    Case(endpoint: "download", mode: "stall-after-headers", exit: 69),
    Case(endpoint: "download", mode: "status", status: 404, exit: 66),
    Case(endpoint: "download", mode: "status", status: 401, exit: 77),
    Case(endpoint: "download", mode: "no-reqid", exit: 0),
  ]

  @Test(arguments: downloadCases)
  func aBadDownloadAnswerGivesTheContractsExitCode(_ testCase: Case) async throws {
    let emulator = try await Self.emulator.value
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let key = "dir-000/sub-00/file-0000.jpg"
    let whole = try await kodo.run(["cat", "b", key]).stdoutBytes
    try #require(whole.count > 10)

    try await emulator.scheduleFault(
      endpoint: "download", mode: testCase.mode, count: 20, status: testCase.status)
    let slow = ["hang", "stall-after-headers"].contains(testCase.mode)
    let retries = ["--retries", slow ? "1" : "2", "--timeout", "1"]
    let cat = try await kodo.run(retries + ["cat", "b", key])
    try await emulator.clearFaults()
    if testCase.exit == 0 {
      #expect(cat.status == 0 && cat.stdoutBytes == whole, "\(cat)")
    } else {
      // To a pipe, a body that breaks off has been streamed as far as it came.
      let partial = ["truncated", "short-body"].contains(testCase.mode)
      expectFailure(cat, status: testCase.exit, stdoutEmpty: !partial)
      #expect(cat.stdoutBytes.count < whole.count, "never the whole object on a failure")
    }

    let directory = try temporaryDirectory()
    try await emulator.scheduleFault(
      endpoint: "download", mode: testCase.mode, count: 20, status: testCase.status)
    let get = try await kodo.run(retries + ["get", "b", key, "-o", directory + "/file"])
    try await emulator.clearFaults()
    let files = try FileManager.default.contentsOfDirectory(atPath: directory)
    if testCase.exit == 0 {
      #expect(get.status == 0, "\(get)")
      #expect(files == ["file"])
    } else {
      expectFailure(get, status: testCase.exit)
      #expect(files.isEmpty, "no file and no temporary file after a failed get: \(files)")
    }
  }

  /// The first page arrives, then the answers go bad: the listing must not exit 0, and in JSON
  /// mode must not end with a summary as if it were complete. (The first page is a scheduled
  /// 200 answer, so the request after it is the one that goes bad, whatever the timing.)
  @Test(arguments: ["truncated", "short-body", "html", "drop"])
  func aListingThatGoesBadPartWayIsNotReportedComplete(_ mode: String) async throws {
    let emulator = try await Self.emulator.value
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let marker = URLSafeBase64.encode(Array(#"{"c":0,"k":"a"}"#.utf8))
    let firstPage =
      #"{"marker":"\#(marker)","items":[{"key":"a","hash":"h","fsize":1,"mimeType":"text/plain","putTime":1,"type":0}]}"#
    for format in [["--json"], []] {
      try await emulator.clearFaults()
      try await emulator.scheduleFault(
        endpoint: "list", mode: "status", count: 1, status: 200, body: firstPage)
      try await emulator.scheduleFault(endpoint: "list", mode: mode, count: 20)
      let result = try await kodo.run(
        ["--retries", "2", "ls", "-r", "--summarize"] + format + ["b"])
      expectFailure(result, status: mode == "truncated" ? 76 : 75, stdoutEmpty: false)
      #expect(result.lines.count == 1, "\(result)")
      #expect(!result.stdout.contains("summary") && !result.stdout.contains("objects,"))
      #expect(resumeMarker(in: result.stderr) == marker, "\(result.stderr)")
    }
    try await emulator.clearFaults()
  }
}
