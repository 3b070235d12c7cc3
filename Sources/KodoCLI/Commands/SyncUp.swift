import ArgumentParser
import StorageCore

/// `sync DIR BUCKET/PREFIX/`: the prefix listed once (a map of its keys, in memory), then the
/// files under DIR uploaded by `put -r`'s run, each compared with the object listed at its key
/// first (kept when the same, replaced when it differs, uploaded without replacing when there
/// was none); with `--delete`, the objects under the prefix no file has are deleted at the end,
/// only when every copy succeeded.
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
    let listed = try await RecursiveScan(
      provider: writer, bucket: bucket, prefix: prefix, pageSize: 1000, parallel: nil
    ).objectsByKey()
    let sizeOnly = options.sizeOnly
    // Each file's job with the object listed at its key.
    let walk = PutTreeJobs(
      roots: [directory], bucket: bucket, folder: prefix, patterns: patterns,
      followLinks: options.followSymlinks
    ).lazy.map { item -> PutItem in
      guard case .job(var job) = item else { return item }
      job.sync = SyncTarget(listed: listed[job.location.key], sizeOnly: sizeOnly)
      return .job(job)
    }
    // The whole walk first only when it must be seen before anything is copied: the objects to
    // delete are counted (and confirmed) first, and a dry run reports; else files are copied as
    // the walk finds them.
    var items: [PutItem] = []
    var local = Set<String>()
    if options.delete || options.dryRun {
      for item in walk {
        if options.delete, case .job(let job) = item { local.insert(job.location.key) }
        items.append(item)
      }
    }
    let extra = options.delete ? Self.extra(listed, local: local, prefix: prefix, patterns) : []
    let place = DisplayText(quoting: bucket + "/" + prefix)
    guard try options.confirmDeleting(extra.count, "object", at: place) else { return }
    let settings = PutSettings(sync: options, kind: kind, stateDirectory: stateDirectory)
    let run = PutRun(
      writer: writer, settings: settings, json: json, noFollow: !options.followSymlinks,
      command: "sync")
    if options.dryRun { return try await dryRun(items, extra, run) }
    do {
      if options.delete { try await run.run(items) } else { try await run.run(walk) }
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

  /// The keys under `prefix` that no local file has (and the patterns keep), in key order;
  /// a folder marker (an empty object ending in `/`) is not one.
  static func extra(
    _ remote: [String: ObjectEntry], local: Set<String>, prefix: String, _ patterns: KeyPatterns
  ) -> [String] {
    remote.values.filter { object in
      guard !local.contains(object.key), object.key.utf8.starts(with: prefix.utf8) else {
        return false
      }
      if KeySegments.endsWithSlash(object.key) && object.size == 0 { return false }
      let relative = String(decoding: object.key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
      return patterns.keeps(relative)
    }.map(\.key).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
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
