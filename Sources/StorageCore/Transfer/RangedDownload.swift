import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What identifies the object a ranged download reads, so that a checkpoint is only used for the
/// same object: its size, and its tag or modification time when the service gives them.
public struct ObjectIdentity: Sendable, Equatable, Codable {
  /// The size in bytes.
  public var size: Int64
  /// The service's tag (Kodo `hash`, OSS `ETag`).
  public var etag: String?
  /// The modification time, in nanoseconds since 1970.
  public var modifiedNanoseconds: Int64?

  /// An identity from its parts.
  public init(size: Int64, etag: String? = nil, modifiedNanoseconds: Int64? = nil) {
    self.size = size
    self.etag = etag
    self.modifiedNanoseconds = modifiedNanoseconds
  }
}

/// How far a ranged download got: the ranges whose bytes are in the destination.
public struct DownloadCheckpoint: Sendable, Equatable, Codable {
  /// The format this build writes; a checkpoint of another version is not used.
  public static let currentVersion = 1

  /// The format's version.
  public var version: Int
  /// The object downloaded.
  public var object: ObjectIdentity
  /// The range size the download was planned with.
  public var rangeSize: Int64
  /// The numbers (from 1) of the ranges written, ascending.
  public var done: [Int]

  /// A checkpoint from its parts, at the current version; `done` is sorted.
  public init(object: ObjectIdentity, rangeSize: Int64, done: [Int] = []) {
    version = Self.currentVersion
    self.object = object
    self.rangeSize = rangeSize
    self.done = done.sorted()
  }
}

/// The transfer engine's download side: one object fetched as byte ranges, at most
/// ``Options/parallel`` at once, each written at its offset of the destination with `pwrite` (so
/// they may arrive in any order), each retried, with progress, cancellation and checkpoints after
/// every range; resuming skips the ranges a checkpoint of the same object says are written.
///
/// The provider supplies `fetch`: the bytes of one range (a `Range` request through its
/// pipeline), which must be exactly the range's length. Memory: at most `parallel × range size`
/// bytes in hand. Integrity of the whole file is the caller's to check (the ranges arrive out of
/// order, so no running digest of the file is kept here).
public struct RangedDownload: Sendable {
  /// How a download runs.
  public struct Options: Sendable {
    /// The size of every range but the last (at least 1).
    public var rangeSize: Int64
    /// The most ranges fetched at once (at least 1).
    public var parallel: Int
    /// How many rounds a range gets before the download fails (at least 1).
    public var rangeAttempts: Int
    /// The wait before a range's second round; the n-th waits n − 1 times as long.
    public var retryDelay: Duration
    /// How the engine waits (tests make it instant); throws when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Options; the defaults are 8 MiB ranges, 4 at once, 3 rounds a range, 1 s between rounds.
    public init(
      rangeSize: Int64 = 8 << 20, parallel: Int = 4, rangeAttempts: Int = 3,
      retryDelay: Duration = .seconds(1),
      sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
      self.rangeSize = max(1, rangeSize)
      self.parallel = max(1, parallel)
      self.rangeAttempts = max(1, rangeAttempts)
      self.retryDelay = retryDelay
      self.sleep = sleep
    }
  }

  /// What a download came to.
  public struct Outcome: Sendable, Equatable {
    /// The ranges fetched by this run.
    public var rangesFetched: Int
    /// The ranges a checkpoint said were written, not fetched again.
    public var rangesResumed: Int
    /// The most bytes held in memory at once.
    public var peakBufferedBytes: Int64
  }

  /// The options.
  public let options: Options

  /// An engine with `options`.
  public init(options: Options = Options()) {
    self.options = options
  }

