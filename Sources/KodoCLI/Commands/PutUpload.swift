import KodoCore
import OSSCore
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
  /// (the browser's transfer queue; `put` has its own progress).
  var partsHeld: (@Sendable (Int64) -> Void)?

  func run() async throws(StorageError) -> PutOutcome {
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
    do throws(StorageError) {
      // An object with the file's size and hash is kept without sending the file again (Kodo
      // would take identical bytes as a success, OSS refuses them); one that differs is still
      // refused by the service below, not by this comparison.
      if settings.skipSame, source.path != nil, try await holdsSameContent(source) {
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
      // Refused by the service: it differs (or appeared since the comparison below).
      if try await holdsSameContent(source) { return .skipped(key: job.location.key, size: size) }
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

  /// Whether the object at the job's location has the file's size and content hash (the
  /// provider's check: Kodo's hash, OSS's CRC-64).
  private func holdsSameContent(_ source: PutSource) async throws(StorageError) -> Bool {
    let details: ObjectDetails
    do {
      details = try await writer.stat(bucket: job.location.bucket, key: job.location.key)
    } catch  where error.kind == .notFound {
      return false
    }
    guard details.object.size == source.identity.size,
      let check = writer.integrityCheck(for: details)
    else { return false }
    return try check.compute("/proc/self/fd/\(source.descriptor)") == check.expected
  }

  private func contentType(_ source: PutSource) -> String? {
    settings.contentType ?? source.fileName.flatMap(ContentTypes.forName)
  }

  /// Ends `session` on the service (one the service forgot is gone already).
  func abandon(_ session: UploadSession) async throws(StorageError) {
    switch try uploader(fileName: nil, contentType: nil) {
    case .kodo(let uploader): try await Self.abandon(session, uploader)
    case .oss(let uploader): try await Self.abandon(session, uploader)
    }
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

  private enum Uploader {
    case kodo(KodoMultipartUpload)
    case oss(OSSMultipartUpload)
  }

  private func uploader(fileName: String?, contentType: String?) throws(StorageError) -> Uploader {
    if let client = writer as? KodoClient {
      return .kodo(
        try KodoMultipartUpload(
          client: client, destination: job.location, overwrite: settings.overwrite,
          contentType: contentType, metadata: settings.metadata,
          storageClass: settings.storageClass, fileName: fileName))
    }
    if let client = writer as? OSSClient {
      return .oss(
        try OSSMultipartUpload(
          client: client, destination: job.location, overwrite: settings.overwrite,
          contentType: contentType, metadata: settings.metadata,
          storageClass: settings.storageClass))
    }
    throw StorageError(.invalidInput, "\(writer.serviceName) has no multipart upload")
  }

  private func multipart(_ source: PutSource) async throws(StorageError) -> WriteResult {
    switch try uploader(fileName: source.fileName, contentType: contentType(source)) {
    case .kodo(let uploader):
      let (object, partSize, _) = try await send(source, uploader)
      try source.checkUnchanged(job.source)
      let local = try Self.kodoHash(source, partSize: partSize)
      guard object.etag == local else {
        throw StorageError(
          .protocolError,
          "Kodo's hash \(DisplayText(escaping: object.etag ?? "(none)")) of \(job.location) does not match the file's \(local); the object was kept"
        )
      }
      return WriteResult(hash: object.etag, requestID: object.requestID)
    case .oss(let uploader):
      // The uploader checked the object's CRC-64 against the parts' combined.
      let (object, _, parts) = try await send(source, uploader)
      try source.checkUnchanged(job.source)
      let crc = CRC64.combine(parts.map { (crc: UInt64($0.checksum ?? "") ?? 0, size: $0.size) })
      return WriteResult(
        etag: object.etag.map { $0.trimmingQuotes }, crc64: String(crc),
        requestID: object.requestID)
    }
  }

  /// Runs the engine, resuming the saved checkpoint of this source and target (unless
  /// `--no-resume`), saving each new one, and forgetting it when the upload is done or refused.
  private func send<U: MultipartUploading>(_ source: PutSource, _ uploader: U)
    async throws(StorageError) -> (UploadedObject, Int64, [PartReceipt])
  {
    let store = source.path == nil ? nil : settings.checkpoints
    let key = source.path.map {
      UploadCheckpoints.Key(provider: settings.kind.rawValue, location: job.location, path: $0)
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
    let latest = Mutex<UploadCheckpoint?>(nil)
    let planned = Mutex<Int64>(settings.partSize)
    let location = job.location
    let partsHeld = self.partsHeld
    let engine = MultipartUpload(
      options: MultipartUpload.Options(partSize: settings.partSize, parallel: settings.parallel))
    do {
      let outcome = try await engine.run(
        MultipartUpload.Source(descriptor: source.descriptor, identity: source.identity),
        to: uploader, resuming: resuming,
        checkpoints: { checkpoint in
          latest.withLock { $0 = checkpoint }
          if let store, let key { store.save(checkpoint, for: key) }
          partsHeld?(checkpoint.parts.reduce(0) { $0 + $1.size })
        },
        events: { event in
          switch event {
          case .planned(_, let partSize, _): planned.withLock { $0 = partSize }
          case .checkpointIgnored(let reason):
            Diagnostics.note("\(location): \(DisplayText(escaping: reason)); starting again")
          case .sessionForgotten:
            Diagnostics.note("the service forgot the upload to \(location); starting again")
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

  /// Kodo's hash of the file in parts of `partSize`: the SHA-1 of each part, combined as the
  /// qetag combines its 4 MiB blocks (with 4 MiB parts, the qetag).
  static func kodoHash(_ source: PutSource, partSize: Int64) throws(StorageError) -> String {
    var digests: [[UInt8]] = []
    var offset: Int64 = 0
    let size = source.identity.size
    while offset < size {
      let end = min(size, offset + partSize)
      digests.append(Digest.sha1(try source.read(offset..<end)))
      offset = end
    }
    return QETag.hash(blockDigests: digests)
  }
}

extension String {
  /// Without one pair of surrounding double quotes (an ETag as HTTP writes it).
  fileprivate var trimmingQuotes: String {
    count >= 2 && hasPrefix("\"") && hasSuffix("\"") ? String(dropFirst().dropLast()) : self
  }
}
