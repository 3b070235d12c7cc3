import Foundation
import KodoTestSupport
import Synchronization
import Testing

@testable import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A multipart service in memory: sessions, parts, failures on demand, and counters of what the
/// engine did to it. Its part digest is a byte sum, checked against each part's bytes.
final class MemoryMultipart: MultipartUploading {
  struct Sum: RunningDigest, Equatable {
    var value: UInt64 = 0
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
      for byte in bytes { value = value &* 31 &+ UInt64(byte) }
    }
    var text: String { String(value) }
  }

  struct State {
    var sessions: [String: [Int: [UInt8]]] = [:]
    var nextID = 0
    var initiated = 0
    var sent: [Int] = []
    var inFlight = 0
    var maxInFlight = 0
    /// Whether `barrier` uploads were in flight at once (after which none waits).
    var barrierOpen = false
    /// Errors a part's next uploads throw, in order, before it succeeds.
    var failures: [Int: [StorageError]] = [:]
    /// Forget the session once this many parts were accepted.
    var forgetAfter: Int?
    var accepted = 0
    var completed: [UInt8]?
    var completions = 0
    /// Parts whose body was bytes in memory rather than the file's range.
    var partsFromMemory = 0
  }

  let limits: PartLimits
  let state = Mutex(State())
  /// The first `barrier` part uploads wait until that many are in flight at once.
  let barrier: Int
  /// Part uploads wait until their task is cancelled.
  let holdUntilCancelled: Bool

  init(limits: PartLimits, barrier: Int = 0, holdUntilCancelled: Bool = false) {
    self.limits = limits
    self.barrier = barrier
    self.holdUntilCancelled = holdUntilCancelled
  }

  static let forgotten = StorageError(
    .notFound, "no such upload", status: 404, serviceCode: "NoSuchUpload")

  func makePartDigest() -> Sum { Sum() }

  func initiate() async throws(StorageError) -> UploadSession {
    state.withLock {
      $0.initiated += 1
      $0.nextID += 1
      let id = "u\($0.nextID)"
      $0.sessions[id] = [:]
      return UploadSession(uploadID: id, attributes: ["host": "memory"])
    }
  }

  func uploadPart(_ session: UploadSession, number: Int, body: RequestBody, digest: Sum)
    async throws(StorageError) -> PartReceipt
  {
    let (failure, order) = state.withLock { state -> (StorageError?, Int) in
      state.inFlight += 1
      state.maxInFlight = max(state.maxInFlight, state.inFlight)
      if state.inFlight >= barrier { state.barrierOpen = true }
      state.sent.append(number)
      if var queue = state.failures[number], !queue.isEmpty {
        let error = queue.removeFirst()
        state.failures[number] = queue
        return (error, state.sent.count)
      }
      return (nil, state.sent.count)
    }
    defer { state.withLock { $0.inFlight -= 1 } }
    if order <= barrier {
      await waitUntil { self.state.withLock { $0.barrierOpen } }
    }
    if holdUntilCancelled {
      await waitUntil { Task.isCancelled }
      throw StorageError(.cancelled, "cancelled")
    }
    if let failure { throw failure }
    guard let bytes = body.sentBytes() else {
      throw StorageError(.invalidInput, "the part's body cannot be read")
    }
    if body.inMemoryBytes != nil { state.withLock { $0.partsFromMemory += 1 } }
    // Sent as a transport would: the observers see the bytes.
    for observer in body.observers { observer.bodyRestarted() }
    bytes.withUnsafeBytes { all in for observer in body.observers { observer.bodyRead(all) } }
    var check = Sum()
    bytes.withUnsafeBytes { check.update($0) }
    guard check == digest else { throw StorageError(.protocolError, "digest mismatch") }
    return try state.withLock { state throws(StorageError) -> PartReceipt in
      guard state.sessions[session.uploadID] != nil else { throw Self.forgotten }
      state.sessions[session.uploadID]?[number] = bytes
      state.accepted += 1
      if let limit = state.forgetAfter, state.accepted >= limit {
        state.sessions[session.uploadID] = nil
        state.forgetAfter = nil
      }
      return PartReceipt(
        number: number, size: Int64(bytes.count), etag: "\"e\(number)-\(check.value)\"",
        checksum: check.text)
    }
  }

  func complete(_ session: UploadSession, parts: [PartReceipt]) async throws(StorageError)
    -> UploadedObject
  {
    try state.withLock { state throws(StorageError) -> UploadedObject in
      guard let held = state.sessions[session.uploadID] else { throw Self.forgotten }
      guard parts.map(\.number) == parts.map(\.number).sorted() else {
        throw StorageError(.rejected, "parts out of order")
      }
      var object: [UInt8] = []
      for part in parts {
        guard let bytes = held[part.number] else { throw StorageError(.rejected, "no part") }
        object += bytes
      }
      state.completed = object
      state.completions += 1
      state.sessions[session.uploadID] = nil
      return UploadedObject(key: "k", size: Int64(object.count), etag: "obj")
    }
  }

  func abort(_ session: UploadSession) async throws(StorageError) {
    state.withLock { _ = $0.sessions.removeValue(forKey: session.uploadID) }
  }

  func listParts(_ session: UploadSession) async throws(StorageError) -> [PartReceipt] {
    try state.withLock { state throws(StorageError) -> [PartReceipt] in
      guard let held = state.sessions[session.uploadID] else { throw Self.forgotten }
      return held.keys.sorted().compactMap { number -> PartReceipt? in
        guard let bytes = held[number] else { return nil }
        var sum = Sum()
        bytes.withUnsafeBytes { sum.update($0) }
        // Listings quote tags differently: the engine must not care.
        return PartReceipt(
          number: number, size: Int64(bytes.count), etag: "e\(number)-\(sum.value)")
      }
    }
  }

  func isForgotten(_ error: StorageError) -> Bool { error.serviceCode == "NoSuchUpload" }

  var snapshot: State { state.withLock { $0 } }
}

