/// Runs the parts of a transfer: at most `parallel` at once, each in up to `attempts` rounds.
/// The one place both the multipart upload and the ranged download schedule their parts.
enum PartScheduler {
  /// Runs `work` for every number in `numbers`, at most `parallel` at once, and hands each
  /// result to `finished` in the calling task, in the order they finish. After the first failure
  /// no part starts and the running ones are cancelled.
  ///
  /// - Throws: the first failure (a real one rather than the cancellations it caused);
  ///   `.cancelled` when the calling task was cancelled.
  static func run<Value: Sendable>(
    _ numbers: [Int], parallel: Int,
    work: @escaping @Sendable (Int) async -> Result<Value, StorageError>,
    finished: (Int, Value) -> Void
  ) async throws(StorageError) {
    var pending = numbers.makeIterator()
    var failure: StorageError?
    await withTaskGroup(of: (Int, Result<Value, StorageError>).self) { group in
      for _ in 0..<max(1, parallel) {
        guard let number = pending.next() else { break }
        group.addTask { (number, await work(number)) }
      }
      while let (number, result) = await group.next() {
        switch result {
        case .success(let value):
          finished(number, value)
          if failure == nil, let next = pending.next() {
            group.addTask { (next, await work(next)) }
          }
        case .failure(let error):
          if failure == nil || (failure?.kind == .cancelled && error.kind != .cancelled) {
            failure = error
          }
          group.cancelAll()
        }
      }
    }
    if let failure { throw failure }
    if Task.isCancelled { throw StorageError(.cancelled, "the transfer was cancelled") }
  }

  /// `body` in up to `attempts` rounds: a `temporary` or `unavailable` failure that `isFinal`
  /// does not claim waits `delay × (round − 1)` and goes again (`retrying` is told the round that
  /// follows); any other failure, or the last round's, is thrown.
  static func rounds<Value>(
    attempts: Int, delay: Duration, sleep: @Sendable (Duration) async throws -> Void,
    isFinal: (StorageError) -> Bool, retrying: (Int, StorageError) -> Void,
    attempt body: () async throws(StorageError) -> Value
  ) async throws(StorageError) -> Value {
    var round = 1
    while true {
      if Task.isCancelled { throw StorageError(.cancelled, "the transfer was cancelled") }
      do {
        return try await body()
      } catch {
        guard round < attempts, !isFinal(error),
          error.kind == .temporary || error.kind == .unavailable
        else { throw error }
        round += 1
        retrying(round, error)
        do {
          try await sleep(delay * (round - 1))
        } catch {
          throw StorageError(.cancelled, "the transfer was cancelled")
        }
      }
    }
  }
}
