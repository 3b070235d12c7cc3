import Foundation
import KodoTestSupport
import PropertyBased
import Synchronization
import Testing

@testable import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the engine did with the digests of one upload: each laned update's lane count, single
/// updates, bytes hashed, digests made; and a gate that holds every laned update while shut.
final class LaneLog: Sendable {
  struct State {
    var lanedCalls: [Int] = []
    var singleCalls = 0
    var bytes = 0
    var made = 0
    var inside = false
    var gateOpen = true
  }

  let state = Mutex(State())

  var snapshot: State { state.withLock { $0 } }

  func open() { state.withLock { $0.gateOpen = true } }
}

/// A digest that records how it is fed, around the digest a service checks.
struct Laned<Inner: RunningDigest>: RunningDigest {
  var inner: Inner
  let log: LaneLog

  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    log.state.withLock {
      $0.singleCalls += 1
      $0.bytes += bytes.count
    }
    inner.update(bytes)
  }

  static func update(lanes digests: inout [Self], with chunks: [UnsafeRawBufferPointer]) {
    guard let log = digests.first?.log else { return }
    // Runs on the engine's read thread, never the cooperative pool: a blocking wait is fine.
    while !log.state.withLock({ $0.gateOpen }) { usleep(200) }
    log.state.withLock {
      $0.inside = true
      $0.lanedCalls.append(chunks.count)
      $0.bytes += chunks.reduce(0) { $0 + $1.count }
    }
    for (lane, chunk) in chunks.enumerated() { digests[lane].inner.update(chunk) }
    log.state.withLock { $0.inside = false }
  }

  var text: String { inner.text }
}

/// A multipart service whose part digest records how the engine fed it, in front of another
/// that checks each part against the digest of its bytes; `beforePart` runs as a part goes.
struct RecordingMultipart<Inner: MultipartUploading>: MultipartUploading {
  let inner: Inner
  let log: LaneLog
  var beforePart: @Sendable (Int) -> Void = { _ in }

  var limits: PartLimits { inner.limits }

  func makePartDigest() -> Laned<Inner.PartDigest> {
    log.state.withLock { $0.made += 1 }
    return Laned(inner: inner.makePartDigest(), log: log)
  }

  func initiate() async throws(StorageError) -> UploadSession { try await inner.initiate() }

  func uploadPart(
    _ session: UploadSession, number: Int, body: RequestBody, digest: Laned<Inner.PartDigest>
  ) async throws(StorageError) -> PartReceipt {
    beforePart(number)
    return try await inner.uploadPart(session, number: number, body: body, digest: digest.inner)
  }

  func complete(_ session: UploadSession, parts: [PartReceipt]) async throws(StorageError)
    -> UploadedObject
  { try await inner.complete(session, parts: parts) }

  func abort(_ session: UploadSession) async throws(StorageError) { try await inner.abort(session) }

  func listParts(_ session: UploadSession) async throws(StorageError) -> [PartReceipt] {
    try await inner.listParts(session)
  }

  func isForgotten(_ error: StorageError) -> Bool { inner.isForgotten(error) }
}

/// The engine hashes parts ahead of sending, several at once: digests equal to the sequential
/// ones, groups within the memory bound, failures alone, resumption and cancellation.
@Suite(.timeLimit(.minutes(10)))
struct MultipartDigestsAheadTests {
  typealias Engine = MultipartUploadTests

  static func engine(
    partSize: Int64 = Engine.partSize, parallel: Int, lanes: Int, chunk: Int = PartReader.chunk,
    attempts: Int = 3
  ) -> MultipartUpload {
    var options = MultipartUpload.Options(
      partSize: partSize, parallel: parallel, digestLanes: lanes, partAttempts: attempts,
      sleep: { _ in })
    options.readChunk = chunk
    return MultipartUpload(options: options)
  }