  /// Fetches `object` into `destination` (an open, writable file; written with `pwrite` only),
  /// resuming `checkpoint` when it is for the same object and range size.
  ///
  /// `checkpoints` gets the new checkpoint after every range, from one task at a time; `events`
  /// gets `.planned`, `.checkpointIgnored`, `.partStarted`, `.partRetrying`, `.rangeDone` and
  /// `.progress`, possibly from several threads at once.
  ///
  /// - Throws: `StorageError`: the first failure of a range after its rounds; `.protocolError`
  ///   when `fetch` gives another number of bytes than the range has; `.localIO` when the
  ///   destination cannot be written; `.cancelled` when the task was cancelled.
  public func run(
    _ object: ObjectIdentity, into destination: Int32,
    resuming checkpoint: DownloadCheckpoint? = nil,
    fetch: @escaping @Sendable (Range<Int64>) async throws(StorageError) -> [UInt8],
    checkpoints: @escaping @Sendable (DownloadCheckpoint) -> Void = { _ in },
    events: @escaping @Sendable (TransferEvent) -> Void = { _ in }
  ) async throws(StorageError) -> Outcome {
    let gauge = BufferGauge()
    let options = options
    let outcome = try await schedule(
      object, resuming: checkpoint, checkpoints: checkpoints, events: events
    ) { number, range async throws(StorageError) -> Int64 in
      let bytes = try await Self.rounds(options, number: number, events: events) {
        () async throws(StorageError) -> [UInt8] in
        let bytes = try await fetch(range)
        guard Int64(bytes.count) == Int64(range.count) else {
          throw StorageError(
            .protocolError,
            "the service sent \(bytes.count) bytes for the \(range.count) bytes from offset "
              + "\(range.lowerBound)")
        }
        return bytes
      }
      gauge.hold(Int64(bytes.count))
      defer { gauge.release(Int64(bytes.count)) }
      try await RangeWriter.write(bytes, to: destination, at: range.lowerBound)
      return Int64(bytes.count)
    }
    return Outcome(
      rangesFetched: outcome.fetched, rangesResumed: outcome.resumed, peakBufferedBytes: gauge.peak)
  }

  /// Fetches `object` into the regular file open at `destination`, each range written in place
  /// by `fetchInto`, which gets a descriptor of its own on the same file (opened again, so the
  /// ranges' offsets are independent) positioned at the range's start, and must leave it at the
  /// range's end. Nothing is held in memory here: the provider streams each range to the file.
  /// Checkpoints, events and errors as the other ``run(_:into:resuming:fetch:checkpoints:events:)``
  /// (`peakBufferedBytes` is 0).
  ///
  /// - Throws: also `.localIO` when the file cannot be opened again, and `.protocolError` when
  ///   a range did not end where it should.
  public func run(
    _ object: ObjectIdentity, inPlace destination: Int32,
    resuming checkpoint: DownloadCheckpoint? = nil,
    fetchInto: @escaping @Sendable (Range<Int64>, Int32) async throws(StorageError) -> Void,
    checkpoints: @escaping @Sendable (DownloadCheckpoint) -> Void = { _ in },
    events: @escaping @Sendable (TransferEvent) -> Void = { _ in }
  ) async throws(StorageError) -> Outcome {
    let options = options
    let outcome = try await schedule(
      object, resuming: checkpoint, checkpoints: checkpoints, events: events
    ) { number, range async throws(StorageError) -> Int64 in
      try await Self.rounds(options, number: number, events: events) {
        () async throws(StorageError) -> Int64 in
        let own = open("/proc/self/fd/\(destination)", O_WRONLY | O_CLOEXEC)
        guard own >= 0 else {
          throw StorageError(.localIO, "cannot open the download again: " + errnoText(errno))
        }
        defer { _ = close(own) }
        guard lseek(own, off_t(range.lowerBound), SEEK_SET) == off_t(range.lowerBound) else {
          throw StorageError(.localIO, "cannot position the download: " + errnoText(errno))
        }
        try await fetchInto(range, own)
        let end = Int64(lseek(own, 0, SEEK_CUR))
        guard end == range.upperBound else {
          throw StorageError(
            .protocolError,
            "the service sent \(end - range.lowerBound) bytes for the \(range.count) bytes "
              + "from offset \(range.lowerBound)")
        }
        return Int64(range.count)
      }
    }
    return Outcome(
      rangesFetched: outcome.fetched, rangesResumed: outcome.resumed, peakBufferedBytes: 0)
  }

