import Synchronization

/// The one transfer engine for multipart uploads, provider-neutral: it plans the parts, reads
/// them with `pread` to compute their digests (ahead of sending, several parts at once:
/// ``DigestsAhead``), sends each from the file, up to ``Options/parallel`` at once, retries a failed part, reports progress and checkpoints, resumes from a checkpoint
/// without sending again the parts the service still holds, starts afresh when the service forgot
/// the session, and completes the object. The provider supplies only the protocol
/// (``MultipartUploading``); the caller keeps the checkpoints (the core stores nothing).
///
/// Memory: a part is never whole in memory. The digests of a group of up to
/// ``Options/digestLanes`` parts are computed in one read through one area of a
/// ``PartReader/chunk`` (at most a part) per part of the group, fewer parts when that would pass
/// ``Options/parallel`` × the part size (two groups at once, each through its own area, when both
/// areas fit); the request sends the part's range of the file, read
/// with `pread` as libcurl asks for it (``RequestBody/file(descriptor:offset:length:)``).
/// ``Outcome/peakBufferedBytes`` says how many bytes of buffers the run held at once. A file that
/// changes between the two reads fails the part: the service checks the part against its digest.
///
/// Cancellation: cancelling the calling task stops every part (the transport aborts within
/// about a second) and the call throws `StorageError(.cancelled, …)`; the session is left to
/// resume from the last checkpoint, or for the caller to abort.
public struct MultipartUpload: Sendable {
  /// How an upload runs.
  public struct Options: Sendable {
    /// The part size wanted; the plan moves it into the service's limits (``PartPlan``).
    public var partSize: Int64
    /// The most parts sent at once (at least 1).
    public var parallel: Int
    /// The most parts whose digests are computed together, in one read (at least 1; fewer when
    /// their read area would pass `parallel` × the part size).
    public var digestLanes: Int
    /// How many rounds a part gets (each through the pipeline's own retries) before the upload
    /// fails (at least 1).
    public var partAttempts: Int
    /// The wait before a part's second round; the n-th waits n − 1 times as long.
    public var retryDelay: Duration
    /// How the engine waits (tests make it instant); throws when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Makes the read area of the given size (tests count them).
    var makeReadBuffer: @Sendable (Int) -> ReadBuffer = { ReadBuffer(capacity: $0) }
    /// Bytes read per part and round (tests make it small to have many lanes in small files).
    var readChunk = PartReader.chunk

    /// Options; the defaults are 8 MiB parts, 4 at once, digests of 16 parts at once, 3 rounds
    /// a part, 1 s between rounds.
    public init(
      partSize: Int64 = 8 << 20, parallel: Int = 4, digestLanes: Int = 16, partAttempts: Int = 3,
      retryDelay: Duration = .seconds(1),
      sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
      self.partSize = partSize
      self.parallel = max(1, parallel)
      self.digestLanes = max(1, digestLanes)
      self.partAttempts = max(1, partAttempts)
      self.retryDelay = retryDelay
      self.sleep = sleep
    }
  }

  /// The file uploaded: an open descriptor (read with `pread` only, so its offset is untouched)
  /// and the identity the caller read when it opened it.
  public struct Source: Sendable {
    /// The open file.
    public var descriptor: Int32
    /// Its size and modification time.
    public var identity: SourceIdentity

    /// A source from its parts.
    public init(descriptor: Int32, identity: SourceIdentity) {
      self.descriptor = descriptor
      self.identity = identity
    }
  }

  /// What an upload came to.
  public struct Outcome: Sendable, Equatable {
    /// The object made.
    public var object: UploadedObject
    /// The parts sent by this run.
    public var partsSent: Int
    /// The parts a checkpoint's session already held, not sent again.
    public var partsResumed: Int
    /// Whether the service forgot a session and the upload started afresh.
    public var restarted: Bool
    /// The bytes of the read buffers the run made (the most of the source in memory at once).
    public var peakBufferedBytes: Int64
  }

  /// The options.
  public let options: Options

  /// An engine with `options`.
  public init(options: Options = Options()) {
    self.options = options
  }

