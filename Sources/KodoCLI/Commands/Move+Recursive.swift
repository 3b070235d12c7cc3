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
      json: context.options.json, dryRun: dryRun, verb: verb, type: type)
    let progress = Progress.forScan()
    defer { progress.clear() }
    let seen = try await transfer.run(
      dryRun: dryRun, listed: { progress.add($0) }, report: { try reporter.report($0) })
    progress.clear()
    if seen == 0 { throw nothing }
    try reporter.finish(seen: seen, from: folder.place, to: transfer.destinationPlace)
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

  init(json: Bool, dryRun: Bool, verb: String, type: String) {
    self.json = json
    self.dryRun = dryRun
    self.verb = verb
    self.type = type
  }

  func report(_ outcome: TransferOutcome) throws {
    let from = outcome.request.source.bucket + "/" + outcome.request.source.key
    let to = outcome.request.destination.bucket + "/" + outcome.request.destination.key
    if let error = outcome.error {
      try output.flush()
      if error.kind == .exists { existing += 1 } else { failed += 1 }
      let status = ErrorReporting.report(error, notes: [], json: json)
      if firstFailure == nil, status != 0 { firstFailure = status }
      return
    }
    done += 1
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
