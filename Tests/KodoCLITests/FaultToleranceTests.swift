import Foundation
import KodoTestSupport
import Testing

/// Item 1 of "reliability": retries hide a failing service, and when they cannot, the exit code
/// and the resume marker say exactly what happened.
@Suite("Faults: retries, exhaustion and resuming", .serialized)
struct FaultToleranceTests {
  static let seed = "11"

  /// A listing of 50,000 objects while 15 % of the API requests fail (5xx, 573, dropped
  /// connections) gives byte for byte what a fault-free emulator with the same seed gives.
  @Test func aListingOfFiftyThousandObjectsUnderAFifteenPercentFailRateIsExact() async throws {
    let faulty = try await EmulatorProcess([
      "--synthetic", "big=50000", "--seed", Self.seed, "--fail-rate", "0.15",
    ])
    let clean = try await EmulatorProcess(["--synthetic", "big=50000", "--seed", Self.seed])
    let arguments = ["ls", "-r", "--json", "--page-size", "1000", "big"]
    // Both listings run at once; the default retries (5 attempts) must be enough.
    let faultyRun = try CLIRunner("kodo", environment: ["KODO_CONFIG": faulty.configFile()]).start(
      arguments)
    let cleanRun = try CLIRunner("kodo", environment: ["KODO_CONFIG": clean.configFile()]).start(
      arguments)
    let withFaults = await faultyRun.wait()
    let reference = await cleanRun.wait()

    #expect(reference.status == 0, "\(reference)")
    #expect(withFaults.status == 0, "\(withFaults)")
    #expect(withFaults.stderr.isEmpty, "\(withFaults.stderr)")
    #expect(withFaults.stdoutBytes == reference.stdoutBytes, "same lines, same order, same bytes")
    let keys = try jsonKeys(withFaults)
    #expect(keys.count == 50000)
    #expect(strictlyIncreasingByBytes(keys), "in key order, none twice")

    let stats = try await faulty.stats()
    let faults = try #require(stats["faults"])
    #expect(faults > 0, "the fail rate did fail requests: \(stats)")
    #expect((stats["list"] ?? 0) >= 50 + faults, "every failed page was asked again: \(stats)")
  }