  /// Uploads `source` through `uploader`, resuming `checkpoint` when it is for the same source
  /// (its part size then wins over ``Options/partSize``) and the service still knows its session.
  ///
  /// `checkpoints` gets the new checkpoint after the session starts (or is resumed) and after
  /// every part, in order, from one task at a time; `events` gets ``TransferEvent``s, possibly
  /// from several threads at once.
  ///
  /// - Throws: `StorageError`: the first failure of a part after its rounds, of the session's
  ///   start or of completion; `.cancelled` when the task was cancelled; `.invalidInput` when the
  ///   source does not fit the service's part limits; `.localIO` when the file cannot be read or
  ///   ends early.
  public func run<Uploader: MultipartUploading>(
    _ source: Source, to uploader: Uploader, resuming checkpoint: UploadCheckpoint? = nil,
    checkpoints: @escaping @Sendable (UploadCheckpoint) -> Void = { _ in },
    events: @escaping @Sendable (TransferEvent) -> Void = { _ in }
  ) async throws(StorageError) -> Outcome {
    // A checkpoint of this source keeps the part size it was made with, so a changed default
    // does not throw its parts away.
    var preferred = options.partSize
    if let checkpoint, checkpoint.version == UploadCheckpoint.currentVersion,
      checkpoint.source == source.identity, checkpoint.partSize > 0
    {
      preferred = checkpoint.partSize
    }
    let plan = try PartPlan(
      totalSize: source.identity.size, preferredPartSize: preferred, limits: uploader.limits)
    events(.planned(totalBytes: plan.totalSize, partSize: plan.partSize, parts: plan.count))
    let run = Run(
      plan: plan, source: source, uploader: uploader, options: options, checkpoints: checkpoints,
      events: events)
    var start = try await run.begin(resuming: checkpoint)
    var restarted = start.restarted
    while true {
      do {
        let object = try await run.finish(start)
        return Outcome(
          object: object, partsSent: run.partsSent, partsResumed: start.done.count,
          restarted: restarted, peakBufferedBytes: run.gauge.peak)
      } catch  where !restarted && uploader.isForgotten(error) {
        restarted = true
        events(.sessionForgotten(uploadID: start.session.uploadID))
        start = try await run.fresh(restarted: true)
      }
    }
  }
}

/// One run of the engine: its plan, counters and callbacks.
private final class Run<Uploader: MultipartUploading>: Sendable {
  /// Where a run starts sending: a session and the parts it already holds.
  struct Start {
    var session: UploadSession
    var done: [Int: PartReceipt]
    var restarted: Bool
  }

  let plan: PartPlan
  let source: MultipartUpload.Source
  let uploader: Uploader
  let options: MultipartUpload.Options
  let checkpoints: @Sendable (UploadCheckpoint) -> Void
  let events: @Sendable (TransferEvent) -> Void
  let gauge = BufferGauge()
  /// The parts whose digests are read together, each one's bytes a round, and how many groups
  /// may be read at once.
  let lanes: Int
  let slice: Int
  let reads: Int
  let progress: ProgressCounter
  private let sent = Atomic<Int>(0)

  init(
    plan: PartPlan, source: MultipartUpload.Source, uploader: Uploader,
    options: MultipartUpload.Options, checkpoints: @escaping @Sendable (UploadCheckpoint) -> Void,
    events: @escaping @Sendable (TransferEvent) -> Void
  ) {
    self.plan = plan
    self.source = source
    self.uploader = uploader
    self.options = options
    self.checkpoints = checkpoints
    self.events = events
    progress = ProgressCounter(total: plan.totalSize, events: events)
    // The read area (lanes × slice) stays within the contract's `parallel × part size`.
    slice = Int(min(Int64(max(1, options.readChunk)), max(1, plan.partSize)))
    let (bound, overflow) = Int64(options.parallel).multipliedReportingOverflow(by: plan.partSize)
    let fit = overflow ? Int64(Int.max) : bound / Int64(slice)
    lanes = Int(max(1, min(Int64(options.digestLanes), fit)))
    // A second read (the group after the one parts wait for, on a thread of its own) when its
    // area fits too.
    reads = fit >= 2 * Int64(lanes) ? 2 : 1
  }

  /// Parts sent by this run.
  var partsSent: Int { sent.load(ordering: .relaxed) }