  /// One range's `attempt` in up to ``Options/rangeAttempts`` rounds, each retry told.
  private static func rounds<Value>(
    _ options: Options, number: Int, events: @Sendable (TransferEvent) -> Void,
    attempt: () async throws(StorageError) -> Value
  ) async throws(StorageError) -> Value {
    try await PartScheduler.rounds(
      attempts: options.rangeAttempts, delay: options.retryDelay, sleep: options.sleep,
      isFinal: { _ in false },
      retrying: { events(.partRetrying(number: number, attempt: $0, error: $1)) },
      attempt: attempt)
  }

  /// Plans `object`'s ranges, skips those `checkpoint` says are written, and runs `place` for
  /// the others, at most ``Options/parallel`` at once, with progress and checkpoints.
  private func schedule(
    _ object: ObjectIdentity, resuming checkpoint: DownloadCheckpoint?,
    checkpoints: @escaping @Sendable (DownloadCheckpoint) -> Void,
    events: @escaping @Sendable (TransferEvent) -> Void,
    place: @escaping @Sendable (Int, Range<Int64>) async throws(StorageError) -> Int64
  ) async throws(StorageError) -> (fetched: Int, resumed: Int) {
    let plan = try PartPlan(
      totalSize: object.size, preferredPartSize: options.rangeSize,
      limits: PartLimits(
        minimumPartSize: 1, maximumPartSize: options.rangeSize, maximumPartCount: Int.max))
    events(.planned(totalBytes: plan.totalSize, partSize: plan.partSize, parts: plan.count))
    var done = Set<Int>()
    if let checkpoint {
      if checkpoint.version != DownloadCheckpoint.currentVersion || checkpoint.object != object
        || checkpoint.rangeSize != plan.partSize
      {
        events(.checkpointIgnored(reason: "it is for another object, version or range size"))
      } else {
        done = Set(checkpoint.done.filter { plan.numbers.contains($0) })
      }
    }
    let resumed = done.count
    let progress = ProgressCounter(total: plan.totalSize, events: events)
    progress.resume(done.reduce(0) { $0 + Int64(plan.range(ofPart: $1).count) })
    let fetched = Atomic<Int>(0)
    // An empty object has one empty range, and nothing to fetch.
    let pending = object.size == 0 ? [] : plan.numbers.filter { !done.contains($0) }
    try await PartScheduler.run(
      pending, parallel: options.parallel,
      work: { number in
        do throws(StorageError) {
          events(.partStarted(number: number))
          return .success(try await place(number, plan.range(ofPart: number)))
        } catch {
          return .failure(error)
        }
      },
      finished: { number, size in
        done.insert(number)
        fetched.add(1, ordering: .relaxed)
        progress.finish(part: size, attemptBytes: 0)
        events(.rangeDone(number: number, bytes: size))
        checkpoints(
          DownloadCheckpoint(object: object, rangeSize: plan.partSize, done: Array(done)))
      })
    return (fetched.load(ordering: .relaxed), resumed)
  }
}

/// Writes a range's bytes at its offset with `pwrite`, on a thread of its own: never on the Swift
/// cooperative pool.
enum RangeWriter {
  static func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int64)
    async throws(StorageError)
  {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<StorageError?, Never>) in
      DispatchQueue(label: "kodo.transfer.write").async {
        continuation.resume(returning: writeBlocking(bytes, to: descriptor, at: offset))
      }
    }
    if let result { throw result }
  }

  private static func writeBlocking(_ bytes: [UInt8], to descriptor: Int32, at offset: Int64)
    -> StorageError?
  {
    bytes.withUnsafeBytes { all -> StorageError? in
      PositionalFile.write(descriptor, all, at: offset).map {
        StorageError(.localIO, "cannot write the download: " + errnoText($0))
      }
    }
  }
}