  /// The lanes the engine reads together: the wanted ones, fewer when a chunk per lane would pass
  /// `parallel × part size`, and no more than the parts.
  static func lanes(wanted: Int, parallel: Int, partSize: Int64, chunk: Int, parts: Int) -> Int {
    let slice = min(Int64(chunk), partSize)
    return max(1, min(wanted, Int(Int64(parallel) * partSize / slice), parts))
  }

  /// The sizes of the groups `parts` parts are read in: `parallel` parts first, then twice as
  /// many each time, up to `lanes`.
  static func groups(parts: Int, lanes: Int, parallel: Int) -> [Int] {
    var sizes: [Int] = []
    var size = min(parallel, lanes)
    var left = parts
    while left > 0 {
      sizes.append(min(size, left))
      left -= sizes[sizes.count - 1]
      size = min(lanes, size * 2)
    }
    return sizes
  }

  /// A temporary file holding `bytes`, open for reading and writing (tests shrink it).
  static func withWritableFile<R>(_ bytes: [UInt8], _ body: (Int32) async throws -> R)
    async throws -> R
  {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("kodo-ahead-\(UUID().uuidString)").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    let descriptor = open(path, O_RDWR)
    try #require(descriptor >= 0)
    defer {
      close(descriptor)
      unlink(path)
    }
    return try await body(descriptor)
  }

  @Test func partsAreHashedTogetherAndEachDigestIsTheSequentialOne() async {
    // Parts, part size, the last part's size, parallel, lanes and chunk, drawn from one array.
    await seededCheck(count: 60, input: Gen<Int>.value(in: 0...1_000_000).array(of: 6...6)) {
      draw in
      let count = 1 + draw[0] % 24
      let partSize = Int64(1000 + draw[1] % 5000)
      let last = 1 + draw[2] % Int(partSize)
      let parallel = 1 + draw[3] % 8
      let wanted = 1 + draw[4] % 16
      let chunk = 64 + draw[5] % 4000
      let size = (count - 1) * Int(partSize) + last
      let content = RequestBodyTests.sample(size, seed: UInt64(draw[0] + draw[5]))
      let log = LaneLog()
      let service = MemoryMultipart(limits: Engine.limits)
      let outcome = try await RequestBodyTests.withFile(content) { descriptor in
        try await Self.engine(partSize: partSize, parallel: parallel, lanes: wanted, chunk: chunk)
          .run(
            MultipartUpload.Source(
              descriptor: descriptor,
              identity: SourceIdentity(size: Int64(size), modifiedNanoseconds: 1)),
            to: RecordingMultipart(inner: service, log: log))
      }
      let lanes = Self.lanes(
        wanted: wanted, parallel: parallel, partSize: partSize, chunk: chunk, parts: count)
      let state = service.snapshot
      let record = log.snapshot
      let label =
        "\(count) parts of \(partSize) (last \(last)), parallel \(parallel), lanes "
        + "\(wanted) (\(lanes)), chunk \(chunk)"
      // The service checked every part against the sequential digest of its bytes.
      #expect(state.completed == content, "\(label)")
      #expect(state.sent.sorted() == Array(1...count), "\(label)")
      #expect(outcome.partsSent == count, "\(label)")
      #expect(record.made == count, "\(label)")
      #expect(record.bytes == size, "\(label)")
      #expect(record.singleCalls == 0, "\(label)")
      #expect(record.lanedCalls.allSatisfy { (1...lanes).contains($0) }, "\(label)")
      // Each group's first round feeds all its parts at once.
      let groups = Self.groups(parts: count, lanes: lanes, parallel: parallel)
      #expect(record.lanedCalls.max() == groups.max(), "\(label)")
      #expect(outcome.peakBufferedBytes <= Int64(parallel) * partSize, "\(label)")
      // One area, or two when two fit and there are groups to read at once.
      let area = Int64(lanes) * min(Int64(chunk), partSize)
      let areas = outcome.peakBufferedBytes / area
      #expect(outcome.peakBufferedBytes % area == 0, "\(label)")
      #expect(areas == 1 || (areas == 2 && 2 * area <= Int64(parallel) * partSize), "\(label)")
    }
  }