  /// stat, cat and get recover under the same fail rate (the fail rate spares downloads, so
  /// downloads get scheduled faults: 503s, a dropped connection, a body cut short).
  @Test func statCatAndGetRecoverUnderTheFailRate() async throws {
    let faulty = try await EmulatorProcess([
      "--synthetic", "s=300", "--seed", Self.seed, "--fail-rate", "0.15",
    ])
    let clean = try await EmulatorProcess(["--synthetic", "s=300", "--seed", Self.seed])
    let faultyKodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try faulty.configFile()])
    let cleanKodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try clean.configFile()])
    let listing = try await cleanKodo.run(["ls", "-r", "-0", "s"])
    let keys = listing.stdout.split(separator: "\0").map(String.init)
    try #require(keys.count == 300)
    let sample = stride(from: 0, to: 300, by: 25).map { keys[$0] }

    for key in sample {
      let stat = try await faultyKodo.run(["stat", "--json", "s", key])
      #expect(stat.status == 0, "\(stat)")
      await #expect(stat.stdout == (try cleanKodo.run(["stat", "--json", "s", key])).stdout)
    }
    let directory = try temporaryDirectory()
    for (index, key) in sample.prefix(6).enumerated() {
      let expected = try await cleanKodo.run(["cat", "s", key])
      let cat = try await faultyKodo.run(["cat", "s", key])
      #expect(cat.status == 0, "\(cat)")
      #expect(cat.stdoutBytes == expected.stdoutBytes, "cat \(key)")
      let path = directory + "/\(index)"
      let get = try await faultyKodo.run(["get", "s", key, "-o", path])
      #expect(get.status == 0, "\(get)")
      #expect(FileManager.default.contents(atPath: path).map(Array.init) == expected.stdoutBytes)
    }
    let apiFaults = try #require(try await faulty.stats()["faults"])
    #expect(apiFaults > 0, "the fail rate did fail stat requests")

    // Downloads: two 503s, then a dropped connection, then a body cut short.
    let key = sample[1]
    let expected = try await cleanKodo.run(["cat", "s", key]).stdoutBytes
    try #require(expected.count > 2)
    try await faulty.scheduleFault(endpoint: "download", mode: "status", count: 2, status: 503)
    try await faulty.scheduleFault(endpoint: "download", mode: "drop")
    let cat = try await faultyKodo.run(["cat", "s", key])
    #expect(cat.status == 0, "\(cat)")
    #expect(cat.stdoutBytes == expected)
    try await faulty.scheduleFault(endpoint: "download", mode: "short-body")
    let path = directory + "/short"
    let get = try await faultyKodo.run(["get", "s", key, "-o", path])
    #expect(get.status == 0, "get restarts a file download cut short: \(get)")
    #expect(FileManager.default.contents(atPath: path).map(Array.init) == expected)
    // cat to a regular file rewinds it and starts again; to a pipe it could not.
    try await faulty.scheduleFault(endpoint: "download", mode: "short-body")
    let catToFile = try await faultyKodo.runShell("\"$KODO\" cat s '\(key)' > '\(directory)/cat'")
    #expect(catToFile.status == 0, "\(catToFile)")
    #expect(FileManager.default.contents(atPath: directory + "/cat").map(Array.init) == expected)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        == (0..<6).map(String.init) + ["cat", "short"], "no temporary files left behind")
  }

  /// With every API request failing, every command that talks to the API exits 75 after its
  /// retries, with one error line naming the number of attempts.
  @Test func aFailRateOfOneExhaustsRetriesWith75() async throws {
    let failing = try await EmulatorProcess([
      "--synthetic", "b=10", "--fail-rate", "1", "--seed", "2",
    ])
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try failing.configFile()])
    let directory = try temporaryDirectory()
    let commands: [[String]] = [
      ["buckets"], ["ls", "b"], ["ls", "-r", "--json", "b"], ["stat", "b", "k"],
      ["cat", "b", "k"], ["get", "b", "k", "-o", directory + "/k"], ["domains", "b"],
      ["url", "b", "k"],
    ]
    for command in commands {
      let result = try await kodo.run(["--retries", "3"] + command)
      expectFailure(result, status: 75, containing: "gave up after 3 attempts")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  /// A server that went away is "unavailable" (69), after the retries.
  @Test func aStoppedServerIs69() async throws {
    let emulator = try await EmulatorProcess(["--synthetic", "b=10"])
    let config = try emulator.configFile()
    emulator.stop()
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
    for command in [["ls", "-r", "b"], ["stat", "b", "k"], ["cat", "b", "k"], ["buckets"]] {
      let result = try await kodo.run(["--retries", "2"] + command)
      expectFailure(result, status: 69, containing: "cannot connect to 127.0.0.1")
    }
  }

  /// A listing whose retries run out part way prints the pages it had, exits 75 (or 76 for an
  /// answer it cannot read), prints on stderr where to resume, and that marker completes the set
  /// exactly. JSON mode prints the marker on stderr too (`{"type":"next"}` is for `--limit`
  /// only) and no summary line, so the output cannot pass for a complete listing.
  static let cutShort: [(mode: String, json: Bool, exit: Int32)] = [
    ("status", false, 75), ("status", true, 75), ("truncated", false, 76), ("no-reqid", true, 76),
  ]

  @Test(arguments: cutShort)
  func aListingCutShortByFaultsPrintsItsMarkerAndResumesExactly(
    mode: String, json: Bool, exit: Int32
  ) async throws {
    // 30 pages at 300 ms each: the fault is scheduled after the first page, with seconds to
    // spare before the listing could end on its own, however busy the machine.
    let emulator = try await EmulatorProcess([
      "--synthetic", "slow=3000", "--seed", Self.seed, "--latency-ms", "300",
    ])
    let config = try emulator.configFile()
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
    let format = json ? ["--json"] : []
    let running = try kodo.start(
      ["ls", "-r", "--summarize", "--retries", "2", "--page-size", "100"] + format + ["slow"])
    // Once the first page is out, every further list request fails.
    await #expect(running.waitFor { $0.split(separator: "\n").count >= 100 })
    try await emulator.scheduleFault(endpoint: "list", mode: mode, count: 50, status: 503)
    let result = await running.wait()
    try await emulator.clearFaults()

    expectFailure(result, status: exit, stdoutEmpty: false)
    #expect(result.lines.count % 100 == 0 && result.lines.count >= 100, "whole pages only")
    #expect(result.lines.count < 3000)
    #expect(!result.stdout.contains("summary") && !result.stdout.contains("objects,"))
    #expect(!result.stdout.contains(#""type":"next""#))
    let resumeWith =
      "the listing stopped; resume with: kodo ls --config \(config) -r " + (json ? "--json " : "")
      + "--summarize --page-size 100 slow --marker "
    #expect(result.stderr.contains(resumeWith), "the resume command keeps the listing's options")
    let marker = try #require(resumeMarker(in: result.stderr))

    let rest = try await kodo.run(["ls", "-r", "--json", "--marker", marker, "slow"])
    #expect(rest.status == 0, "\(rest)")
    let full = try await kodo.run(["ls", "-r", "--json", "slow"])
    let fullKeys = try jsonKeys(full)
    let firstKeys = json ? try jsonKeys(result) : textKeys(result, among: fullKeys)
    #expect((firstKeys ?? []) + (try jsonKeys(rest)) == fullKeys)
  }
}
