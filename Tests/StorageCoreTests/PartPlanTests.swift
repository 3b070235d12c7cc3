import Foundation
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

/// The part planner, and the values a checkpoint is made of.
@Suite struct PartPlanTests {
  static let kodo = PartLimits(
    minimumPartSize: 1 << 20, maximumPartSize: 1 << 30, maximumPartCount: 10_000)
  static let oss = PartLimits(
    minimumPartSize: 100 << 10, maximumPartSize: 5 << 30, maximumPartCount: 10_000)

  @Test func theUsualCases() throws {
    let small = try PartPlan(totalSize: 10 << 20, preferredPartSize: 4 << 20, limits: Self.kodo)
    #expect(small.partSize == 4 << 20 && small.count == 3)
    #expect(small.range(ofPart: 3) == (8 << 20)..<(10 << 20))
    let empty = try PartPlan(totalSize: 0, preferredPartSize: 4 << 20, limits: Self.kodo)
    #expect(empty.count == 1 && empty.range(ofPart: 1).isEmpty)
    // Below the minimum: raised to it.
    let tiny = try PartPlan(totalSize: 5 << 20, preferredPartSize: 1000, limits: Self.kodo)
    #expect(tiny.partSize == 1 << 20 && tiny.count == 5)
    // 100 GiB in 4 MiB parts would be 25,600 parts: raised to 11 MiB (10,000 × 10.24 MiB).
    let large = try PartPlan(totalSize: 100 << 30, preferredPartSize: 4 << 20, limits: Self.kodo)
    #expect(large.partSize == 11 << 20)
    #expect(large.count == 9310)
    // Exactly the most that fits, and one byte more.
    let most = try PartPlan(totalSize: 10_000 << 30, preferredPartSize: 1, limits: Self.kodo)
    #expect(most.partSize == 1 << 30 && most.count == 10_000)
    #expect(throws: StorageError.self) {
      try PartPlan(totalSize: (10_000 << 30) + 1, preferredPartSize: 1, limits: Self.kodo)
    }
    #expect(throws: StorageError.self) {
      try PartPlan(totalSize: -1, preferredPartSize: 1, limits: Self.kodo)
    }
    #expect(throws: StorageError.self) {
      try PartPlan(totalSize: 1, preferredPartSize: 0, limits: Self.kodo)
    }
  }

  /// Whatever the size, preferred part size and limits: the parts are contiguous, cover the
  /// source exactly, are within the limits and the count, and the part size is the preferred
  /// one unless the limits or the count moved it; a plan is refused only when nothing fits.
  @Test func anySizeAnyPartSizeAnyLimits() async {
    // Six numbers spread over every order of magnitude: a number below 2^bits for each of
    // total (46 bits), preferred part size (31), minimum (26), maximum (33), count (14), step (23).
    let widths: [Int64] = [46, 31, 26, 33, 14, 23]
    await seededCheck(
      count: fuzzCount(2000), input: Gen<Int64>.value(in: 0...Int64.max).array(of: 6...6),
      Gen<Double>.value(in: 0...1).array(of: 6...6)
    ) { randoms, scales in
      let values = (0..<6).map { index -> Int64 in
        let bits = Int64((Double(widths[index]) * scales[index]).rounded(.down))
        return randoms[index] % ((1 << bits) + 1)
      }
      let total = values[0]
      let preferred = values[1] + 1
      let limits = PartLimits(
        minimumPartSize: values[2] + 1, maximumPartSize: values[3] + 1,
        maximumPartCount: Int(values[4]) + 1, sizeStep: values[5] + 1)
      let fits = total <= limits.maximumPartSize * Int64(limits.maximumPartCount)
      guard let plan = try? PartPlan(totalSize: total, preferredPartSize: preferred, limits: limits)
      else {
        #expect(!fits, "refused \(total) in \(limits)")
        return
      }
      #expect(fits)
      #expect(plan.count >= 1 && plan.count <= limits.maximumPartCount)
      #expect(plan.partSize >= limits.minimumPartSize && plan.partSize <= limits.maximumPartSize)
      let clamped = min(max(preferred, limits.minimumPartSize), limits.maximumPartSize)
      if plan.partSize != clamped {
        // Raised only because the count demanded it, to a step no larger than needed.
        #expect(plan.partSize > clamped)
        #expect(clamped * Int64(limits.maximumPartCount) < total)
        if plan.partSize != limits.maximumPartSize {
          #expect(plan.partSize % limits.sizeStep == 0)
          #expect((plan.partSize - limits.sizeStep) * Int64(limits.maximumPartCount) < total)
        }
      }
      for number in [1, max(1, plan.count - 1), plan.count] {
        let range = plan.range(ofPart: number)
        #expect(range.lowerBound == Int64(number - 1) * plan.partSize)
        if number < plan.count { #expect(range.count == plan.partSize) }
      }
      let last = plan.range(ofPart: plan.count)
      #expect(last.upperBound == total)
      #expect(last.count <= plan.partSize && (last.count > 0 || total == 0))
    }
  }

  @Test func aCheckpointSurvivesJSON() throws {
    let checkpoint = UploadCheckpoint(
      session: UploadSession(
        uploadID: "id-1", expiresAt: 1_700_000_000, attributes: ["host": "up.example"]),
      partSize: 4 << 20, source: SourceIdentity(size: 9 << 20, modifiedNanoseconds: 123),
      parts: [
        PartReceipt(number: 2, size: 4 << 20, etag: "b", checksum: "2"),
        PartReceipt(number: 1, size: 4 << 20, etag: "a"),
      ])
    #expect(checkpoint.parts.map(\.number) == [1, 2])
    #expect(checkpoint.bytesDone == 8 << 20)
    #expect(checkpoint.version == UploadCheckpoint.currentVersion)
    let data = try JSONEncoder().encode(checkpoint)
    #expect(try JSONDecoder().decode(UploadCheckpoint.self, from: data) == checkpoint)
  }
}
