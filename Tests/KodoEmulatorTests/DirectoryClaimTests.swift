import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

/// A `--writable` directory is served by one emulator at a time (a lock on `DIR/.kodo-emulator`),
/// and what a killed emulator left in `DIR/.kodo-emulator/tmp/` is removed when the next one
/// starts.
@Suite struct DirectoryClaimTests {
  private func configuration(_ path: String) -> EmulatorConfiguration {
    var configuration = EmulatorConfiguration(buckets: [.directory("files", path: path)])
    configuration.writableBuckets = ["files"]
    return configuration
  }

  @Test func aKilledEmulatorsTemporaryFilesAreRemovedAtStartUp() async throws {
    let tree = try TemporaryDirectory()
    let outside = try TemporaryDirectory()
    defer {
      tree.remove()
      outside.remove()
    }
    try tree.write("kept.txt", Array("kept".utf8))
    // What an emulator killed during a put and during a multipart upload leaves.
    try tree.write(".kodo-emulator/tmp/put-3k2j1", Array("half a put".utf8))
    try tree.write(".kodo-emulator/tmp/spool-9zz0", Array(repeating: 7, count: 4_096))
    // Not the emulator's names, or not files: left alone.
    try tree.write(".kodo-emulator/tmp/notes.txt", Array("mine".utf8))
    try tree.write(".kodo-emulator/tmp/put-", Array("no suffix".utf8))
    try FileManager.default.createDirectory(
      atPath: tree.path + "/.kodo-emulator/tmp/spool-folder", withIntermediateDirectories: true)
    // A link with the emulator's name is removed as a link; what it points to stays.
    try outside.write("target.txt", Array("outside".utf8))
    try FileManager.default.createSymbolicLink(
      atPath: tree.path + "/.kodo-emulator/tmp/put-link",
      withDestinationPath: outside.path + "/target.txt")
    try await EmulatorHarness.with(configuration(tree.path)) { emulator in
      let listed = try await emulator.get("/list?bucket=files").json()
      let keys = try #require(listed["items"]?.arrayValue).compactMap { $0["key"]?.stringValue }
      #expect(keys == ["kept.txt"])
    }
    let left = try FileManager.default.contentsOfDirectory(
      atPath: tree.path + "/.kodo-emulator/tmp")
    #expect(left.sorted() == ["notes.txt", "put-", "spool-folder"])
    #expect(try String(contentsOfFile: outside.path + "/target.txt", encoding: .utf8) == "outside")
    #expect(try String(contentsOfFile: tree.path + "/kept.txt", encoding: .utf8) == "kept")
  }

  @Test func aSecondEmulatorCannotServeTheSameWritableDirectoryUntilTheFirstStops() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try tree.write("a.txt", Array("a".utf8))
    let path = tree.path
    try await EmulatorHarness.with(configuration(path)) { _ in
      do {
        let second = try await EmulatorServer.start(configuration(path))
        try? await second.shutdown()
        Issue.record("a second emulator started on a directory the first one writes into")
      } catch {
        guard case EmulatorError.directoryInUse(let claimed) = error else {
          Issue.record("unexpected error \(error)")
          return
        }
        #expect(claimed == path)
        #expect("\(error)".contains("another kodo-emulator is serving \(path)"))
      }
      // A read-only emulator of the same directory needs no claim.
      var readOnly = configuration(path)
      readOnly.writableBuckets = []
      let reader = try await EmulatorServer.start(readOnly)
      try await reader.shutdown()
    }
    // Once the first has stopped, the next one starts, and keeps the files.
    try await EmulatorHarness.with(configuration(path)) { emulator in
      let listed = try await emulator.get("/list?bucket=files").json()
      let keys = try #require(listed["items"]?.arrayValue).compactMap { $0["key"]?.stringValue }
      #expect(keys == ["a.txt"])
    }
  }

  /// Every descriptor an emulator holds in a `--writable` directory's state folder (the lock's
  /// among them) is closed on exec: a process started meanwhile (a test running `kodo`) does not
  /// keep it, nor the claim with it, for its whole life.
  @Test func theDescriptorsHeldInTheStateFolderAreClosedOnExec() async throws {
    #if os(Linux)
      let tree = try TemporaryDirectory()
      defer { tree.remove() }
      let state = tree.path + "/.kodo-emulator"
      try await EmulatorHarness.with(configuration(tree.path)) { _ in
        var held: [(Int32, Bool)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
          guard let descriptor = Int32(name),
            let target = try? FileManager.default.destinationOfSymbolicLink(
              atPath: "/proc/self/fd/" + name),
            target == state || target.hasPrefix(state + "/")
          else { continue }
          held.append((descriptor, fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0))
        }
        #expect(held.count >= 2, "the lock's and the temporary folder's at least: \(held)")
        #expect(held.allSatisfy { $0.1 }, "\(held)")
      }
    #endif
  }

  /// A claim held for a moment by another open file of the state folder (a process being
  /// started holds copies of every descriptor until it runs its program) is waited for: the
  /// emulator starts once it is let go, not "another kodo-emulator is serving".
  @Test func aClaimHeldForAMomentIsWaitedFor() async throws {
    let tree = try TemporaryDirectory()
    defer { tree.remove() }
    try FileManager.default.createDirectory(
      atPath: tree.path + "/.kodo-emulator", withIntermediateDirectories: true)
    let holder = open(tree.path + "/.kodo-emulator", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    try #require(holder >= 0)
    try #require(flock(holder, LOCK_EX | LOCK_NB) == 0)
    // Let go from a thread of its own, a tenth of a second from now.
    Thread {
      usleep(100_000)
      close(holder)
    }.start()
    let server = try await EmulatorServer.start(configuration(tree.path))
    try await server.shutdown()
  }
}
