import Foundation
import KodoTestSupport
import Testing

/// Item 2 of "reliability": Ctrl-C, SIGTERM and a reader that goes away.
@Suite("Signals, pipes and interrupted downloads", .serialized)
struct SignalAndPipeTests {
  /// SIGINT (130) and SIGTERM (143) stop a slow listing promptly, print the resume marker on
  /// stderr (also in JSON mode), and the marker completes the listing exactly.
  static let listingSignals: [(signal: Int32, status: Int32, json: Bool)] = [
    (SIGINT, 130, true), (SIGTERM, 143, false), (SIGTERM, 143, true),
  ]

  @Test(arguments: listingSignals)
  func aSignalStopsASlowListingPromptlyWithItsMarker(signal: Int32, status: Int32, json: Bool)
    async throws
  {
    let slow = try await EmulatorProcess(["--synthetic", "slow=20000", "--latency-ms", "300"])
    let config = try slow.configFile()
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
    let format = json ? ["--json"] : []
    let running = try kodo.start(
      ["ls", "-r", "--summarize", "--page-size", "100"] + format + ["slow"])
    await #expect(running.waitFor { $0.split(separator: "\n").count >= 200 })
    running.send(signal)
    let result = await running.wait()
    // The signal's status, not the 0 of a listing left to finish (a minute at this latency).
    #expect(result.status == status, "\(result)")
    #expect(!result.stderr.contains("kodo: error:"), "an interruption is not an error")
    expectNoCrash(result)
    #expect(
      result.stderr.contains(
        "interrupted; resume with: kodo ls --config \(config) -r " + (json ? "--json " : "")
          + "--summarize --page-size 100 slow --marker "))
    #expect(result.lines.count % 100 == 0, "only whole pages are printed")
    #expect(!result.stdout.contains("summary") && !result.stdout.contains(#""type":"next""#))
    let marker = try #require(resumeMarker(in: result.stderr))
    let rest = try await kodo.run(["ls", "-r", "--json", "--marker", marker, "slow"])
    let full = try await kodo.run(["ls", "-r", "--json", "slow"])
    let fullKeys = try jsonKeys(full)
    let first = json ? try jsonKeys(result) : textKeys(result, among: fullKeys)
    #expect((first ?? []) + (try jsonKeys(rest)) == fullKeys)
  }

  /// An interrupted `--parallel` listing says it was interrupted and that it cannot be resumed
  /// with a marker (it used to exit 130 without a word).
  @Test func anInterruptedParallelListingSaysSo() async throws {
    let slow = try await EmulatorProcess(["--synthetic", "slow=20000", "--latency-ms", "300"])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try slow.configFile()])
    let running = try kodo.start(["ls", "-r", "--parallel", "2", "--page-size", "100", "slow"])
    await #expect(running.waitFor { $0.split(separator: "\n").count >= 100 })
    running.send(SIGINT)
    let result = await running.wait()
    #expect(result.status == 130, "\(result)")
    expectNoCrash(result)
    #expect(!result.stderr.contains("kodo: error:"))
    #expect(
      result.stderr.contains(
        "kodo: interrupted; a --parallel listing cannot be resumed with a marker; run it again"),
      "\(result.stderr)")
  }

  /// `kodo ls -r BIG | head -n 1`: kodo exits 0 without a word on stderr, and stops listing at
  /// once: the emulator sees a couple of list requests, not the 50 of the whole bucket.
  @Test(arguments: [false, true])
  func aClosedPipeStopsTheListingAtOnce(json: Bool) async throws {
    let emulator = try await EmulatorProcess(["--synthetic", "big=50000"])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let script =
      "\"$KODO\" ls -r \(json ? "--json " : "")big | head -n 1; echo \"status=${PIPESTATUS[0]}\" >&2"
    let result = try await kodo.runShell(script)
    #expect(result.lines.count == 1)
    #expect(result.stderr == "status=0\n", "\(result.stderr)")
    let lists = try #require(try await emulator.stats()["list"])
    // The page whose output meets the closed pipe, at most the one before it (a text page of
    // 1,000 lines can fit in the pipe's buffer), and the two the read-ahead may have asked for
    // after it (`ReadAhead.depth`).
    #expect((1...4).contains(lists), "\(lists) list requests for one line of output")
  }

  /// An interrupted `get` (the download stalls after the headers) leaves neither the file nor
  /// its temporary `.part` file behind.
  static let getSignals: [(signal: Int32, status: Int32)] = [(SIGINT, 130), (SIGTERM, 143)]

  @Test(arguments: getSignals)
  func anInterruptedGetLeavesNoFiles(signal: Int32, status: Int32) async throws {
    let emulator = try await EmulatorProcess(["--synthetic", "b=50"])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let key = try await #require(
      try kodo.run(["ls", "-r", "-0", "b"]).stdout.split(separator: "\0").first)
    let directory = try temporaryDirectory()
    try await emulator.scheduleFault(endpoint: "download", mode: "stall-after-headers")
    let running = try kodo.start(["get", "b", String(key), "-o", directory + "/file.bin"])
    // Wait until the download is under way: its temporary file exists.
    let deadline = Patience.deadlineDate
    while (try FileManager.default.contentsOfDirectory(atPath: directory)).isEmpty,
      Date() < deadline, running.process.isRunning
    {
      try await Task.sleep(for: .milliseconds(10))
    }
    let partial = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(partial.count == 1 && partial[0].hasSuffix(".part"), "\(partial)")
    running.send(signal)
    let result = await running.wait()
    // The signal's status, not the 69 of the stalled download's idle limit.
    #expect(result.status == status, "\(result)")
    expectNoCrash(result)
    #expect(!result.stderr.contains("kodo: error:"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  /// L16: `get -r` interrupted says what it wrote and how to finish, exits 130, and leaves no
  /// temporary file.
  @Test func anInterruptedRecursiveGetSaysHowToFinish() async throws {
    let emulator = try await EmulatorProcess(["--synthetic", "b=50"])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let directory = try temporaryDirectory()
    try await emulator.scheduleFault(endpoint: "download", mode: "stall-after-headers")
    let running = try kodo.start(["get", "-r", "--parallel", "1", "b", directory])
    let deadline = Patience.deadlineDate
    while (try await emulator.stats()["download"] ?? 0) == 0, Date() < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    running.send(SIGINT)
    let result = await running.wait()
    #expect(result.status == 130, "\(result)")
    expectNoCrash(result)
    #expect(!result.stderr.contains("kodo: error:"), "\(result.stderr)")
    #expect(result.stderr.contains("0 written"), "\(result.stderr)")
    #expect(result.stderr.contains("run the same command again to finish"), "\(result.stderr)")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(!left.contains { $0.hasSuffix(".part") }, "\(left)")
  }

  /// `cat` interrupted mid-download exits 130 and says nothing more than that.
  @Test func anInterruptedCatExits130() async throws {
    let emulator = try await EmulatorProcess(["--synthetic", "b=50"])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let key = try await #require(
      try kodo.run(["ls", "-r", "-0", "b"]).stdout.split(separator: "\0").first)
    try await emulator.scheduleFault(endpoint: "download", mode: "stall-after-headers")
    let running = try kodo.start(["cat", "b", String(key)])
    let deadline = Patience.deadlineDate
    while (try await emulator.stats()["download"] ?? 0) == 0, Date() < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    running.send(SIGINT)
    let result = await running.wait()
    #expect(result.status == 130, "\(result)")
    #expect(result.stdoutBytes.isEmpty)
    expectNoCrash(result)
    #expect(!result.stderr.contains("kodo: error:"))
  }
}
