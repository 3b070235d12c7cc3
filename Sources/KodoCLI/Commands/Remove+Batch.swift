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

/// Deletes keys in batches and reports each one: `{"type":"deleted",…}` lines with `--json`,
/// an error line per failure, and a summary on stderr at the end; the exit status is the first
/// failure's.
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

  let writer: any ObjectWriting
  let bucket: String
  let options: Options
  /// Whether keys must be checked to exist first: keys the user named, on a service whose
  /// delete answers success for a missing key (OSS) unless `-f` makes a missing key no error,
  /// and every key of a dry run.
  let statFirst: Bool
  let provider: any StorageProvider
  private var splitter: BatchSplitter<String>
  private let output = OutputStream.standardOutput()
  /// Keys given so far.
  private(set) var seen = 0
  private var deleted = 0
  private var missing = 0
  private var failed = 0
  private var firstFailure: Int32?

  init(
    writer: any ObjectWriting, bucket: String, options: Options, checkMissing: Bool,
    provider: any StorageProvider
  ) {
    self.writer = writer
    self.bucket = bucket
    self.options = options
    self.provider = provider
    statFirst = checkMissing && (options.dryRun || !(options.batchReportsMissing || options.force))
    splitter = BatchSplitter(limit: writer.batchDeleteLimit)
  }

  func add(_ key: String) async throws {
    seen += 1
    if let batch = splitter.add(key) { try await send(batch) }
  }

  /// Sends what is left, writes the summary and throws the first failure's exit status.
  func finish() async throws {
    if let batch = splitter.finish() { try await send(batch) }
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

  private func send(_ batch: [String]) async throws {
    var keys = batch
    if statFirst { keys = try await existing(batch) }
    if options.dryRun {
      for key in keys { try report(deleted: key) }
      return
    }
    guard !keys.isEmpty else { return }
    let outcomes: [DeleteOutcome]
    do {
      outcomes = try await writer.deleteBatch(bucket: bucket, keys: keys)
    } catch {
      // The request failed as a whole: every key of it failed, the next batches are tried.
      try output.flush()
      failed += keys.count
      record(ErrorReporting.report(error, notes: [], json: options.json))
      return
    }
    for outcome in outcomes {
      guard let error = outcome.error else {
        try report(deleted: outcome.key)
        continue
      }
      try missingOrFailed(outcome.key, error)
    }
  }

  /// The keys of `batch` that exist; the others are reported missing.
  private func existing(_ batch: [String]) async throws -> [String] {
    var kept: [String] = []
    for key in batch {
      do {
        _ = try await provider.stat(bucket: bucket, key: key)
        kept.append(key)
      } catch {
        try missingOrFailed(key, error)
      }
    }
    return kept
  }

  private func missingOrFailed(_ key: String, _ error: StorageError) throws {
    try output.flush()
    if error.kind == .notFound {
      missing += 1
      if options.force { return }
      var said = error
      said.message =
        "no object \(DisplayText.quoted(key)) in bucket \(DisplayText.quoted(bucket))"
      record(ErrorReporting.report(said, notes: [], json: options.json))
      return
    }
    failed += 1
    record(ErrorReporting.report(error, notes: [], json: options.json))
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
