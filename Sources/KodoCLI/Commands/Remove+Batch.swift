import ArgumentParser
import StorageCore

/// Items (keys, copies) gathered into batches of at most `limit`, in the order given: what a
/// batch request sends while a listing streams, so that memory holds one batch.
struct BatchSplitter<Element> {
  let limit: Int
  private var pending: [Element] = []

  init(limit: Int) {
    self.limit = max(1, limit)
    pending.reserveCapacity(self.limit)
  }

  /// Adds `item`; answers a full batch when this item filled one.
  mutating func add(_ item: Element) -> [Element]? {
    pending.append(item)
    guard pending.count >= limit else { return nil }
    defer { pending.removeAll(keepingCapacity: true) }
    return pending
  }

  /// The last, partial batch, if any item is left.
  mutating func finish() -> [Element]? {
    guard !pending.isEmpty else { return nil }
    defer { pending.removeAll() }
    return pending
  }
}

/// Batch requests sent ahead of their reports: up to `depth` at once, each in a task of its own,
/// their outputs handed to the caller in the order the batches were started. The service works
/// on the next batches (and the listing goes on) while one is reported, and what is reported
/// keeps its order. Memory holds at most `depth` batches.
///
/// Cancelling the caller's task while it waits cancels every batch still running, and so does
/// a `deliver` that throws, or dropping the window. On a way out with batches running (a
/// listing that failed), `finish` reports them, so that the output tells what was done.
final class BatchWindow<Output: Sendable> {
  /// How many batches run at once unless told: two, so that the service works on one while
  /// the next is listed, built and sent. More gained no time against the emulator, whose
  /// writers then contend for the bucket (measured on `rm -r` and `mv -r`).
  static var defaultDepth: Int { 2 }

  let depth: Int
  private var running: [Task<Output, Never>] = []

  init(depth: Int = defaultDepth) {
    self.depth = max(1, depth)
  }

  deinit {
    for task in running { task.cancel() }
  }

  /// Starts `work` once fewer than `depth` batches are running, handing the outputs of the
  /// oldest ones to `deliver` to make room.
  func start(
    _ work: @escaping @Sendable () async -> Output, deliver: (Output) async throws -> Void
  ) async throws {
    while running.count >= depth { try await deliverOldest(deliver) }
    running.append(Task { await work() })
  }

  /// Waits for every batch still running, handing each output to `deliver` in order.
  func finish(deliver: (Output) async throws -> Void) async throws {
    while !running.isEmpty { try await deliverOldest(deliver) }
  }

  private func deliverOldest(_ deliver: (Output) async throws -> Void) async throws {
    let oldest = running.removeFirst()
    let all = running + [oldest]
    let output = await withTaskCancellationHandler {
      await oldest.value
    } onCancel: {
      for task in all { task.cancel() }
    }
    do {
      try await deliver(output)
    } catch {
      let rest = running
      running = []
      for task in rest { task.cancel() }
      for task in rest { _ = await task.value }
      throw error
    }
  }
}

/// What became of a key given to `DeleteBatches`.
enum DeleteEvent {
  /// Deleted (or, in a dry run, would be).
  case deleted(String)
  /// The service says it does not exist.
  case missing(String, StorageError)
  /// Not deleted.
  case failed(String, StorageError)
  /// The batch request failed as a whole: none of these keys was deleted.
  case batchFailed([String], StorageError)
}

/// The deleting of `rm`, also `kodo browse`'s `d`: keys sent in batches of the service's limit
/// while they are given (a listing streams), two batches at once (`BatchWindow`), each key's
/// fate told to `report` in the order given. With `statFirst`, keys are checked to exist before
/// a batch goes (OSS deletes a missing key "successfully"); a dry run sends nothing.
struct DeleteBatches {
  let writer: any ObjectWriting
  let bucket: String
  let provider: any StorageProvider
  let statFirst: Bool
  let dryRun: Bool
  private var splitter: BatchSplitter<String>
  private let window: BatchWindow<[DeleteEvent]>

  init(
    writer: any ObjectWriting, bucket: String, provider: any StorageProvider,
    statFirst: Bool = false, dryRun: Bool = false,
    depth: Int = BatchWindow<[DeleteEvent]>.defaultDepth
  ) {
    self.writer = writer
    self.bucket = bucket
    self.provider = provider
    self.statFirst = statFirst
    self.dryRun = dryRun
    splitter = BatchSplitter(limit: writer.batchDeleteLimit)
    window = BatchWindow(depth: depth)
  }

  /// Adds `key`, sending a batch when it filled one.
  mutating func add(_ key: String, report: (DeleteEvent) throws -> Void) async throws {
    if let batch = splitter.add(key) { try await send(batch, report: report) }
  }

  /// Sends what is left and reports every batch.
  mutating func finish(report: (DeleteEvent) throws -> Void) async throws {
    if let batch = splitter.finish() { try await send(batch, report: report) }
    try await settle(report: report)
  }

  /// Reports the batches still running, sending nothing more: on a way out (a listing that
  /// failed), so that what was deleted is told.
  func settle(report: (DeleteEvent) throws -> Void) async throws {
    try await window.finish { events in try Self.report(events, to: report) }
  }

  private func send(_ batch: [String], report: (DeleteEvent) throws -> Void) async throws {
    let (writer, provider, bucket) = (self.writer, self.provider, self.bucket)
    let (statFirst, dryRun) = (self.statFirst, self.dryRun)
    try await window.start {
      await Self.events(
        batch, writer: writer, provider: provider, bucket: bucket, statFirst: statFirst,
        dryRun: dryRun)
    } deliver: { events in
      try Self.report(events, to: report)
    }
  }

