import StorageCore
import Synchronization

/// One source of `put` uploaded: in one request up to the threshold, else in parts through the
/// transfer engine, resuming and keeping its checkpoint; the whole object checked at the end.
struct PutUpload: Sendable {
  let writer: any ObjectWriting
  let settings: PutSettings
  let job: PutJob
  let progress: TransferProgress?
  /// Open the file without following a symbolic link (`put -r` without `--follow-symlinks`).
  var noFollow = false
  /// Told, in an upload in parts, the bytes of the parts the service holds after each new one
  /// (the browser's transfer queue; `put` has `progress`, told the bytes on the wire).
  var partsHeld: (@Sendable (Int64) -> Void)?

  func run() async throws(StorageError) -> PutOutcome {
    if let size = Self.keptAsListed(job) { return .skipped(key: job.location.key, size: size) }
    let source: PutSource
    if job.source == "-" {
      guard !job.location.key.isEmpty else {
        throw StorageError(.invalidInput, "stdin (-) needs an exact key")
      }
      let environment = Runtime.current.environment
      source = try PutSource.standardInput(
        Runtime.current.standardInput, threshold: settings.threshold,
        temporaryDirectory: environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
    } else {
      source = try PutSource.file(job.source, noFollow: noFollow)
    }
    guard !job.location.key.isEmpty else { throw StorageError(.invalidInput, "the key is empty") }
    let size = source.identity.size
    // An object with the file's size and hash is kept without sending the file again (Kodo
    // would take identical bytes as a success, OSS refuses them); one that differs is still
    // refused by the service below, not by this comparison.
    var before: Stored?
    do throws(StorageError) {
      if settings.skipSame, source.path != nil {
        before = try await stored(source, listing: job.destinationListing)
        if before == .same { return .skipped(key: job.location.key, size: size) }
      }
      // (A file `sync` found to differ already is not compared again.)
      if let listed = job.sync?.listed, job.sync?.same != false, source.path != nil,
        try await matches(listed, source, sizeOnly: job.sync?.sizeOnly ?? false)
      {
        return .skipped(key: job.location.key, size: size)
      }
      let result: WriteResult
      if size <= settings.threshold {
        let body = try source.content()
        try source.checkUnchanged(job.source)
        result = try await writer.put(
          PutRequest(
            destination: job.location, body: body, contentType: contentType(source),
            metadata: settings.metadata, storageClass: settings.storageClass,
            overwrite: settings.overwrite, fileName: source.fileName))
      } else {
        result = try await multipart(source)
      }
      return .uploaded(key: job.location.key, size: size, result: result)
    } catch  where error.kind == .exists && settings.skipExisting {
      return .skipped(key: job.location.key, size: size)
    } catch  where error.kind == .exists && settings.skipSame && source.path != nil {
      // Refused by the service: it differs, as compared above, or it appeared since (then it
      // is compared now).
      if before == .absent, try await stored(source) == .same {
        return .skipped(key: job.location.key, size: size)
      }
      throw StorageError(
        .exists,
        "\(job.location) exists and differs from \(DisplayText(quoting: job.source)); --force replaces it",
        requestID: error.requestID)
    } catch  where error.kind == .exists {
      throw StorageError(
        .exists, "\(job.location) exists; --force replaces it, --skip-existing keeps it",
        requestID: error.requestID)
    }
  }

  /// What the service holds at the job's location, compared with the file.
  private enum Stored {
    case absent
    /// The file's size and content hash.
    case same
    case different
  }

  /// The object at the job's location compared with the file (size, then the provider's
  /// check: Kodo's hash, OSS's CRC-64): from the destination's listing when the job carries
  /// one and it can tell (`ListedContent`), else from the object's details.
  private func stored(_ source: PutSource, listing: DestinationListing? = nil)
    async throws(StorageError) -> Stored
  {
    if let listing {
      guard let object = listing.object else { return .absent }
      switch try ListedContent.compare(
        object, file: source.descriptor, size: source.identity.size,
        provider: writer)
      {
      case .same: return .same
      case .different: return .different
      case .unknown: break
      }
    }
    let details: ObjectDetails
    do {
      details = try await writer.stat(bucket: job.location.bucket, key: job.location.key)
    } catch  where error.kind == .notFound {
      return .absent
    }
    return try sameContent(details, source) == true ? .same : .different
  }

  /// Whether `details` has the file's size and content hash; `nil` for the same size and no
  /// hash in `details` to compare with.
  private func sameContent(_ details: ObjectDetails, _ source: PutSource) throws(StorageError)
    -> Bool?
  {
    guard details.object.size == source.identity.size else { return false }
    guard let check = writer.integrityCheck(for: details) else { return nil }
    return try check.compute(source.descriptor) == check.expected
  }

  /// Whether the file is the same as the object `sync` listed at its key (`false` when there
  /// is none): what a dry run of `sync` asks without uploading.
  func isUnchanged() async throws(StorageError) -> Bool {
    if Self.keptAsListed(job) != nil { return true }
    guard let sync = job.sync, let listed = sync.listed else { return false }
    let source = try PutSource.file(job.source, noFollow: noFollow)
    return try await matches(listed, source, sizeOnly: sync.sizeOnly)
  }

  /// The size of `job`'s file when `sync` keeps it with no more work: found by a walk with the
  /// size of the object listed at its key, and `--size-only` (the walk's `fstatat` was the one
  /// look at it) or found the same already (`SyncCompare`); else `nil`.
  static func keptAsListed(_ job: PutJob) -> Int64? {
    guard let sync = job.sync, let size = job.size else { return nil }
    if sync.same == true { return size }
    guard sync.sizeOnly, let listed = sync.listed, listed.size == size else { return nil }
    return size
  }

  /// Whether `listed` (the object `sync` listed at the key) has the file's size and, unless
  /// `sizeOnly`, its content: from the listing when it tells (Kodo's hash, OSS's MD5 ETag),
  /// else from the object's details (OSS's CRC-64).
  private func matches(_ listed: ObjectEntry, _ source: PutSource, sizeOnly: Bool)
    async throws(StorageError) -> Bool
  {
    guard listed.size == source.identity.size else { return false }
    if sizeOnly { return true }
    return try await stored(source, listing: DestinationListing(object: listed)) == .same
  }

  private func contentType(_ source: PutSource) -> String? {
    settings.contentType ?? source.fileName.flatMap(ContentTypes.forName)
  }

  /// Ends `session` on the service (one the service forgot is gone already).
  func abandon(_ session: UploadSession) async throws(StorageError) {
    let writer = try multipartWriter()
    try await Self.abandon(session, try writer.multipartUploader(for: target(nil)))
  }

  private static func abandon<Uploader: MultipartUploading>(
    _ session: UploadSession, _ uploader: Uploader
  ) async throws(StorageError) {
    do {
      try await uploader.abort(session)
    } catch  where uploader.isForgotten(error) {
      return
    }
  }

  /// The writer as a provider that uploads in parts.
  private func multipartWriter() throws(StorageError) -> any MultipartWriting {
    guard let writer = writer as? any MultipartWriting else {
      throw StorageError(.invalidInput, "\(writer.serviceName) has no multipart upload")
    }
    return writer
  }

  /// The object the parts make, with `source`'s name and content type.
  private func target(_ source: PutSource?) -> MultipartTarget {
    MultipartTarget(
      destination: job.location, overwrite: settings.overwrite,
      contentType: source.flatMap(contentType), metadata: settings.metadata,
      storageClass: settings.storageClass, fileName: source?.fileName)
  }

  private func multipart(_ source: PutSource) async throws(StorageError) -> WriteResult {
    try await multipart(source, with: try multipartWriter())
  }

  /// Uploads `source` through the engine with `writer`'s protocol, then has the provider check
  /// the whole object against the file.
  private func multipart<Writer: MultipartWriting>(_ source: PutSource, with writer: Writer)
    async throws(StorageError) -> WriteResult
  {
    let sent: (UploadedObject, Int64, [PartReceipt])
    do throws(StorageError) {
      sent = try await send(source, try writer.multipartUploader(for: target(source)))
    } catch {
      // Parts are read twice (for the digest, then for the wire): a part of a file that changed
      // in between is refused for its digest; the change is the error to tell.
      if error.kind != .cancelled { try source.checkUnchanged(job.source) }
      throw error
    }
    let (object, partSize, parts) = sent
    try source.checkUnchanged(job.source)
    return try writer.verifiedResult(
      of: object, parts: parts, partSize: partSize, size: source.identity.size,
      read: { range throws(StorageError) in try source.read(range) })
  }

  /// Runs the engine, resuming the saved checkpoint of this source and target (unless
  /// `--no-resume`), saving each new one, and forgetting it when the upload is done or refused.
  private func send<U: MultipartUploading>(_ source: PutSource, _ uploader: U)
    async throws(StorageError) -> (UploadedObject, Int64, [PartReceipt])
  {
    let store = source.path == nil ? nil : settings.checkpoints
    let key = source.path.map {
      UploadCheckpoints.Key(provider: settings.kind.name, location: job.location, path: $0)
    }
    var resuming: UploadCheckpoint?
    if let store, let key, let saved = store.load(key) {
      if !settings.resume {
        try? await Self.abandon(saved.session, uploader)
        store.remove(key)
      } else if saved.source != source.identity {
        Diagnostics.note(
          "\(DisplayText(quoting: job.source)) changed since its upload to \(job.location) was interrupted; starting again"
        )
        try? await Self.abandon(saved.session, uploader)
        store.remove(key)
      } else {
        resuming = saved
      }
    }
    let journal = store.flatMap { store in key.map { CheckpointJournal(store, for: $0) } }
    defer { journal?.close() }
    let latest = Mutex<UploadCheckpoint?>(nil)
    let planned = Mutex<Int64>(settings.partSize)
    let location = job.location
    let partsHeld = self.partsHeld
    let progress = self.progress
    let engine = MultipartUpload(
      options: MultipartUpload.Options(partSize: settings.partSize, parallel: settings.parallel))
    do {
      let outcome = try await engine.run(
        MultipartUpload.Source(descriptor: source.descriptor, identity: source.identity),
        to: uploader, resuming: resuming,
        checkpoints: { checkpoint in
          latest.withLock { $0 = checkpoint }
          journal?.save(checkpoint)
          partsHeld?(checkpoint.parts.reduce(0) { $0 + $1.size })
        },
        events: { event in
          switch event {
          case .planned(_, let partSize, _): planned.withLock { $0 = partSize }
          case .checkpointIgnored(let reason):
            Diagnostics.note("\(location): \(DisplayText(escaping: reason)); starting again")
          case .sessionForgotten:
            Diagnostics.note("the service forgot the upload to \(location); starting again")
          case .progress(let bytesDone, _): progress?.underWay(bytes: bytesDone)
          default: break
          }
        })
      if let store, let key { store.remove(key) }
      let parts = latest.withLock { $0?.parts } ?? []
      return (outcome.object, planned.withLock { $0 }, parts)
    } catch  where error.kind == .exists {
      // Refused at completion: the parts are of no use; the service's session is ended.
      if let session = latest.withLock({ $0?.session }) {
        try? await Self.abandon(session, uploader)
      }
      if let store, let key { store.remove(key) }
      throw error
    }
  }
}
