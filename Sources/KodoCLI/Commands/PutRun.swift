import ArgumentParser
import StorageCore
import Synchronization

/// `put`'s options, resolved and checked once.
struct PutSettings: Sendable {
  var kind: ProviderKind
  var overwrite: Bool
  var skipExisting: Bool
  var skipSame: Bool
  var threshold: Int64
  var partSize: Int64
  var parallel: Int
  var contentType: String?
  var metadata: [MetadataEntry]
  var storageClass: StorageClass?
  var resume: Bool
  var checkpoints: UploadCheckpoints?

  /// Below this size, a file goes in one request (the contract's default: 8 MiB).
  static let defaultThreshold: Int64 = 8 << 20

  /// A part's size unless --part-size: 4 MiB on Kodo (its blocks), 8 MiB on OSS.
  static func defaultPartSize(_ kind: ProviderKind) -> Int64 { kind.defaultPartSize }

  /// `put`'s defaults, with `--force` when `overwrite` (the browser's `u`, which has no flags).
  init(kind: ProviderKind, overwrite: Bool, stateDirectory: String?) {
    self.kind = kind
    self.overwrite = overwrite
    skipExisting = false
    skipSame = false
    threshold = Self.defaultThreshold
    partSize = Self.defaultPartSize(kind)
    parallel = 4
    contentType = nil
    metadata = []
    storageClass = nil
    resume = true
    checkpoints = stateDirectory.map { UploadCheckpoints(directory: $0) }
  }

  init(command: Put, kind: ProviderKind, stateDirectory: String?) throws(StorageError) {
    self.kind = kind
    overwrite = command.force
    skipExisting = command.skipExisting
    skipSame = command.skipSame
    threshold =
      try command.multipartThreshold.map { text throws(StorageError) in
        try SizeText.bytes(text, option: "--multipart-threshold")
      } ?? Self.defaultThreshold
    // On Kodo, 4 MiB parts make the service's hash the qetag (its blocks are 4 MiB).
    partSize =
      try command.partSize.map { text throws(StorageError) in
        try SizeText.bytes(text, option: "--part-size")
      } ?? Self.defaultPartSize(kind)
    guard partSize > 0 else {
      throw StorageError(.invalidInput, "--part-size must be at least 1 byte")
    }
    parallel = command.parallel ?? 4
    contentType = command.mime
    metadata = try command.meta.map { text throws(StorageError) in
      guard let entry = MetadataEntry(assignment: text) else {
        throw StorageError(
          .invalidInput, "invalid --meta \(DisplayText.quoted(text)): give NAME=VALUE")
      }
      return entry
    }
    storageClass = command.storageClass.map { StorageClass(name: $0, serviceName: $0) }
    resume = !command.noResume
    checkpoints = stateDirectory.map { UploadCheckpoints(directory: $0) }
  }
}

/// What became of one source.
enum PutOutcome: Sendable {
  case uploaded(key: String, size: Int64, result: WriteResult)
  case skipped(key: String, size: Int64)
  /// Skipped as `sync` listed it, with no work (`PutUpload.keptAsListed`): listed and done at
  /// once.
  case kept(key: String, size: Int64)
}

/// One `put` run: each job in turn, every failure reported, a summary at the end.
struct PutRun: Sendable {
  let writer: any ObjectWriting
  let settings: PutSettings
  let json: Bool
  /// Open files without following a symbolic link (`put -r` without `--follow-symlinks`).
  var noFollow = false
  /// The command to run again after an interruption (`put`, `sync`).
  var command = "put"

  /// What is done so far; read by the resume note, which a signal prints from another thread.
  private final class Tally: Sendable {
    let uploaded = Atomic(0)
    let skipped = Atomic(0)
    let failed = Atomic(0)
    let firstFailure = Mutex<Int32?>(nil)
  }

