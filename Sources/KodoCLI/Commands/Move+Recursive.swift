import ArgumentParser
import StorageCore

extension RemoteTransferOptions {
  /// `kodo mv -r` and `kodo cp -r`: every object of the folder SRC into the folder DEST, with
  /// `rm -r`'s folder rule and confirmation, reported as `type` (`moved` or `copied`).
  func runFolder(_ context: Context, verb: String, gerund: String, type: String) async throws {
    let provider = try context.provider()
    try checkRemote(verb: verb, provider: provider)
    let (bucket, given) = try BucketPath.split(arguments[0], context: context)
    let (destinationBucket, destination) = try BucketPath.split(arguments[1], context: context)
    try provider.validateBucketName(bucket)
    try provider.validateBucketName(destinationBucket)
    guard let writer = provider as? any ObjectWriting else {
      throw StorageError(.rejected, "this provider cannot \(verb) objects")
    }
    let folder = RemoteFolder(provider: provider, bucket: bucket, given: given)
    let transfer = try FolderTransfer(
      folder: folder, writer: writer, destinationBucket: destinationBucket,
      destination: destination, move: type == "moved", overwrite: force)
    let nothing = StorageError(.notFound, "nothing to \(verb): no object in \(folder.place.text)")
    if !dryRun && !yes {
      switch try await folder.confirm(
        verb: verb, gerund: gerund, suffix: " to " + transfer.destinationPlace)
      {
      case .agreed: break
      case .declined: return Diagnostics.note("nothing \(type)")
      case .empty: throw nothing
      }
    }
    let reporter = TransferReporter(
      json: context.options.json, dryRun: dryRun, verb: verb, type: type,
      holdRefusals: mayAskToReplace)
    let progress = Progress.forScan()
    defer { progress.clear() }
    let seen = try await transfer.run(
      dryRun: dryRun, listed: { progress.add($0) }, report: { try reporter.report($0) })
    progress.clear()
    if seen == 0 { throw nothing }
    try await replaceRefused(reporter, transfer: transfer)
    try reporter.finish(seen: seen, from: folder.place, to: transfer.destinationPlace)
  }

  /// Asks once about the objects the service refused as existing at the destination (held by
  /// `reporter`), and on a yes does them again with `--force`; declined, they are reported
  /// as refused (73).
  private func replaceRefused(_ reporter: TransferReporter, transfer: FolderTransfer)
    async throws
  {
    let refused = reporter.takeHeld()
    guard !refused.isEmpty else { return }
    let question: DisplayText =
      refused.count == 1
      ? "\(refused[0].request.destination) exists; replace?"
      : "\(refused.count) objects already exist under " + transfer.destinationPlace
        + "; replace them?"
    guard try Confirm.ask(question, answer: .yes, refusal: "replacing existing objects") else {
      for outcome in refused { try reporter.report(outcome) }
      return
    }
    var splitter = BatchSplitter<CopyRequest>(limit: transfer.writer.transferBatchLimit)
    func send(_ batch: [CopyRequest]) async throws {
      let outcomes: [TransferOutcome]
      do {
        outcomes = try await transfer.writer.transferBatch(batch, move: transfer.move)
      } catch {
        if error.kind == .cancelled { throw error }
        outcomes = batch.map { TransferOutcome(request: $0, error: error) }
      }
      for outcome in outcomes { try reporter.report(outcome) }
    }
    for outcome in refused {
      var request = outcome.request
      request.overwrite = true
      if let batch = splitter.add(request) { try await send(batch) }
    }
    if let batch = splitter.finish() { try await send(batch) }
  }
}

/// Reports each object of `mv -r`/`cp -r`: `{"type":"moved"|"copied",…}` lines with `--json`
/// (`would-move`/`would-copy` and `would move A to B` lines on a dry run), an error line per
/// failure, and a summary on stderr at the end; the exit status is the first failure's.
final class TransferReporter {
  let json: Bool
  let dryRun: Bool
  let verb: String
  let type: String
  private let output = OutputStream.standardOutput()
  private var done = 0
  private var existing = 0
  private var failed = 0
  private var firstFailure: Int32?
  /// Whether refusals of an existing destination are held for one question at the end
  /// (`takeHeld`) rather than reported as they come.
  private var holdRefusals: Bool
  private var held: [TransferOutcome] = []

  /// The most refusals held for the question; those beyond are reported as they come, so
  /// that memory stays bounded whatever the folder's size.
  static let heldLimit = 10_000

  init(json: Bool, dryRun: Bool, verb: String, type: String, holdRefusals: Bool = false) {
    self.json = json
    self.dryRun = dryRun
    self.verb = verb
    self.type = type
    self.holdRefusals = holdRefusals
  }

  /// The refusals held so far; from now on every outcome is reported as it comes.
  func takeHeld() -> [TransferOutcome] {
    holdRefusals = false
    defer { held = [] }
    return held
  }

  func report(_ outcome: TransferOutcome) throws {
    if holdRefusals, outcome.error?.kind == .exists, held.count < Self.heldLimit {
      held.append(outcome)
      return
    }
    if let error = outcome.error {
      try output.flush()
      if error.kind == .exists { existing += 1 } else { failed += 1 }
      let status = ErrorReporting.report(error, notes: [], json: json)
      if firstFailure == nil, status != 0 { firstFailure = status }
      return
    }
    done += 1
    // Named only when written: most runs write nothing per object.
    guard json || dryRun else { return }
    let from = outcome.request.source.bucket + "/" + outcome.request.source.key
    let to = outcome.request.destination.bucket + "/" + outcome.request.destination.key
    if json {
      var line = JSONLine()
      line.string("type", dryRun ? "would-" + verb : type)
      line.string("from", from)
      line.string("to", to)
      try output.write(line)
    } else if dryRun {
      try output.line(
        "would \(verb) " + DisplayText(escaping: from) + " to " + DisplayText(escaping: to))
    }
  }

  /// Writes the summary and throws the first failure's exit status.
  func finish(seen: Int, from: DisplayText, to: DisplayText) throws {
    try output.flush()
    var summary: DisplayText =
      "\(dryRun ? "would \(verb)" : type) \(done) of \(seen) \(seen == 1 ? "object" : "objects")"
    summary = summary + " from " + from + " to " + to
    if existing > 0 {
      summary = summary + "; \(existing) already at the destination (--force replaces them)"
    }
    if failed > 0 { summary = summary + "; \(failed) failed" }
    Diagnostics.note(summary)
    if let firstFailure { throw ExitCode(firstFailure) }
  }
}
