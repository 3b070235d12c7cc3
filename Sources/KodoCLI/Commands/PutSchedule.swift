import StorageCore

/// How `put -r`, `sync` and the browser's `u` run their uploads: files that go in one request
/// (up to the threshold) up to `parallel` at once; a file in parts (or stdin) alone, its parts
/// `parallel` at once, so that memory stays within about parallel × part size. One place, so
/// that every caller keeps the same bound.
enum PutSchedule {
  /// Runs `start(job, size)`'s work for each job of `items` (`size`: its `sourceSize`, found
  /// once), in order, as many at once as the rule above allows; a job whose outcome `settled`
  /// knows without any work is reported at once, with no task. Tells `note` of every item that
  /// is not a job, `report` of each outcome (as they end, on the caller's task), and `listed`
  /// once every item has been seen. Once the task is cancelled nothing more starts; the work
  /// already running is awaited and reported.
  static func run<Outcome: Sendable>(
    _ items: some Sequence<PutItem>, settings: PutSettings,
    settled: (PutJob) -> Outcome? = { _ in nil },
    start: (PutJob, Int64?) -> @Sendable () async -> Outcome,
    note: (PutItem) throws -> Void,
    report: (Outcome) throws -> Void,
    listed: () -> Void = {}
  ) async throws {
    try await withThrowingTaskGroup(of: Outcome.self) { group in
      var inFlight = 0
      for item in items {
        if Task.isCancelled { break }
        guard case .job(let job) = item else {
          try note(item)
          continue
        }
        if let outcome = settled(job) {
          try report(outcome)
          continue
        }
        let size = job.sourceSize
        let work = start(job, size)
        let alone = job.isStandardInput || (size ?? 0) > settings.threshold
        while inFlight >= (alone ? 1 : settings.parallel), let next = try await group.next() {
          inFlight -= 1
          try report(next)
        }
        if Task.isCancelled { break }
        if alone {
          try report(await work())
        } else {
          group.addTask { await work() }
          inFlight += 1
        }
      }
      listed()
      while let next = try await group.next() { try report(next) }
    }
  }
}