/// Polls `condition` until it holds or a generous deadline passes.
/// Polls `condition` until it holds. The bound is generous (5 minutes) because the engine's
/// tasks share the cooperative pool with every other suite: on a loaded 2-core machine they have
/// been seen to start more than 30 s late. A passing run returns as soon as the condition holds.
func waitUntil(
  _ condition: @Sendable () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) async {
  let deadline = Patience.deadline
  while !condition() {
    guard ContinuousClock.now < deadline else {
      Issue.record("the condition did not hold within 5 minutes", sourceLocation: sourceLocation)
      return
    }
    try? await Task.sleep(for: .milliseconds(1))
  }
}

/// What an engine run reported.
final class Reports: Sendable {
  private let state = Mutex((checkpoints: [UploadCheckpoint](), events: [TransferEvent]()))

  func checkpoint(_ checkpoint: UploadCheckpoint) {
    state.withLock { $0.checkpoints.append(checkpoint) }
  }
  func event(_ event: TransferEvent) { state.withLock { $0.events.append(event) } }

  var checkpoints: [UploadCheckpoint] { state.withLock { $0.checkpoints } }
  var events: [TransferEvent] { state.withLock { $0.events } }
  var progress: [Int64] {
    events.compactMap { if case .progress(let done, _) = $0 { done } else { nil } }
  }
}

/// The transfer engine against the in-memory service: parts, concurrency, retries,
/// cancellation, resumption, restarts and memory.
@Suite(.timeLimit(.minutes(10)))
struct MultipartUploadTests {
  static let limits = PartLimits(
    minimumPartSize: 1000, maximumPartSize: 1 << 20, maximumPartCount: 10_000, sizeStep: 1000)
  static let partSize: Int64 = 64_000
  /// 10 full parts and a short one.
  static let content = RequestBodyTests.sample(650_001, seed: 11)
  static let identity = SourceIdentity(size: Int64(content.count), modifiedNanoseconds: 42)

  static func engine(parallel: Int = 3, attempts: Int = 3) -> MultipartUpload {
    MultipartUpload(
      options: MultipartUpload.Options(
        partSize: partSize, parallel: parallel, partAttempts: attempts, sleep: { _ in }))
  }

  static func withSource<R>(_ body: (MultipartUpload.Source) async throws -> R) async throws -> R {
    try await RequestBodyTests.withFile(content) { descriptor in
      try await body(MultipartUpload.Source(descriptor: descriptor, identity: identity))
    }
  }