  /// Tells `report` each of `events`, in order: by index, as `for event in events` would copy
  /// each one.
  private static func report(_ events: [DeleteEvent], to report: (DeleteEvent) throws -> Void)
    rethrows
  {
    for index in events.indices { try report(events[index]) }
  }

  /// What became of each key of `batch`, in order.
  private static func events(
    _ batch: [String], writer: any ObjectWriting, provider: any StorageProvider, bucket: String,
    statFirst: Bool, dryRun: Bool
  ) async -> [DeleteEvent] {
    var events: [DeleteEvent] = []
    events.reserveCapacity(batch.count)
    var keys = batch
    if statFirst {
      keys = []
      for key in batch {
        do {
          _ = try await provider.stat(bucket: bucket, key: key)
          keys.append(key)
        } catch {
          events.append(error.kind == .notFound ? .missing(key, error) : .failed(key, error))
        }
      }
    }
    if dryRun {
      for key in keys { events.append(.deleted(key)) }
      return events
    }
    guard !keys.isEmpty else { return events }
    let outcomes: [DeleteOutcome]
    do {
      outcomes = try await writer.deleteBatch(bucket: bucket, keys: keys)
    } catch {
      // The request failed as a whole: every key of it failed, the next batches are tried.
      events.append(.batchFailed(keys, error))
      return events
    }
    for outcome in outcomes {
      guard let error = outcome.error else {
        events.append(.deleted(outcome.key))
        continue
      }
      events.append(
        error.kind == .notFound ? .missing(outcome.key, error) : .failed(outcome.key, error))
    }
    return events
  }
}

/// Deletes keys in batches (`DeleteBatches`) and reports each one: `{"type":"deleted",…}`
/// lines with `--json`, an error line per failure, and a summary on stderr at the end; the
/// exit status is the first failure's.
final class BatchDeleter {
  struct Options {
    var json: Bool
    var dryRun: Bool
    /// A missing key is not an error.
    var force: Bool
    /// Whether the service's batch delete says which keys did not exist (Kodo answers 612 for
    /// each; OSS deletes a missing key "successfully").
    var batchReportsMissing: Bool
  }

  let bucket: String
  let options: Options
  private var batches: DeleteBatches
  private let output = OutputStream.standardOutput()
  /// Keys given so far.
  private(set) var seen = 0
  private var deleted = 0
  private var missing = 0
  private var failed = 0
  private var firstFailure: Int32?

  /// `checkMissing`: keys must be checked to exist first when they were named by the user, on
  /// a service whose delete answers success for a missing key (OSS) unless `-f` makes a missing
  /// key no error, and every key of a dry run.
  init(
    writer: any ObjectWriting, bucket: String, options: Options, checkMissing: Bool,
    provider: any StorageProvider
  ) {
    self.bucket = bucket
    self.options = options
    batches = DeleteBatches(
      writer: writer, bucket: bucket, provider: provider,
      statFirst: checkMissing
        && (options.dryRun || !(options.batchReportsMissing || options.force)),
      dryRun: options.dryRun)
  }

  func add(_ key: String) async throws {
    seen += 1
    try await batches.add(key) { try handle($0) }
  }

  /// Reports the batches still running and sends nothing more: for a way out before `finish`
  /// (a listing that failed); the error that stopped the command is the one to throw.
  func settle() async {
    try? await batches.settle { try handle($0) }
    try? output.flush()
  }

  /// Sends what is left, writes the summary and throws the first failure's exit status.
  func finish() async throws {
    try await batches.finish { try handle($0) }
    try output.flush()
    var summary: DisplayText =
      options.dryRun
      ? "would delete \(deleted) of \(seen) \(seen == 1 ? "object" : "objects")"
      : "deleted \(deleted) of \(seen) \(seen == 1 ? "object" : "objects")"
    summary = summary + " from bucket " + DisplayText(quoting: bucket)
    if missing > 0 { summary = summary + "; \(missing) not found" }
    if failed > 0 { summary = summary + "; \(failed) failed" }
    Diagnostics.note(summary)
    if let firstFailure { throw ExitCode(firstFailure) }
  }

  private func handle(_ event: DeleteEvent) throws {
    switch event {
    case .deleted(let key): try report(deleted: key)
    case .missing(let key, let error):
      try output.flush()
      missing += 1
      if options.force { return }
      var said = error
      said.message =
        "no object \(DisplayText.quoted(key)) in bucket \(DisplayText.quoted(bucket))"
      record(ErrorReporting.report(said, notes: [], json: options.json))
    case .failed(_, let error):
      try output.flush()
      failed += 1
      record(ErrorReporting.report(error, notes: [], json: options.json))
    case .batchFailed(let keys, let error):
      try output.flush()
      failed += keys.count
      record(ErrorReporting.report(error, notes: [], json: options.json))
    }
  }

  private func record(_ status: Int32) {
    if firstFailure == nil, status != 0 { firstFailure = status }
  }

  private func report(deleted key: String) throws {
    deleted += 1
    if options.json {
      var line = JSONLine()
      line.string("type", options.dryRun ? "would-delete" : "deleted")
      line.string("key", key)
      try output.write(line)
    } else if options.dryRun {
      try output.line("would delete " + DisplayText(escaping: bucket + "/" + key))
    }
  }
}
