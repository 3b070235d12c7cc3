import Foundation
import Synchronization
import Testing

@testable import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The download side of the transfer engine: ranges fetched in parallel and written at their
/// offsets, retries, resumption from a checkpoint.
@Suite(.timeLimit(.minutes(10)))
struct RangedDownloadTests {
  static let content = RequestBodyTests.sample(300_007, seed: 5)
  static let object = ObjectIdentity(size: Int64(content.count), etag: "tag")

  /// A new empty file open for writing; closed and removed when `body` ends.
  static func withDestination<R>(_ body: (Int32, String) async throws -> R) async throws -> R {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("kodo-ranges-\(UUID().uuidString)").path
    let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
    try #require(descriptor >= 0)
    defer {
      close(descriptor)
      unlink(path)
    }
    return try await body(descriptor, path)
  }

  /// Serves ranges of `content`, counting calls and concurrency, failing on demand.
  final class Source: Sendable {
    struct State {
      var fetched: [Int64] = []
      var inFlight = 0
      var maxInFlight = 0
      var failures: [Int64: [StorageError]] = [:]
      var short: Set<Int64> = []
    }
    let state = Mutex(State())

    func fetch(_ range: Range<Int64>) async throws(StorageError) -> [UInt8] {
      let failure = state.withLock { state -> StorageError? in
        state.inFlight += 1
        state.maxInFlight = max(state.maxInFlight, state.inFlight)
        state.fetched.append(range.lowerBound)
        if var queue = state.failures[range.lowerBound], !queue.isEmpty {
          let error = queue.removeFirst()
          state.failures[range.lowerBound] = queue
          return error
        }
        return nil
      }
      await Task.yield()
      defer { state.withLock { $0.inFlight -= 1 } }
      if let failure { throw failure }
      let bytes = Array(RangedDownloadTests.content[Int(range.lowerBound)..<Int(range.upperBound)])
      return state.withLock { $0.short.contains(range.lowerBound) }
        ? Array(bytes.dropLast()) : bytes
    }

    var snapshot: State { state.withLock { $0 } }
  }

  static func engine(parallel: Int = 3) -> RangedDownload {
    RangedDownload(
      options: RangedDownload.Options(rangeSize: 32_000, parallel: parallel, sleep: { _ in }))
  }

  @Test func everyRangeLandsAtItsOffset() async throws {
    try await Self.withDestination { descriptor, path in
      let source = Source()
      source.state.withLock { $0.failures[64_000] = [StorageError(.temporary, "busy")] }
      let reports = Reports()
      let saved = Mutex<[DownloadCheckpoint]>([])
      let outcome = try await Self.engine().run(
        Self.object, into: descriptor,
        fetch: { range throws(StorageError) in try await source.fetch(range) },
        checkpoints: { checkpoint in saved.withLock { $0.append(checkpoint) } },
        events: reports.event)
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Self.content))
      #expect(outcome.rangesFetched == 10 && outcome.rangesResumed == 0)
      #expect(outcome.peakBufferedBytes > 0 && outcome.peakBufferedBytes <= 3 * 32_000)
      let state = source.snapshot
      #expect(state.maxInFlight <= 3)
      #expect(state.fetched.filter { $0 == 64_000 }.count == 2)
      #expect(Set(state.fetched).count == 10)
      #expect(saved.withLock { $0.last?.done } == Array(1...10))
      #expect(reports.progress.last == Int64(Self.content.count))
      #expect(
        reports.events.contains(
          .partRetrying(number: 3, attempt: 2, error: StorageError(.temporary, "busy"))))
    }
  }

  @Test func aShortRangeFailsTheDownload() async throws {
    try await Self.withDestination { descriptor, _ in
      let source = Source()
      source.state.withLock { $0.short = [96_000] }
      let error = await #expect(throws: StorageError.self) {
        try await Self.engine().run(
          Self.object, into: descriptor,
          fetch: { range throws(StorageError) in try await source.fetch(range) })
      }
      #expect(error?.kind == .protocolError)
      #expect(source.snapshot.fetched.filter { $0 == 96_000 }.count == 1)
    }
  }

  @Test func aResumedDownloadFetchesOnlyTheRangesNotWritten() async throws {
    try await Self.withDestination { descriptor, path in
      // A first run wrote ranges 1 to 3 and then stopped.
      let head = Array(Self.content[0..<96_000])
      try await RangeWriter.write(head, to: descriptor, at: 0)
      let checkpoint = DownloadCheckpoint(object: Self.object, rangeSize: 32_000, done: [3, 1, 2])
      let source = Source()
      let outcome = try await Self.engine().run(
        Self.object, into: descriptor, resuming: checkpoint,
        fetch: { range throws(StorageError) in try await source.fetch(range) })
      #expect(outcome.rangesResumed == 3 && outcome.rangesFetched == 7)
      #expect(
        source.snapshot.fetched.sorted()
          == stride(from: 96_000, to: 300_007, by: 32_000).map { Int64($0) })
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Self.content))

      // A checkpoint of another version of the object is not trusted.
      let other = DownloadCheckpoint(
        object: ObjectIdentity(size: Self.object.size, etag: "old"), rangeSize: 32_000,
        done: Array(1...10))
      let again = Source()
      let reports = Reports()
      let fresh = try await Self.engine().run(
        Self.object, into: descriptor, resuming: other,
        fetch: { range throws(StorageError) in try await again.fetch(range) }, events: reports.event
      )
      #expect(fresh.rangesFetched == 10 && fresh.rangesResumed == 0)
      #expect(reports.events.contains { if case .checkpointIgnored = $0 { true } else { false } })
    }
  }

  @Test func anEmptyObjectFetchesNothing() async throws {
    try await Self.withDestination { descriptor, _ in
      let source = Source()
      let outcome = try await Self.engine().run(
        ObjectIdentity(size: 0), into: descriptor,
        fetch: { range throws(StorageError) in try await source.fetch(range) })
      #expect(outcome.rangesFetched == 0)
      #expect(source.snapshot.fetched.isEmpty)
    }
  }
}
