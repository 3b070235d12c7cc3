import ArgumentParser
import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `sync DIR BUCKET/PREFIX/`: the prefix listed once (in memory, in key order: `FolderListing`),
/// then the files under DIR uploaded by `put -r`'s run, each compared with the object listed at
/// its key first (kept when the same, replaced when it differs, uploaded without replacing when
/// there was none); with `--delete`, the objects under the prefix no file has are deleted at the
/// end, only when every copy succeeded.
struct SyncUp {
  let writer: any ObjectWriting
  let kind: ProviderKind
  let bucket: String
  let prefix: String
  let directory: String
  let patterns: KeyPatterns
  let options: Sync
  let json: Bool
  let stateDirectory: String?

  func run() async throws {
    let listing = try await FolderListing.listing(writer, bucket: bucket, prefix: prefix)
    let sizeOnly = options.sizeOnly
    // Each file's job with the object listed at its key (marked as having a file).
    let walk = PutTreeJobs(
      roots: [directory], bucket: bucket, folder: prefix, patterns: patterns,
      followLinks: options.followSymlinks
    ).lazy.map { item -> PutItem in
      guard case .job(var job) = item else { return item }
      let place = listing.takePlace(job.location.key)
      if sizeOnly, let place, listing.size(at: place) == job.size {
        // Kept by its size, which the walk found: settled here, with no object to hold (nor
        // copied out of the listing).
        job.sync = SyncTarget(listed: nil, sizeOnly: true, same: true)
      } else {
        job.sync = SyncTarget(listed: place.map { listing[$0] }, sizeOnly: sizeOnly)
      }
      return .job(job)
    }
    // The whole walk first only when it must be seen before anything is copied: the objects to
    // delete are counted (and confirmed) first, and a dry run reports; else files are copied as
    // the walk finds them.
    var items: [PutItem] = []
    if options.delete || options.dryRun { items = Array(walk) }
    let extra = options.delete ? listing.untaken(prefix: prefix, patterns) : []
    let place = DisplayText(quoting: bucket + "/" + prefix)
    guard try options.confirmDeleting(extra.count, "object", at: place) else { return }
    let settings = PutSettings(sync: options, kind: kind, stateDirectory: stateDirectory)
    let run = PutRun(
      writer: writer, settings: settings, json: json, noFollow: !options.followSymlinks,
      command: "sync")
    if options.dryRun { return try await dryRun(items, extra, run) }
    // A small file is compared here, as the run reaches it: one that is the same is then kept
    // with no task (`PutRun`), one that differs is uploaded without being compared again.
    let compare = SyncCompare(provider: writer, noFollow: !options.followSymlinks)
    do {
      // (`--size-only` compares sizes, which the walk found: nothing to do here.)
      switch (options.delete, options.sizeOnly) {
      case (true, true): try await run.run(items)
      case (true, false): try await run.run(items.lazy.map(compare.item))
      case (false, true): try await run.run(walk)
      case (false, false): try await run.run(walk.map(compare.item))
      }
    } catch let code as ExitCode where !extra.isEmpty {
      Diagnostics.note("nothing deleted: not every file was copied")
      throw code
    }
    guard !extra.isEmpty else { return }
    let deleter = BatchDeleter(
      writer: writer, bucket: bucket,
      options: BatchDeleter.Options(
        json: json, dryRun: false, force: true, batchReportsMissing: kind.batchReportsMissing),
      checkMissing: false, provider: writer)
    for key in extra { try await deleter.add(key) }
    try await deleter.finish()
  }

  /// What a run would copy and delete, compared as a run compares (files read, OSS objects
  /// stat'ed), nothing changed.
  private func dryRun(_ items: [PutItem], _ extra: [String], _ run: PutRun) async throws {
    let output = OutputStream.standardOutput()
    var copied = 0
    var kept = 0
    var firstFailure: Int32?
    for item in items {
      switch item {
      case .job(let job):
        let upload = PutUpload(
          writer: writer, settings: run.settings, job: job, progress: nil,
          noFollow: run.noFollow)
        do throws(StorageError) {
          if try await upload.isUnchanged() {
            kept += 1
            continue
          }
          copied += 1
          let size = job.sourceSize
          try syncDryRunLine("upload", "key", job.location.key, size: size, json: json, to: output)
        } catch {
          if error.kind == .outputClosed { throw error }
          let code = ErrorReporting.report(error, notes: [], json: json)
          if firstFailure == nil { firstFailure = code }
        }
      case .skipped(let text): Diagnostics.note(text)
      case .failed(let error):
        let code = ErrorReporting.report(error, notes: [], json: json)
        if firstFailure == nil { firstFailure = code }
      }
    }
    for key in extra {
      try syncDryRunLine("delete", "key", key, size: nil, json: json, to: output)
    }
    try output.flush()
    Diagnostics.note(
      "would upload \(copied), keep \(kept) the same, delete \(extra.count); nothing changed")
    if let firstFailure { throw ExitCode(firstFailure) }
  }
}

extension PutSettings {
  /// `sync`'s uploads: `put`'s defaults, `--parallel`, never replacing (a job replaces the
  /// object it listed; see `PutRun`).
  init(sync: Sync, kind: ProviderKind, stateDirectory: String?) {
    self.kind = kind
    overwrite = false
    skipExisting = false
    skipSame = false
    threshold = Self.defaultThreshold
    partSize = Self.defaultPartSize(kind)
    parallel = sync.parallel ?? 4
    contentType = nil
    metadata = []
    storageClass = nil
    resume = true
    checkpoints = stateDirectory.map { UploadCheckpoints(directory: $0) }
  }
}

/// `sync`'s comparison of a small file with the object listed at its key, made on the run's
/// task as the run reaches the file: no task, no `PutSource`, for each of the many small files
/// an unchanged tree holds. Only what the listing settles is recorded (the same, or another
/// hash); a file that cannot be opened or read, or that the listing cannot judge (an OSS object
/// without an MD5 ETag), is left to its job, which compares it as before and reports why.
struct SyncCompare {
  let provider: any StorageProvider
  /// Open files without following a symbolic link (`sync` without `--follow-symlinks`).
  let noFollow: Bool

  /// Files up to this size are compared here; a larger one in its job, alongside others.
  static let inlineLimit: Int64 = 256 << 10

  /// `item` with its comparison recorded, when it is a small file's job to compare.
  func item(_ item: PutItem) -> PutItem {
    guard case .job(var job) = item, var sync = job.sync, let listed = sync.listed,
      !sync.sizeOnly, sync.same == nil, let size = job.size, size <= Self.inlineLimit
    else { return item }
    if listed.size != size {
      sync.same = false
    } else {
      guard let same = sameContent(job.source, listed, size: size) else { return item }
      sync.same = same
    }
    job.sync = sync
    return .job(job)
  }

  /// Whether the regular file at `path`, still of `size` bytes, holds `listed`'s content, as
  /// far as the listing tells (`nil`: it cannot, or the file cannot be read).
  private func sameContent(_ path: String, _ listed: ObjectEntry, size: Int64) -> Bool? {
    guard let descriptor = ListedContent.openRegular(path, size: size, noFollow: noFollow) else {
      return nil
    }
    defer { _ = close(descriptor) }
    switch try? ListedContent.compare(listed, file: descriptor, size: size, provider: provider) {
    case .same?: return true
    case .different?: return false
    case .unknown?, nil: return nil
    }
  }
}