  @Test func sixteenLanesByDefaultWithinParallelTimesPartSize() async throws {
    let partSize = Int64(4 * PartReader.chunk)
    // Groups of `parallel`, twice and four times as many parts reach 16 lanes by the 28th part.
    let content = RequestBodyTests.sample(28 * Int(partSize) + 7, seed: 3)
    let limits = PartLimits(
      minimumPartSize: 1000, maximumPartSize: 1 << 30, maximumPartCount: 10_000)
    for (parallel, lanes) in [(4, 16), (2, 8), (1, 4)] {
      let log = LaneLog()
      let service = MemoryMultipart(limits: limits)
      let outcome = try await RequestBodyTests.withFile(content) { descriptor in
        try await MultipartUpload(
          options: MultipartUpload.Options(partSize: partSize, parallel: parallel, sleep: { _ in })
        ).run(
          MultipartUpload.Source(
            descriptor: descriptor,
            identity: SourceIdentity(size: Int64(content.count), modifiedNanoseconds: 1)),
          to: RecordingMultipart(inner: service, log: log))
      }
      #expect(service.snapshot.completed == content)
      #expect(log.snapshot.lanedCalls.max() == lanes, "parallel \(parallel)")
      #expect(outcome.peakBufferedBytes == Int64(lanes * PartReader.chunk))
    }
  }

