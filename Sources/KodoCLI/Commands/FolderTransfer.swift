import ArgumentParser
import StorageCore

/// Copies or moves every object of a folder into another folder on the service: the engine of
/// `mv -r` and `cp -r`, and what a browser's rename of a folder calls. A key's destination is
/// the destination prefix followed by the key's path relative to the source folder; copies and
/// moves go in batches (`ObjectWriting.transferBatch`) while the listing streams, so memory
/// holds one batch whatever the folder's size.
struct FolderTransfer {
  let folder: RemoteFolder
  let writer: any ObjectWriting
  let destinationBucket: String
  /// The destination folder, ending in `/`, or empty for the destination bucket's root.
  let destinationPrefix: String
  let move: Bool
  /// Whether an existing destination may be replaced.
  let overwrite: Bool

  /// A transfer of `folder` into `destinationBucket`'s folder `destination` (the folder rule
  /// applies: `x` means `x/`).
  ///
  /// - Throws: a usage error when the destination folder is the source folder or inside it
  ///   (the listing would meet what it wrote).
  init(
    folder: RemoteFolder, writer: any ObjectWriting, destinationBucket: String,
    destination: String, move: Bool, overwrite: Bool
  ) throws {
    self.folder = folder
    self.writer = writer
    self.destinationBucket = destinationBucket
    self.destinationPrefix = RemoteFolder.prefix(destination)
    self.move = move
    self.overwrite = overwrite
    if destinationBucket == folder.bucket
      && destinationPrefix.utf8.starts(with: folder.prefix.utf8)
    {
      throw ValidationError(
        "\(DisplayText(quoting: destinationBucket + "/" + destinationPrefix).text) is inside \(folder.place.text): give a destination outside the folder"
      )
    }
  }

  /// The destination folder, for messages.
  var destinationPlace: DisplayText {
    destinationPrefix.isEmpty
      ? "bucket " + DisplayText(quoting: destinationBucket)
      : DisplayText(quoting: destinationBucket + "/" + destinationPrefix)
  }

  /// The copy or move of the object `entry` of the folder.
  func request(for entry: ObjectEntry) -> CopyRequest {
    let relative = entry.key.utf8.dropFirst(folder.prefix.utf8.count)
    return CopyRequest(
      source: ObjectLocation(bucket: folder.bucket, key: entry.key),
      destination: ObjectLocation(
        bucket: destinationBucket,
        key: destinationPrefix + String(decoding: relative, as: UTF8.self)),
      overwrite: overwrite, sourceSize: entry.size, sourceETag: entry.etag)
  }

  /// Lists the folder and copies or moves each object, calling `report` with every object's
  /// outcome, in key order, as its batch finishes (on a dry run, every outcome is a success and
  /// nothing is sent); `listed` is called with each page's count. A batch whose request failed
  /// as a whole reports that error for each of its objects, and the next batches are tried.
  /// The folder's own marker object has no destination at a bucket's root: its outcome is an
  /// error and it is kept.
  ///
  /// The listing goes on while a batch runs; a service that moves and copies in batches of its
  /// own (Kodo) gets two batches at once (`BatchWindow`), one that copies each object gets one
  /// batch at a time (its copies run in parallel already).
  ///
  /// - Returns: how many objects the folder held.
  func run(
    dryRun: Bool, listed: (Int) -> Void = { _ in },
    report: (TransferOutcome) async throws -> Void
  ) async throws -> Int {
    var splitter = BatchSplitter<CopyRequest>(limit: writer.transferBatchLimit)
    let window = BatchWindow<Result<[TransferOutcome], StorageError>>(
      depth: writer is any BatchTransferring ? BatchWindow<[TransferOutcome]>.defaultDepth : 1)
    var seen = 0
    let (writer, move) = (self.writer, self.move)
    func deliver(_ outcomes: Result<[TransferOutcome], StorageError>) async throws {
      for outcome in try outcomes.get() { try await report(outcome) }
    }
    func send(_ batch: [CopyRequest]) async throws {
      if dryRun {
        for request in batch { try await report(TransferOutcome(request: request)) }
        return
      }
      try await window.start(
        { await Self.transfer(batch, writer: writer, move: move) }, deliver: deliver)
    }
    do {
      try await folder.scan { objects in
        listed(objects.count)
        // By index: `for object in objects` would copy each entry (a retain per field).
        for index in objects.indices {
          seen += 1
          let request = request(for: objects[index])
          if request.destination.key.isEmpty {
            try await report(
              TransferOutcome(
                request: request,
                error: StorageError(
                  .invalidInput,
                  "the folder marker \(request.source) was kept: the root of bucket \(DisplayText.quoted(destinationBucket)) holds no folder marker"
                )))
            continue
          }
          if let batch = splitter.add(request) { try await send(batch) }
        }
      }
    } catch {
      // What the batches still running did is reported before the listing's failure.
      try? await window.finish(deliver: deliver)
      throw error
    }
    if let batch = splitter.finish() { try await send(batch) }
    try await window.finish(deliver: deliver)
    return seen
  }

  /// The outcome of each request of `batch`: a request that failed as a whole is every
  /// object's failure; a cancellation is the whole batch's (the caller stops).
  private static func transfer(_ batch: [CopyRequest], writer: any ObjectWriting, move: Bool)
    async -> Result<[TransferOutcome], StorageError>
  {
    do {
      return .success(try await writer.transferBatch(batch, move: move))
    } catch {
      if error.kind == .cancelled { return .failure(error) }
      return .success(batch.map { TransferOutcome(request: $0, error: error) })
    }
  }
}