  /// The session to go on with: `checkpoint`'s when it fits and the service still knows it,
  /// with the parts both agree on; otherwise a new one.
  func begin(resuming checkpoint: UploadCheckpoint?) async throws(StorageError) -> Start {
    guard let checkpoint else { return try await fresh(restarted: false) }
    if let reason = unusableReason(checkpoint) {
      events(.checkpointIgnored(reason: reason))
      return try await fresh(restarted: false)
    }
    let listed: [PartReceipt]
    do {
      listed = try await uploader.listParts(checkpoint.session)
    } catch  where uploader.isForgotten(error) {
      events(.sessionForgotten(uploadID: checkpoint.session.uploadID))
      return try await fresh(restarted: true)
    }
    var held: [Int: PartReceipt] = [:]
    for part in listed where held[part.number] == nil { held[part.number] = part }
    var done: [Int: PartReceipt] = [:]
    for part in checkpoint.parts where plan.numbers.contains(part.number) {
      let size = Int64(plan.range(ofPart: part.number).count)
      guard part.size == size, let service = held[part.number], service.size == size,
        Self.sameTag(service.etag, part.etag)
      else { continue }
      done[part.number] = part
    }
    let parts = done.values.sorted { $0.number < $1.number }
    let bytes = parts.reduce(0) { $0 + $1.size }
    events(.resumed(checkpoint.session, partsDone: parts.count, bytesDone: bytes))
    progress.resume(bytes)
    checkpoints(
      UploadCheckpoint(
        session: checkpoint.session, partSize: plan.partSize, source: source.identity,
        parts: parts))
    return Start(session: checkpoint.session, done: done, restarted: false)
  }

  /// A new session, with nothing done.
  func fresh(restarted: Bool) async throws(StorageError) -> Start {
    progress.reset()
    let session = try await uploader.initiate()
    events(.started(session))
    checkpoints(
      UploadCheckpoint(session: session, partSize: plan.partSize, source: source.identity))
    return Start(session: session, done: [:], restarted: restarted)
  }

  /// Why `checkpoint` cannot be resumed, or `nil` when it can.
  private func unusableReason(_ checkpoint: UploadCheckpoint) -> String? {
    if checkpoint.version != UploadCheckpoint.currentVersion {
      return "it is of format version \(checkpoint.version)"
    }
    if checkpoint.source != source.identity {
      return "the source changed since (its size or modification time differs)"
    }
    if checkpoint.partSize != plan.partSize {
      return "its part size \(checkpoint.partSize) is not this upload's \(plan.partSize)"
    }
    return nil
  }

  /// Whether two part tags name the same part (OSS quotes them; a listing may not).
  private static func sameTag(_ lhs: String, _ rhs: String) -> Bool {
    func bare(_ tag: String) -> Substring {
      let text = Substring(tag)
      guard let opened = WireText.dropping(prefix: "\"", from: text),
        let inside = WireText.dropping(suffix: "\"", from: opened)
      else { return text }
      return inside
    }
    return WireText.same(bare(lhs), bare(rhs))
  }

  /// Sends the parts `start` lacks and completes the object.
  func finish(_ start: Start) async throws(StorageError) -> UploadedObject {
    let parts = try await sendParts(session: start.session, done: start.done)
    events(.completing(parts: parts.count))
    let object = try await uploader.complete(start.session, parts: parts)
    events(.completed(object))
    return object
  }

  /// Sends every part not in `done`, at most `parallel` at once; the receipts of all parts, in
  /// ascending order.
  private func sendParts(session: UploadSession, done: [Int: PartReceipt])
    async throws(StorageError) -> [PartReceipt]
  {
    var receipts = done.values.sorted { $0.number < $1.number }
    let parts = plan.numbers.filter { done[$0] == nil }
    let digests = DigestsAhead(
      parts: parts, of: plan, descriptor: source.descriptor, lanes: lanes,
      first: options.parallel, slice: slice, reads: reads,
      makeDigest: { [uploader] in uploader.makePartDigest() }, makeArea: options.makeReadBuffer,
      gauge: gauge)
    var failure: StorageError?
    do throws(StorageError) {
      try await PartScheduler.run(
        parts, parallel: options.parallel,
        work: { number in await self.sendPart(number, session: session, digests: digests) },
        finished: { _, receipt in
          let index = receipts.partitioningIndex { $0.number > receipt.number }
          receipts.insert(receipt, at: index)
          sent.add(1, ordering: .relaxed)
          events(.partDone(receipt))
          checkpoints(
            UploadCheckpoint(
              session: session, partSize: plan.partSize, source: source.identity, parts: receipts)
          )
        })
    } catch {
      failure = error
    }
    // No read goes on after the parts (nor uses the area once the upload is over).
    await digests.close()
    if let failure { throw failure }
    return receipts
  }