  @Test func aFileThatShrinksMidUploadFailsThePartThatEndsEarly() async throws {
    // 11 parts of 64,000 bytes in groups of 1, 2, 4 and 4: while part 1 is sent the file is cut
    // inside part 10, whose group (8 to 11) is read only once part 4 is asked for.
    let cut: Int64 = 9 * Engine.partSize + 1000
    try await Self.withWritableFile(Engine.content) { descriptor in
      let service = MemoryMultipart(limits: Engine.limits)
      var recording = RecordingMultipart(inner: service, log: LaneLog())
      recording.beforePart = { number in
        if number == 1 { #expect(ftruncate(descriptor, off_t(cut)) == 0) }
      }
      let error = await #expect(throws: StorageError.self) {
        try await Self.engine(parallel: 1, lanes: 4).run(
          MultipartUpload.Source(descriptor: descriptor, identity: Engine.identity),
          to: recording)
      }
      #expect(error?.kind == .localIO)
      #expect(
        error?.message
          == "the file being uploaded ended at byte \(cut), before the \(10 * Engine.partSize) "
          + "bytes it had; it changed during the upload")
      // Parts 8 and 9, read with part 10, went on alone.
      #expect(service.snapshot.sent == Array(1...9))
      #expect(service.snapshot.completions == 0)
    }
  }

  @Test func aResumedUploadHashesOnlyThePartsNotDone() async throws {
    try await Engine.withSource { source in
      let service = MemoryMultipart(limits: Engine.limits)
      service.state.withLock { $0.failures[7] = [StorageError(.rejected, "killed")] }
      let first = Reports()
      await #expect(throws: StorageError.self) {
        try await Self.engine(parallel: 1, lanes: 1).run(
          source, to: RecordingMultipart(inner: service, log: LaneLog()),
          checkpoints: first.checkpoint)
      }
      let checkpoint = try #require(first.checkpoints.last)
      try #require(checkpoint.parts.map(\.number) == Array(1...6))

      let log = LaneLog()
      let outcome = try await Self.engine(parallel: 2, lanes: 16).run(
        source, to: RecordingMultipart(inner: service, log: log), resuming: checkpoint)
      #expect(service.snapshot.completed == Engine.content)
      #expect(outcome.partsResumed == 6 && outcome.partsSent == 5)
      // Parts 7 to 11 only: 4 full parts and the last of 10,001 bytes, two at a time (parallel 2).
      #expect(log.snapshot.made == 5)
      #expect(log.snapshot.bytes == 4 * Int(Engine.partSize) + 10_001)
      #expect(log.snapshot.lanedCalls.max() == 2)
    }
  }

  @Test func aFailedUploadHashesAtMostOneGroupAhead() async throws {
    try await Engine.withSource { source in
      let service = MemoryMultipart(limits: Engine.limits)
      service.state.withLock { $0.failures[1] = [StorageError(.rejected, "no")] }
      let log = LaneLog()
      let error = await #expect(throws: StorageError.self) {
        try await Self.engine(parallel: 1, lanes: 2, chunk: 1000).run(
          source, to: RecordingMultipart(inner: service, log: log))
      }
      #expect(error?.message == "no")
      // The group of part 1, and the next one of parts 2 and 3: not the 11.
      #expect(log.snapshot.made == 3)
      #expect(log.snapshot.bytes <= 3 * Int(Engine.partSize))
    }
  }

  @Test func cancellingWhileAGroupIsHashedEndsTheUploadAfterTheRead() async throws {
    try await Engine.withSource { source in
      let service = MemoryMultipart(limits: Engine.limits)
      let log = LaneLog()
      log.state.withLock { $0.gateOpen = false }
      let engine = Self.engine(parallel: 2, lanes: 4, chunk: 1000)
      let task = Task {
        try await engine.run(source, to: RecordingMultipart(inner: service, log: log))
      }
      // The first group's read (parts 1 and 2, for the two senders) waits at its first round.
      await waitUntil { log.snapshot.made >= 2 }
      task.cancel()
      log.open()
      let result = await task.result
      guard case .failure(let error as StorageError) = result else {
        Issue.record("the upload was not stopped: \(result)")
        return
      }
      #expect(error.kind == .cancelled)
      #expect(service.snapshot.sent.isEmpty)
      // The run returned only once the read had ended.
      #expect(!log.snapshot.inside)
    }
  }

  @Test func aWaitingPartIsCancelledAtOnceAndCloseStopsTheRead() async throws {
    try await Engine.withSource { source in
      let log = LaneLog()
      log.state.withLock { $0.gateOpen = false }
      let plan = try PartPlan(
        totalSize: Engine.identity.size, preferredPartSize: Engine.partSize,
        limits: Engine.limits)
      let gauge = BufferGauge()
      let digests = DigestsAhead(
        parts: Array(plan.numbers), of: plan, descriptor: source.descriptor, lanes: 4, first: 4,
        slice: 1000, reads: 1,
        makeDigest: {
          log.state.withLock { $0.made += 1 }
          return Laned(inner: MemoryMultipart.Sum(), log: log)
        },
        makeArea: { ReadBuffer(capacity: $0) }, gauge: gauge)
      let waiting = Task { await digests.digest(ofPart: 1) }
      await waitUntil { log.snapshot.made == 4 }
      // The part stops waiting while its group's read is held at its first round.
      waiting.cancel()
      guard case .failure(let error) = await waiting.value else {
        Issue.record("a cancelled part got its digest")
        return
      }
      #expect(error.kind == .cancelled)
      #expect(log.snapshot.lanedCalls.isEmpty)
      let closing = Task { await digests.close() }
      await waitUntil { digests.isStopped }
      log.open()
      await closing.value
      // The held round ends; none follows it (64 rounds make a part), and no read of the next
      // group started.
      #expect(log.snapshot.lanedCalls == [4])
      #expect(log.snapshot.made == 4)
      #expect(!log.snapshot.inside)
      #expect(gauge.peak == 4000)
      // Nothing is read once closed: a part asked for then is cancelled.
      guard case .failure(let late) = await digests.digest(ofPart: 2) else {
        Issue.record("a part got a digest after close")
        return
      }
      #expect(late.kind == .cancelled)
    }
  }
}
