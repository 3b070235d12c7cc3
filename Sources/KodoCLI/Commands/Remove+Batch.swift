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
/// while they are given (a listing streams), each key's fate told to `report`. With
/// `statFirst`, keys are checked to exist before a batch goes (OSS deletes a missing key
/// "successfully"); a dry run sends nothing.
struct DeleteBatches {
  let writer: any ObjectWriting
  let bucket: String
  let provider: any StorageProvider
  let statFirst: Bool
  let dryRun: Bool
  private var splitter: BatchSplitter<String>

  init(
    writer: any ObjectWriting, bucket: String, provider: any StorageProvider,
    statFirst: Bool = false, dryRun: Bool = false
  ) {
    self.writer = writer
    self.bucket = bucket
    self.provider = provider
    self.statFirst = statFirst
    self.dryRun = dryRun
    splitter = BatchSplitter(limit: writer.batchDeleteLimit)
  }

  /// Adds `key`, sending a batch when it filled one.
  mutating func add(_ key: String, report: (DeleteEvent) throws -> Void) async throws {
    if let batch = splitter.add(key) { try await send(batch, report: report) }
  }

  /// Sends what is left.
  mutating func finish(report: (DeleteEvent) throws -> Void) async throws {
    if let batch = splitter.finish() { try await send(batch, report: report) }
  }

  private func send(_ batch: [String], report: (DeleteEvent) throws -> Void) async throws {
    var keys = batch
    if statFirst {
      keys = []
      for key in batch {
        do {
          _ = try await provider.stat(bucket: bucket, key: key)
          keys.append(key)
        } catch {
          try report(error.kind == .notFound ? .missing(key, error) : .failed(key, error))
        }
      }
    }
    if dryRun {
      for key in keys { try report(.deleted(key)) }
      return
    }
    guard !keys.isEmpty else { return }
    let outcomes: [DeleteOutcome]
    do {
      outcomes = try await writer.deleteBatch(bucket: bucket, keys: keys)
    } catch {
      // The request failed as a whole: every key of it failed, the next batches are tried.
      return try report(.batchFailed(keys, error))
    }
    for outcome in outcomes {
      guard let error = outcome.error else {
        try report(.deleted(outcome.key))
        continue
      }
      try report(
        error.kind == .notFound ? .missing(outcome.key, error) : .failed(outcome.key, error))
    }
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