  func run(_ items: some Sequence<PutItem>) async throws {
    let output = OutputStream.standardOutput()
    let progress = TransferProgress.forTransfer(json: json, output: output)
    defer { progress.clear() }
    let tally = Tally()
    let command = self.command
    // Made when printed (not for every file): the counts as they are then.
    @Sendable func hint() -> DisplayText {
      "interrupted: \(tally.uploaded.load(ordering: .relaxed)) uploaded, \(tally.skipped.load(ordering: .relaxed)) skipped; run the same \(command) again to finish (an upload in parts resumes)"
    }
    Signals.setResumeHint(making: hint)
    defer { Signals.setResumeHint(nil) }
    func report(_ result: Result<PutOutcome, StorageError>) throws {
      switch result {
      case .success(.uploaded(let key, let size, let result)):
        tally.uploaded.add(1, ordering: .relaxed)
        progress.finished(bytes: size, transferred: true)
        try write("uploaded", key, size, result, to: output)
      case .success(.skipped(let key, let size)):
        tally.skipped.add(1, ordering: .relaxed)
        progress.finished(bytes: size, transferred: false)
        try write("skipped", key, size, nil, to: output)
      case .success(.kept(let key, let size)):
        tally.skipped.add(1, ordering: .relaxed)
        progress.kept(bytes: size)
        try write("skipped", key, size, nil, to: output)
      case .failure(let error):
        progress.underWay(bytes: 0)
        progress.clear()
        if error.kind == .cancelled || Task.isCancelled {
          throw CommandFailure(error: StorageError(.cancelled, "interrupted"), notes: [hint()])
        }
        if error.kind == .outputClosed { throw error }
        tally.failed.add(1, ordering: .relaxed)
        let code = ErrorReporting.report(error, notes: [], json: json)
        tally.firstFailure.withLock { if $0 == nil { $0 = code } }
      }
    }
    // What a walk met that is not a file to upload: a skip is told and counted, a failure
    // reported and counted, and the run goes on.
    func note(_ item: PutItem) throws {
      switch item {
      case .skipped(let text):
        progress.clear()
        tally.skipped.add(1, ordering: .relaxed)
        Diagnostics.note(text)
      case .failed(let error): try report(.failure(error))
      case .job: break
      }
    }
    // Up to --parallel files at once, a file in parts alone (`PutSchedule`).
    try await PutSchedule.run(
      items, settings: settings,
      settled: { job in
        // A `sync` file the same as the object listed (by size with `--size-only`, else
        // compared already): no task.
        guard let size = PutUpload.keptAsListed(job) else { return nil }
        return .success(.kept(key: job.location.key, size: size))
      },
      start: { job, size in
        // `sync` replaces an object it listed (after comparing it), and only that one.
        var jobSettings = settings
        if job.sync?.listed != nil { jobSettings.overwrite = true }
        let upload = PutUpload(
          writer: writer, settings: jobSettings, job: job, progress: progress, noFollow: noFollow)
        progress.listed(objects: 1, bytes: size ?? 0)
        return { await Self.outcome(of: upload) }
      }, note: note, report: report, listed: { progress.listingComplete() })
    try output.flush()
    progress.clear()
    if Task.isCancelled {
      throw CommandFailure(error: StorageError(.cancelled, "interrupted"), notes: [hint()])
    }
    if !json {
      Diagnostics.note(
        "\(tally.uploaded.load(ordering: .relaxed)) uploaded, \(tally.skipped.load(ordering: .relaxed)) skipped, \(tally.failed.load(ordering: .relaxed)) failed"
      )
    }
    if let code = tally.firstFailure.withLock({ $0 }) { throw ExitCode(code) }
  }

  private static func outcome(of upload: PutUpload) async -> Result<PutOutcome, StorageError> {
    do {
      return .success(try await upload.run())
    } catch {
      return .failure(error)
    }
  }

  /// `--abort`: ends the service's session of the job's checkpoint and removes it. Without one:
  /// `quietly` returns `false`, else it throws.
  @discardableResult
  func abort(_ job: PutJob, quietly: Bool = false) async throws -> Bool {
    let identity = job.source == "-" ? nil : try? PutSource.identity(of: job.source)
    let key = identity.map {
      UploadCheckpoints.Key(provider: settings.kind.name, location: job.location, path: $0.path)
    }
    guard let store = settings.checkpoints, let key, let saved = store.load(key) else {
      if quietly { return false }
      throw StorageError(
        .notFound,
        "no interrupted upload of \(DisplayText(quoting: job.source)) to \(job.location) to abort")
    }
    try await PutUpload(writer: writer, settings: settings, job: job, progress: nil)
      .abandon(saved.session)
    store.remove(key)
    Diagnostics.note("aborted the interrupted upload to \(job.location)")
    return true
  }

  private func write(
    _ type: String, _ key: String, _ size: Int64, _ result: WriteResult?, to output: OutputStream
  ) throws(StorageError) {
    guard json else { return }
    var line = JSONLine()
    line.string("type", type)
    line.string("key", key)
    line.int("size", size)
    if let result { result.appendJSONFields(to: &line) }
    try output.write(line)
    try output.flush()
  }
}
