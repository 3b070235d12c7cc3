import KodoBrowse
import StorageCore
import SystemPackage

extension EffectRunner {
  /// `s` on a folder or marked entries: `get -r`'s download (`RecursiveGet.transfer`, the same
  /// file handling) into the current directory, its progress and end sent as messages. When
  /// cancelled (the browser quits), it stops and sends nothing more; no temporary file stays.
  func downloadTree(id: Int, bucket: String, base: String, entries: [String]) async {
    var get = RecursiveGet(
      provider: provider, kind: kind, bucket: bucket, prefix: base, directory: FilePath("."),
      domain: domain(bucket), parallel: 4, json: false)
    get.entries = entries
    var progress = TreeProgress()
    var summary = TreeSummary()
    let send = self.send
    let started = ContinuousClock.now
    do {
      try await get.transfer { event in
        switch event {
        case .listed(let bytes):
          progress.listed += 1
          progress.total += bytes
        case .rejected(let error):
          summary.problem(error.description, differs: false)
        case .finished(.written(_, _, let size, _, _)):
          summary.written += 1
          progress.done += 1
          progress.bytes += size
        case .finished(.kept(_, _, let size, _, _)):
          summary.same += 1
          progress.done += 1
          progress.bytes += size
        case .finished(.failed(_, let error)):
          progress.done += 1
          if error.kind != .cancelled {
            summary.problem(error.description, differs: error.kind == .exists)
          }
        case .listingComplete:
          progress.listingComplete = true
        }
        let elapsed = ContinuousClock.now - started
        progress.seconds =
          Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if !Task.isCancelled { send(.treeProgress(id: id, progress)) }
      }
    } catch {
      if Task.isCancelled { return }
      let message =
        (error as? CommandFailure)?.error.description ?? (error as? StorageError)?.description
        ?? "\(error)"
      send(.treeFinished(id: id, .failure(Failure(message))))
      return
    }
    if Task.isCancelled { return }
    send(.treeFinished(id: id, .success(summary)))
  }
}
