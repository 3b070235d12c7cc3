import KodoTestSupport
import StorageCore
import Synchronization
import Testing

@testable import KodoCLI

/// `PutSchedule`, the one rule `put -r`, `sync` and the browser's `u` run their uploads by:
/// small files `parallel` at once and never more, a file in parts alone, every outcome reported
/// once, nothing new started once cancelled. The uploads here are stand-ins that record who
/// runs with whom; each waits (polling, with a generous deadline) until as many run as could.
@Suite("put's schedule: how many uploads run at once")
struct PutScheduleTests {
  /// Who runs: the most at once, and who ran beside the file in parts.
  final class Gauge: Sendable {
    struct Counts {
      var running = 0
      var started = 0
      var most = 0
      /// How many times an upload starting made `company` run at once.
      var full = 0
      var bigRunning = false
      /// Uploads that started while the file in parts ran, or found others running beside it.
      var besideBig = 0
    }

    let counts = Mutex(Counts())
    let company: Int

    init(company: Int) { self.company = company }

    /// Starts an upload; returns how many times `company` had run together before it.
    func enter(big: Bool) -> Int {
      counts.withLock {
        let before = $0.full
        $0.running += 1
        $0.started += 1
        $0.most = max($0.most, $0.running)
        if $0.running >= company { $0.full += 1 }
        if $0.bigRunning || (big && $0.running > 1) { $0.besideBig += 1 }
        if big { $0.bigRunning = true }
        return before
      }
    }

    func leave(big: Bool) {
      counts.withLock {
        $0.running -= 1
        if big { $0.bigRunning = false }
      }
    }

    /// Waits until `company` uploads have run together since this one entered (`before` was
    /// the count then), or `total` have started (no more can join), or the task is cancelled;
    /// at most `Patience.bound`.
    func wait(since before: Int, total: Int) async {
      let deadline = Patience.deadline
      while ContinuousClock.now < deadline && !Task.isCancelled {
        let ready = counts.withLock { $0.full > before || $0.started >= total }
        if ready { return }
        try? await Task.sleep(for: .milliseconds(2))
      }
    }
  }

  static func items(_ sizes: [Int64]) -> [PutItem] {
    sizes.enumerated().map { index, size in
      .job(
        PutJob(
          source: "file-\(index)", location: ObjectLocation(bucket: "b", key: "k\(index)"),
          size: size))
    }
  }

  @Test func smallFilesRunParallelAtOnceNeverMoreAndAFileInPartsAlone() async throws {
    let settings = PutSettings(kind: KodoFactory(), overwrite: false, stateDirectory: nil)
    #expect(settings.parallel == 4)
    let big = settings.threshold + 1
    // 8 small files, one in parts, 8 more; a note between them.
    let sizes: [Int64] = Array(repeating: 10, count: 8) + [big] + Array(repeating: 10, count: 8)
    var items = Self.items(sizes)
    items.insert(.skipped("a link, not followed"), at: 3)
    let gauge = Gauge(company: settings.parallel)
    var reported: [String] = []
    var noted = 0
    var listedAfter = -1
    try await PutSchedule.run(
      items, settings: settings,
      start: { job, size in
        let isBig = (size ?? 0) > settings.threshold
        return {
          let before = gauge.enter(big: isBig)
          // A small one waits for three more beside it; the file in parts does not wait.
          if !isBig { await gauge.wait(since: before, total: sizes.count) }
          gauge.leave(big: isBig)
          return job.source
        }
      },
      note: { _ in noted += 1 },
      report: { reported.append($0) },
      listed: { listedAfter = reported.count })
    let counts = gauge.counts.withLock { $0 }
    #expect(counts.most == settings.parallel)
    #expect(counts.besideBig == 0)
    #expect(counts.started == sizes.count)
    #expect(reported.sorted() == (0..<sizes.count).map { "file-\($0)" }.sorted())
    #expect(noted == 1)
    // Every item seen before the last uploads were awaited.
    #expect(listedAfter >= 0 && listedAfter < sizes.count)
  }

  /// Cancelled after the first outcome: no upload starts after that, and every one that had
  /// started is awaited and reported.
  @Test func nothingStartsOnceCancelledAndWhatRunsIsReported() async throws {
    let settings = PutSettings(kind: KodoFactory(), overwrite: false, stateDirectory: nil)
    let sizes = [Int64](repeating: 10, count: 40)
    let gauge = Gauge(company: settings.parallel)
    let reported = Mutex<[String]>([])
    let startedAtCancel = Mutex<Int?>(nil)
    let task = Task {
      try await PutSchedule.run(
        Self.items(sizes), settings: settings,
        start: { job, _ in
          {
            let before = gauge.enter(big: false)
            await gauge.wait(since: before, total: sizes.count)
            gauge.leave(big: false)
            return job.source
          }
        },
        note: { _ in },
        report: { source in
          reported.withLock { $0.append(source) }
          if startedAtCancel.withLock({ $0 }) == nil {
            startedAtCancel.withLock { $0 = gauge.counts.withLock { $0.started } }
            withUnsafeCurrentTask { $0?.cancel() }
          }
        })
    }
    try await task.value
    let counts = gauge.counts.withLock { $0 }
    let atCancel = try #require(startedAtCancel.withLock { $0 })
    #expect(counts.started == atCancel)
    #expect(counts.started < sizes.count)
    #expect(reported.withLock { $0.count } == counts.started)
  }
}
