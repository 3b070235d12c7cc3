import KodoBrowse
import StorageCore

extension EffectRunner {
  /// `d`: deletes through `rm`'s code (`DeleteBatches`, batches of the service's limit; a
  /// folder through `rm -r`'s scan of `PREFIX/`, never `PREFIX-other/`), and reports which
  /// entries are gone. A key already missing is gone too (what the browser showed is not
  /// there). When cancelled (the browser quits), it stops and sends nothing.
  func delete(id: Int, bucket: String, objects: [String], folders: [String]) async {
    var report = DeleteReport()
    func failed(_ count: Int, _ error: any Error) {
      report.failed += count
      if report.firstFailure == nil { report.firstFailure = Self.describe(error) }
    }
    let writer: any ObjectWriting
    do throws(StorageError) {
      writer = try Remove.writer(provider)
    } catch {
      failed(objects.count + folders.count, error)
      return send(.deleteFinished(id: id, report))
    }
    var batches = DeleteBatches(writer: writer, bucket: bucket, provider: provider)
    var notDeleted: Set<ExactKey> = []
    var stopped: Set<ExactKey> = []
    func handle(_ event: DeleteEvent) {
      switch event {
      case .deleted: report.deleted += 1
      case .missing: break
      case .failed(let key, let error):
        notDeleted.insert(ExactKey(key))
        failed(1, error)
      case .batchFailed(let keys, let error):
        notDeleted.formUnion(keys.map(ExactKey.init))
        failed(keys.count, error)
      }
    }
    do {
      for key in objects { try await batches.add(key, report: handle) }
      for folder in folders {
        let prefix = RemoteFolder.prefix(folder)
        // A listing that named "" as a folder must not make `d` delete the whole bucket.
        guard !prefix.isEmpty else {
          stopped.insert(ExactKey(folder))
          failed(0, StorageError(.invalidInput, "an empty folder name is not deleted here"))
          continue
        }
        do {
          try await RemoteFolder(provider: provider, bucket: bucket, given: prefix).scan {
            listed in
            for object in listed { try await batches.add(object.key, report: handle) }
          }
        } catch {
          if Task.isCancelled { return }
          // The listing stopped: what it found is deleted, the folder stays.
          stopped.insert(ExactKey(folder))
          failed(0, error)
        }
      }
      try await batches.finish(report: handle)
    } catch {
      if Task.isCancelled { return }
      failed(0, error)
    }
    if Task.isCancelled { return }
    report.objects = objects.filter { !notDeleted.contains(ExactKey($0)) }
    report.folders = folders.filter { folder in
      !stopped.contains(ExactKey(folder))
        && !notDeleted.contains { $0.text.utf8.starts(with: RemoteFolder.prefix(folder).utf8) }
    }
    send(.deleteFinished(id: id, report))
  }

  /// The objects under `folders`, listed as `rm -r` lists what it deletes.
  func count(id: Int, bucket: String, folders: [String]) async {
    var count = 0
    do {
      for folder in folders where !RemoteFolder.prefix(folder).isEmpty {
        try await RemoteFolder(provider: provider, bucket: bucket, given: folder).scan {
          count += $0.count
        }
      }
    } catch {
      if Task.isCancelled { return }
      return send(.objectsCounted(id: id, .failure(Failure(Self.describe(error)))))
    }
    if Task.isCancelled { return }
    send(.objectsCounted(id: id, .success(count)))
  }

  /// `r`: moves through `mv`'s code (`Move.move`); an existing destination is kept and
  /// reported as such unless `replace` (what `--force` does).
  func move(id: Int, bucket: String, from: String, to: String, replace: Bool) async {
    if KeySegments.endsWithSlash(from) {
      return await moveFolder(id: id, bucket: bucket, from: from, to: to, replace: replace)
    }
    let result: MoveResult
    do throws(StorageError) {
      guard let writer = provider as? any ObjectWriting else {
        throw StorageError(.rejected, "this provider cannot move objects")
      }
      try await Move.move(
        writer,
        CopyRequest(
          source: ObjectLocation(bucket: bucket, key: from),
          destination: ObjectLocation(bucket: bucket, key: to), overwrite: replace))
      result = .moved
    } catch {
      result = error.kind == .exists && !replace ? .exists : .failed(Failure(error.description))
    }
    if Task.isCancelled { return }
    send(.moveFinished(id: id, result))
  }

  /// `r` on a folder: every object under `from` moved under `to`, as `mv -r` moves them
  /// (``FolderTransfer``): an existing destination is kept unless `replace`, and then the move
  /// ends as `.exists` (asked about) when nothing else failed.
  func moveFolder(id: Int, bucket: String, from: String, to: String, replace: Bool) async {
    var existing = 0
    var failed: StorageError?
    let result: MoveResult
    do {
      guard let writer = provider as? any ObjectWriting else {
        throw StorageError(.rejected, "this provider cannot move objects")
      }
      let transfer = try FolderTransfer(
        folder: RemoteFolder(provider: provider, bucket: bucket, given: from), writer: writer,
        destinationBucket: bucket, destination: to, move: true, overwrite: replace)
      let count = try await transfer.run(dryRun: false) { outcome in
        guard let error = outcome.error else { return }
        if error.kind == .exists { existing += 1 } else if failed == nil { failed = error }
      }
      if count == 0 { throw StorageError(.notFound, "nothing under the folder to move") }
      if let failed { throw failed }
      result = existing > 0 && !replace ? .exists : .moved
    } catch {
      result = .failed(Failure(Self.describe(error)))
    }
    if Task.isCancelled { return }
    send(.moveFinished(id: id, result))
  }

  /// A thrown error's message, whole.
  static func describe(_ error: any Error) -> String {
    (error as? CommandFailure)?.error.description ?? (error as? StorageError)?.description
      ?? "\(error)"
  }
}
