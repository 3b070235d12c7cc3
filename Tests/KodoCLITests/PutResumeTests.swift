import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// Interrupted multipart puts: the checkpoint the CLI keeps, the rerun that sends only the parts
/// not done, a changed file starting again, `--no-resume` and `--abort`.
@Suite("put: an interrupted upload in parts resumes, restarts or is aborted")
struct PutResumeTests {
  static let wires: [EmulatorProtocol] = [.kodo, .oss]
  static let size = 8 << 20 + 5
  static let parts = 9
  static let small = ["--multipart-threshold", "1M", "--part-size", "1M", "--parallel", "1"]

  /// Starts `put` of `path` to `mem/big.bin` and, once at least two parts are saved in its
  /// checkpoint, makes every further upload request fail (a 400, not retried): the run fails
  /// with its checkpoint kept.
  static func interrupt(_ bench: PutBench, _ path: String) async throws -> CLIRunner.Result {
    let run = Task { try await bench.run(["put"] + small + [path, "mem/big.bin"]) }
    let deadline = Patience.deadline
    while bench.partsSaved() < 2 && ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    bench.emulator.server.scheduleFault(
      EmulatorFault(endpoint: .upload, mode: .status(400), count: 1000))
    let result = try await run.value
    _ = bench.emulator.server.clearFaults()
    return result
  }

  @Test(arguments: wires)
  func aRerunSendsOnlyThePartsNotDone(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire, latencyMilliseconds: 150) { bench in
      let bytes = PutBench.bytes(Self.size, seed: 3)
      let path = try bench.file("big.bin", bytes)
      let interrupted = try await Self.interrupt(bench, path)
      #expect(interrupted.status != 0, "\(interrupted)")
      let done = bench.partsSaved()
      try #require(done >= 2 && done < Self.parts, "\(interrupted)")
      let mode =
        try FileManager.default.attributesOfItem(
          atPath: bench.checkpointDirectory + "/"
            + (FileManager.default.contentsOfDirectory(atPath: bench.checkpointDirectory).first
              ?? ""))[.posixPermissions] as? Int
      #expect(mode == 0o600)
      bench.emulator.server.resetStats()
      let rerun = try await bench.run(["put"] + Self.small + [path, "mem/big.bin"])
      #expect(rerun.status == 0, "\(rerun)")
      // The parts listed, the rest sent, the completion: no part done is sent again.
      #expect(bench.emulator.server.stats.upload == 1 + (Self.parts - done) + 1)
      #expect(try await bench.content("big.bin") == bytes)
      #expect(bench.checkpoints().isEmpty)
    }
  }

  @Test(arguments: wires)
  func aChangedFileStartsAgain(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire, latencyMilliseconds: 150) { bench in
      let path = try bench.file("big.bin", PutBench.bytes(Self.size, seed: 4))
      _ = try await Self.interrupt(bench, path)
      try #require(bench.partsSaved() >= 2)
      let changed = PutBench.bytes(Self.size, seed: 40)
      _ = try bench.file("big.bin", changed)
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
      bench.emulator.server.resetStats()
      let rerun = try await bench.run(["put"] + Self.small + [path, "mem/big.bin"])
      #expect(rerun.status == 0, "\(rerun)")
      #expect(rerun.stderr.contains("changed since"), "\(rerun)")
      #expect(try await bench.content("big.bin") == changed)
      #expect(bench.checkpoints().isEmpty)
    }
  }

  @Test(arguments: wires)
  func noResumeStartsAfreshAndAbortForgets(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire, latencyMilliseconds: 150) { bench in
      let bytes = PutBench.bytes(Self.size, seed: 5)
      let path = try bench.file("big.bin", bytes)
      _ = try await Self.interrupt(bench, path)
      try #require(bench.partsSaved() >= 2)
      let aborted = try await bench.run(["put", "--abort", path, "mem/big.bin"])
      #expect(aborted.status == 0, "\(aborted)")
      #expect(bench.checkpoints().isEmpty)
      let nothing = try await bench.run(["put", "--abort", path, "mem/big.bin"])
      #expect(nothing.status == 66, "\(nothing)")
      _ = try await Self.interrupt(bench, path)
      try #require(bench.partsSaved() >= 2)
      bench.emulator.server.resetStats()
      let fresh = try await bench.run(["put", "--no-resume"] + Self.small + [path, "mem/big.bin"])
      #expect(fresh.status == 0, "\(fresh)")
      // The old session ended, a new one started, every part sent, completed.
      #expect(bench.emulator.server.stats.upload == 1 + 1 + Self.parts + 1)
      #expect(try await bench.content("big.bin") == bytes)
    }
  }

  @Test(arguments: wires)
  func aFileChangedWhileUploadedFailsThatFile(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire, latencyMilliseconds: 150) { bench in
      let path = try bench.file("big.bin", PutBench.bytes(Self.size, seed: 6))
      let run = Task { try await bench.run(["put"] + Self.small + [path, "mem/big.bin"]) }
      let deadline = Patience.deadline
      while bench.partsSaved() < 2 && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
      }
      let handle = try #require(FileHandle(forWritingAtPath: path))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("more".utf8))
      try handle.close()
      let result = try await run.value
      #expect(result.status == 74, "\(result)")
      #expect(result.stderr.contains("changed while it was uploaded"), "\(result)")
    }
  }
}