  /// Takes part `number`'s digest (read ahead), then sends the part from the file in up to
  /// `partAttempts` rounds.
  private func sendPart(
    _ number: Int, session: UploadSession, digests: DigestsAhead<Uploader.PartDigest>
  ) async -> Result<PartReceipt, StorageError> {
    do throws(StorageError) {
      if Task.isCancelled { throw StorageError(.cancelled, "the upload was cancelled") }
      events(.partStarted(number: number))
      let range = plan.range(ofPart: number)
      let size = Int64(range.count)
      let digest = try await digests.digest(ofPart: number).get()
      let body = RequestBody.file(
        descriptor: source.descriptor, offset: range.lowerBound, length: size)
      let receipt = try await PartScheduler.rounds(
        attempts: options.partAttempts, delay: options.retryDelay, sleep: options.sleep,
        isFinal: uploader.isForgotten,
        retrying: { events(.partRetrying(number: number, attempt: $0, error: $1)) },
        attempt: { () async throws(StorageError) -> PartReceipt in
          let counter = BodyProgress { [progress] _, delta in progress.move(delta) }
          do throws(StorageError) {
            var receipt = try await uploader.uploadPart(
              session, number: number, body: body.observed(by: counter),
              digest: digest)
            receipt.number = number
            receipt.size = size
            progress.finish(part: size, attemptBytes: counter.sent)
            return receipt
          } catch {
            progress.move(-counter.sent)
            throw error
          }
        })
      return .success(receipt)
    } catch {
      return .failure(error)
    }
  }
}

/// The bytes of the source held in memory, and the most at once.
final class BufferGauge: Sendable {
  private let state = Mutex((now: Int64(0), peak: Int64(0)))

  func hold(_ bytes: Int64) {
    state.withLock {
      $0.now += bytes
      $0.peak = max($0.peak, $0.now)
    }
  }

  func release(_ bytes: Int64) {
    state.withLock { $0.now -= bytes }
  }

  var peak: Int64 { state.withLock { $0.peak } }
}

/// Bytes done (parts done plus the current attempts of parts on the wire), reported as
/// ``TransferEvent/progress(bytesDone:totalBytes:)``.
final class ProgressCounter: Sendable {
  private let done = Mutex(Int64(0))
  private let total: Int64
  private let events: @Sendable (TransferEvent) -> Void

  init(total: Int64, events: @escaping @Sendable (TransferEvent) -> Void) {
    self.total = total
    self.events = events
  }

  /// `delta` bytes more (or fewer) on the wire.
  func move(_ delta: Int64) {
    guard delta != 0 else { return }
    report(
      done.withLock {
        $0 += delta
        return $0
      })
  }

  /// A part of `part` bytes is done; its attempt had counted `attemptBytes` of them.
  func finish(part: Int64, attemptBytes: Int64) {
    report(
      done.withLock {
        $0 += part - attemptBytes
        return $0
      })
  }

  /// Resumed parts of `bytes` bytes are done.
  func resume(_ bytes: Int64) {
    report(
      done.withLock {
        $0 = bytes
        return $0
      })
  }

  /// Nothing is done (a fresh session).
  func reset() {
    done.withLock { $0 = 0 }
  }

  private func report(_ bytes: Int64) {
    events(.progress(bytesDone: bytes, totalBytes: total))
  }
}

extension Array {
  /// The first index whose element satisfies `belongsAfter` (all after it do too), by bisection.
  fileprivate func partitioningIndex(where belongsAfter: (Element) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if belongsAfter(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
