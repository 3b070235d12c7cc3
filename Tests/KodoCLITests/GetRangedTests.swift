import Foundation
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// A large `get` goes as ranges fetched in parallel and written in place; the file is exact and
/// checked whole, also when a range's connection drops.
@Suite("get of a large object: parallel ranges, written in place, checked whole")
struct GetRangedTests {
  static let wires: [EmulatorProtocol] = [.kodo, .oss]

  @Test(arguments: wires)
  func aLargeObjectComesInRangesExactEvenWhenOneDrops(_ wire: EmulatorProtocol) async throws {
    try await PutBench.with(wire) { bench in
      let size = Int(DownloadFile.rangedThreshold) + 3 * Int(DownloadFile.rangeSize) / 2 + 7
      let bytes = PutBench.bytes(size, seed: 13)
      let path = try bench.file("large.bin", bytes)
      let put = try await bench.run(["put", path, "mem/large.bin"])
      try #require(put.status == 0, "\(put)")

      let ranges = Int((Int64(size) + DownloadFile.rangeSize - 1) / DownloadFile.rangeSize)
      bench.emulator.server.resetStats()
      let target = bench.home + "/copy.bin"
      let got = try await bench.run(["get", "-o", target, "mem", "large.bin"])
      #expect(got.status == 0, "\(got)")
      #expect(bench.emulator.server.stats.download == ranges)
      #expect(FileManager.default.contents(atPath: target) == Data(bytes))

      // A range's connection dropped: that range is fetched again, the file still exact.
      bench.emulator.server.scheduleFault(
        EmulatorFault(endpoint: .download, mode: .drop, count: 1))
      let again = bench.home + "/again.bin"
      let retried = try await bench.run(["get", "-o", again, "mem", "large.bin"])
      #expect(retried.status == 0, "\(retried)")
      #expect(FileManager.default.contents(atPath: again) == Data(bytes))
      let left = try FileManager.default.contentsOfDirectory(atPath: bench.home)
      #expect(left.filter { $0.hasPrefix(".") }.isEmpty, "no temporary file left: \(left)")
    }
  }
}