  @Test func everyPartGoesOnceAtMostParallelAtATime() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits, barrier: 3)
      let reports = Reports()
      let outcome = try await Self.engine(parallel: 3).run(
        source, to: service, checkpoints: reports.checkpoint, events: reports.event)
      let state = service.snapshot
      #expect(state.completed == Self.content)
      #expect(state.sent.sorted() == Array(1...11))
      #expect(state.initiated == 1 && state.completions == 1)
      #expect(state.maxInFlight == 3)
      #expect(outcome.partsSent == 11 && outcome.partsResumed == 0 && !outcome.restarted)
      #expect(outcome.object.size == Int64(Self.content.count))
      // Memory: never more than `parallel` read buffers, no part in memory.
      #expect(outcome.peakBufferedBytes >= Self.partSize)
      #expect(outcome.peakBufferedBytes <= 3 * Self.partSize)
      #expect(state.partsFromMemory == 0)
      // A checkpoint when the session starts and after each part, the last with every part.
      let checkpoints = reports.checkpoints
      #expect(checkpoints.count == 12)
      #expect(checkpoints.map(\.parts.count) == Array(0...11))
      #expect(checkpoints.last?.parts.map(\.number) == Array(1...11))
      #expect(checkpoints.last?.bytesDone == Int64(Self.content.count))
      let events = reports.events
      #expect(
        events.first == .planned(totalBytes: Int64(Self.content.count), partSize: 64_000, parts: 11)
      )
      #expect(events.last == .completed(outcome.object))
      #expect(reports.progress.last == Int64(Self.content.count))
      #expect(reports.progress.allSatisfy { $0 >= 0 && $0 <= Int64(Self.content.count) })
    }
  }

  @Test func eventsCanBeReadAsAStream() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits)
      let (stream, send, finish) = TransferEvent.stream(limit: 100_000)
      let reports = Reports()
      _ = try await Self.engine().run(
        source, to: service,
        events: { event in
          reports.event(event)
          send(event)
        })
      finish()
      var received: [TransferEvent] = []
      for await event in stream { received.append(event) }
      // Parts report from several threads at once, so only the count and the ends are in order.
      #expect(received.count == reports.events.count)
      #expect(received.count > 11)
      #expect(received.first == reports.events.first)
      #expect(received.last == reports.events.last)
      let done = received.compactMap { event -> Int? in
        if case .partDone(let receipt) = event { receipt.number } else { nil }
      }
      #expect(done.sorted() == Array(1...11))
    }
  }

  @Test func aFailedPartIsSentAgain() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits)
      service.state.withLock {
        $0.failures[4] = [StorageError(.temporary, "busy"), StorageError(.unavailable, "down")]
      }
      let reports = Reports()
      let outcome = try await Self.engine().run(source, to: service, events: reports.event)
      #expect(service.snapshot.completed == Self.content)
      #expect(service.snapshot.sent.filter { $0 == 4 }.count == 3)
      #expect(outcome.partsSent == 11)
      let retries = reports.events.compactMap { event -> Int? in
        if case .partRetrying(4, let attempt, _) = event { attempt } else { nil }
      }
      #expect(retries == [2, 3])
      #expect(reports.progress.last == Int64(Self.content.count))
    }
  }

  @Test func aPartThatKeepsFailingOrFailsForGoodStopsTheUpload() async throws {
    try await Self.withSource { source in
      let busy = MemoryMultipart(limits: Self.limits)
      busy.state.withLock {
        $0.failures[2] = Array(repeating: StorageError(.temporary, "busy"), count: 3)
      }
      let error = await #expect(throws: StorageError.self) {
        try await Self.engine(attempts: 3).run(source, to: busy)
      }
      #expect(error?.message == "busy")
      #expect(busy.snapshot.completions == 0)

      let refused = MemoryMultipart(limits: Self.limits)
      refused.state.withLock { $0.failures[2] = [StorageError(.rejected, "no")] }
      let final = await #expect(throws: StorageError.self) {
        try await Self.engine(attempts: 3).run(source, to: refused)
      }
      #expect(final?.kind == .rejected)
      #expect(refused.snapshot.sent.filter { $0 == 2 }.count == 1)
      #expect(refused.snapshot.completions == 0)
    }
  }

  @Test func aResumedUploadSendsOnlyThePartsNotDone() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits)
      service.state.withLock { $0.failures[7] = [StorageError(.rejected, "killed")] }
      let first = Reports()
      await #expect(throws: StorageError.self) {
        try await Self.engine(parallel: 1).run(source, to: service, checkpoints: first.checkpoint)
      }
      let checkpoint = try #require(first.checkpoints.last)
      #expect(checkpoint.parts.map(\.number) == Array(1...6))
      let sentBefore = service.snapshot.sent.count

      // Another part size by default now: the checkpoint's wins.
      let second = Reports()
      let outcome = try await MultipartUpload(
        options: MultipartUpload.Options(partSize: 32_000, parallel: 3, sleep: { _ in })
      ).run(
        source, to: service, resuming: checkpoint, checkpoints: second.checkpoint,
        events: second.event)
      let state = service.snapshot
      #expect(state.completed == Self.content)
      #expect(state.initiated == 1)
      #expect(Array(state.sent[sentBefore...]).sorted() == Array(7...11))
      #expect(outcome.partsResumed == 6 && outcome.partsSent == 5)
      #expect(
        second.events.contains(
          .resumed(checkpoint.session, partsDone: 6, bytesDone: 6 * Self.partSize)))
      #expect(second.checkpoints.first?.parts.count == 6)
      #expect(second.progress.first == 6 * Self.partSize)
    }
  }

  @Test func aPartTheServiceDoesNotHoldAsRecordedIsSentAgain() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits)
      service.state.withLock { $0.failures[5] = [StorageError(.rejected, "killed")] }
      let first = Reports()
      await #expect(throws: StorageError.self) {
        try await Self.engine(parallel: 1).run(source, to: service, checkpoints: first.checkpoint)
      }
      var checkpoint = try #require(first.checkpoints.last)
      // Parts 1 to 4 were sent before part 5 failed (a cancelled run holds fewer: no trap).
      try #require(checkpoint.parts.map(\.number) == Array(1...4), "\(checkpoint.parts)")
      checkpoint.parts[1].etag = "\"something else\""
      let sentBefore = service.snapshot.sent.count
      _ = try await Self.engine().run(source, to: service, resuming: checkpoint)
      #expect(service.snapshot.completed == Self.content)
      #expect(Array(service.snapshot.sent[sentBefore...]).sorted() == [2] + Array(5...11))
    }
  }

  @Test func aForgottenSessionStartsAfresh() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits)
      service.state.withLock { $0.failures[3] = [StorageError(.rejected, "killed")] }
      let first = Reports()
      await #expect(throws: StorageError.self) {
        try await Self.engine(parallel: 1).run(source, to: service, checkpoints: first.checkpoint)
      }
      let checkpoint = try #require(first.checkpoints.last)
      // The service forgets the session (it expired).
      try await service.abort(checkpoint.session)
      let second = Reports()
      let outcome = try await Self.engine().run(
        source, to: service, resuming: checkpoint, events: second.event)
      #expect(service.snapshot.completed == Self.content)
      #expect(service.snapshot.initiated == 2)
      #expect(outcome.restarted && outcome.partsSent == 11 && outcome.partsResumed == 0)
      #expect(second.events.contains(.sessionForgotten(uploadID: checkpoint.session.uploadID)))
    }
  }

  @Test func aSessionForgottenDuringTheUploadStartsAfreshOnce() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits)
      service.state.withLock { $0.forgetAfter = 4 }
      let reports = Reports()
      let outcome = try await Self.engine(parallel: 1).run(
        source, to: service, events: reports.event)
      #expect(service.snapshot.completed == Self.content)
      #expect(service.snapshot.initiated == 2)
      #expect(outcome.restarted)
      #expect(reports.events.contains(.sessionForgotten(uploadID: "u1")))
    }
  }

  @Test func aCheckpointOfAnotherSourceIsIgnored() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits)
      let stale = UploadCheckpoint(
        session: UploadSession(uploadID: "old"), partSize: Self.partSize,
        source: SourceIdentity(size: Self.identity.size, modifiedNanoseconds: 41),
        parts: [PartReceipt(number: 1, size: Self.partSize, etag: "x")])
      let reports = Reports()
      let outcome = try await Self.engine().run(
        source, to: service, resuming: stale, events: reports.event)
      #expect(outcome.partsSent == 11 && outcome.partsResumed == 0)
      #expect(
        reports.events.contains {
          if case .checkpointIgnored = $0 { true } else { false }
        })
      #expect(service.snapshot.completed == Self.content)
    }
  }

  @Test func cancellingStopsEveryPart() async throws {
    try await Self.withSource { source in
      let service = MemoryMultipart(limits: Self.limits, holdUntilCancelled: true)
      let engine = Self.engine(parallel: 2)
      let task = Task { try await engine.run(source, to: service) }
      await waitUntil { service.snapshot.inFlight == 2 }
      task.cancel()
      let result = await task.result
      guard case .failure(let error as StorageError) = result else {
        Issue.record("the upload was not stopped: \(result)")
        return
      }
      #expect(error.kind == .cancelled)
      #expect(service.snapshot.completions == 0)
      #expect(service.snapshot.sent.count == 2)
    }
  }

  @Test func memoryStaysWithinParallelTimesPartSize() async throws {
    try await Self.withSource { source in
      for parallel in [1, 2, 5] {
        let service = MemoryMultipart(limits: Self.limits, barrier: parallel)
        let outcome = try await Self.engine(parallel: parallel).run(source, to: service)
        #expect(service.snapshot.completed == Self.content)
        #expect(service.snapshot.maxInFlight == parallel)
        #expect(outcome.peakBufferedBytes <= Int64(parallel) * Self.partSize)
        #expect(outcome.peakBufferedBytes >= Self.partSize)
      }
    }
  }

  /// Counts the read buffers an engine makes.
  final class BufferCount: Sendable {
    let made = Atomic<Int>(0)
  }

  @Test func oneReadAreaARunAndPartsAreSentFromTheFile() async throws {
    try await Self.withSource { source in
      for parallel in [1, 2, 5] {
        let count = BufferCount()
        var options = MultipartUpload.Options(
          partSize: Self.partSize, parallel: parallel, sleep: { _ in })
        options.makeReadBuffer = { capacity in
          count.made.add(1, ordering: .relaxed)
          return ReadBuffer(capacity: capacity)
        }
        let service = MemoryMultipart(limits: Self.limits, barrier: parallel)
        let outcome = try await MultipartUpload(options: options).run(source, to: service)
        let state = service.snapshot
        #expect(state.completed == Self.content)
        #expect(state.sent.count == 11)
        // 11 parts read through one area: a part's size (under a chunk) for each of `parallel`
        // lanes, the most that stays within `parallel × part size`.
        #expect(count.made.load(ordering: .relaxed) == 1, "parallel \(parallel)")
        #expect(outcome.peakBufferedBytes == Int64(parallel) * Self.partSize)
        #expect(state.partsFromMemory == 0)
      }
    }
  }

  @Test func aLaneOfTheReadAreaIsAChunkAtMostWhateverThePartSize() async throws {
    let content = RequestBodyTests.sample(3 * PartReader.chunk + 10, seed: 5)
    try await RequestBodyTests.withFile(content) { descriptor in
      let count = BufferCount()
      var options = MultipartUpload.Options(
        partSize: Int64(2 * PartReader.chunk), parallel: 2, sleep: { _ in })
      options.makeReadBuffer = { capacity in
        count.made.add(1, ordering: .relaxed)
        // Two parts, two lanes of a chunk each.
        #expect(capacity == 2 * PartReader.chunk)
        return ReadBuffer(capacity: capacity)
      }
      let limits = PartLimits(
        minimumPartSize: 1000, maximumPartSize: 1 << 30, maximumPartCount: 10_000)
      let service = MemoryMultipart(limits: limits)
      let outcome = try await MultipartUpload(options: options).run(
        MultipartUpload.Source(
          descriptor: descriptor,
          identity: SourceIdentity(size: Int64(content.count), modifiedNanoseconds: 1)),
        to: service)
      #expect(service.snapshot.completed == content)
      #expect(outcome.peakBufferedBytes == Int64(2 * PartReader.chunk))
      #expect(count.made.load(ordering: .relaxed) == 1)
    }
  }
}
