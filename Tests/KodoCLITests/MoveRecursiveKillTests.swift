import Foundation
import KodoEmulator
import KodoTestSupport
import Testing

/// `kodo mv -r` killed with SIGKILL midway and run again: the process boundary is the point, so
/// the built `kodo` runs as a process against an in-process emulator, whose writes stop being
/// answered after a known number (a `skewedDate(0)` fault, an answer as usual, lets that many through, a `hang` fault
/// holds every later one).
@Suite struct MoveRecursiveKillTests {
  @Test(arguments: RemoveTests.wires)
  func aKilledMoveFinishesWhenRunAgainAndNoKeyIsEverMissingFromBoth(_ wire: EmulatorProtocol)
    async throws
  {
    // Kodo: two `/batch` requests of 1000 moves are answered, the third hangs (two go at once,
    // in either order: each holds 1000). OSS (batches of 100, one at a time): 100 copies and
    // their DeleteMultipleObjects, then 49 copies of the next batch.
    let count = wire == .kodo ? 3_000 : 250
    let passing = wire == .kodo ? 2 : 150
    let (movedAtKill, copiedAtKill) = wire == .kodo ? (2_000, 2_000) : (100, 149)
    let keys = MoveRecursiveTests.numbered("k/", count)
    func target(_ key: String) -> String { "m/" + key.dropFirst(2) }
    try await MoveRecursiveTests.with(wire, keys: keys) { emulator, environment in
      emulator.server.scheduleFault(
        EmulatorFault(endpoint: .write, mode: .skewedDate(seconds: 0), count: passing))
      emulator.server.scheduleFault(EmulatorFault(endpoint: .write, mode: .hang, count: 1 << 30))
      /// Lists the source, then the destination: a key the source listing missed was moved
      /// before the destination listing began, so it must show there.
      func observe() async throws -> (source: Set<String>, destination: Set<String>) {
        let source = Set(try await MoveRecursiveTests.keys("bkt", environment))
        let destination = Set(try await MoveRecursiveTests.keys("two", environment))
        let lost = keys.filter { !source.contains($0) && !destination.contains(target($0)) }
        #expect(lost.isEmpty, "missing from both places: \(lost.prefix(5))")
        return (source, destination)
      }
      // No 30 s idle limit: on a loaded machine the writes let through may take longer than
      // that to be answered, and the held one must be waited on until the kill.
      let running = try CLIRunner("kodo", environment: environment).start(
        ["mv", "-r", "--yes", "--timeout", "600", "bkt/k", "two/m/"])
      // Killed from a thread of its own as soon as the first held write arrives: a task on a
      // busy pool could come back after kodo's 30 s low-speed limit had ended the run itself.
      let server = emulator.server
      let killer = Task { await running.send(SIGKILL, when: { server.stats.write > passing }) }
      // Meanwhile, every observation finds each key in one place at least.
      while running.process.isRunning {
        _ = try await observe()
        try await Task.sleep(for: .milliseconds(50))
      }
      await killer.value
      let killed = await running.wait()
      #expect(killed.status == 128 + SIGKILL, "killed midway, not after the end: \(killed)")
      // The writes let through may still be finishing at the emulator: wait for them.
      let deadline = Patience.deadline
      var seen = try await observe()
      while seen.source.count > count - movedAtKill || seen.destination.count < copiedAtKill {
        try #require(
          ContinuousClock.now < deadline,
          "source \(seen.source.count), destination \(seen.destination.count)")
        try await Task.sleep(for: .milliseconds(50))
        seen = try await observe()
      }
      #expect(seen.source.count == count - movedAtKill)
      #expect(seen.destination.count == copiedAtKill)
      _ = emulator.server.clearFaults()

      let rerun = try await InProcess.run(
        ["mv", "-r", "--yes", "--json", "bkt/k", "two/m/"], environment: environment)
      #expect(rerun.status == 0, "\(rerun)")
      let moved = try RemoveTests.jsonLines(rerun.stdoutBytes).compactMap { $0["from"] as? String }
      #expect(moved.count == count - movedAtKill, "the copies made before the kill count as moved")
      #expect(try await MoveRecursiveTests.keys("bkt", environment) == [])
      #expect(try await MoveRecursiveTests.keys("two", environment) == keys.map(target))
      let bytes = try await MoveRecursiveTests.contents("two", environment)
      #expect(bytes.count == count)
      #expect(bytes.allSatisfy { target($0.value) == $0.key })
    }
  }
}
