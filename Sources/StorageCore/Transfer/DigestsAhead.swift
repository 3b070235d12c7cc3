import Synchronization

/// The digests of an upload's parts, hashed ahead of sending.
///
/// The parts to send are cut, in plan order, into groups of up to `lanes` parts, each group read
/// and hashed in one lockstep pass (``PartReader``): the first group holds the parts the first
/// senders need at once, and each group after it twice as many as the one before, up to `lanes`,
/// so that sending starts as soon as it did one part at a time. The group holding the first part
/// asked for is read first, and the next group is read while the parts of the one before are
/// sent, but never a group more than one beyond the last group a part was asked for, so a failed
/// upload does not hash the whole file. A digest is handed to the one part that asks for it and
/// then dropped: at most two groups of digests are kept.
///
/// Up to `reads` groups are read at once (the group parts wait for and the one after it, each on
/// its own thread, when two areas fit the memory bound), each through a read area of
/// `lanes × slice` bytes, made when no free one is left and counted in the gauge while this
/// lives. ``close()`` stops the reading and returns once no read uses an area.
final class DigestsAhead<Digest: RunningDigest>: Sendable {
  /// A part's digest, or why its read failed.
  typealias Outcome = Result<Digest, StorageError>
  /// A read to start: its group and area.
  private typealias Next = (group: Int, area: ReadBuffer)

  private struct Waiter {
    let id: UInt64
    let continuation: CheckedContinuation<Outcome, Never>
  }

  private struct State {
    /// Digests read and not yet asked for, by part number.
    var ready: [Int: Outcome] = [:]
    /// Parts waiting for their group's read, by part number.
    var waiters: [Int: Waiter] = [:]
    /// The groups whose read started: `0..<started`.
    var started = 0
    /// The reads running.
    var reading = 0
    /// Read areas no read uses, and how many were made.
    var free: [ReadBuffer] = []
    var made = 0
    /// The last group a part was asked for (−1 before any).
    var wanted = -1
    /// No read starts any more.
    var closed = false
    var nextWaiterID: UInt64 = 0
    /// Resumed when no read runs any more (``close()`` waits for it).
    var ended: [CheckedContinuation<Void, Never>] = []
  }

  private let descriptor: Int32
  private let plan: PartPlan
  private let groups: [[Int]]
  private let groupOf: [Int: Int]
  private let slice: Int
  private let makeDigest: @Sendable () -> Digest
  private let makeArea: @Sendable (Int) -> ReadBuffer
  private let capacity: Int
  private let reads: Int
  private let gauge: BufferGauge
  private let stopped = Atomic<Bool>(false)
  private let state = Mutex(State())

  /// Digests of `parts` (part numbers of `plan`, in the order they will be asked for) of the
  /// file `descriptor`, made by `makeDigest`, read in groups of `first` parts, then twice as many
  /// each time up to `lanes`, with `slice` bytes a part and round through areas from
  /// `makeArea` (at most `reads` at once), counted in `gauge`.
  init(
    parts: [Int], of plan: PartPlan, descriptor: Int32, lanes: Int, first: Int, slice: Int,
    reads: Int, makeDigest: @escaping @Sendable () -> Digest,
    makeArea: @escaping @Sendable (Int) -> ReadBuffer, gauge: BufferGauge
  ) {
    let lanes = max(1, min(lanes, parts.count))
    var groups: [[Int]] = []
    var groupOf: [Int: Int] = [:]
    var start = 0
    var size = max(1, min(first, lanes))
    while start < parts.count {
      let group = Array(parts[start..<min(parts.count, start + size)])
      for number in group { groupOf[number] = groups.count }
      groups.append(group)
      start += group.count
      size = min(lanes, size * 2)
    }
    self.descriptor = descriptor
    self.plan = plan
    self.groups = groups
    self.groupOf = groupOf
    self.slice = max(1, slice)
    self.makeDigest = makeDigest
    self.makeArea = makeArea
    capacity = lanes * self.slice
    self.reads = max(1, reads)
    self.gauge = gauge
  }

  /// The digest of part `number`, once its group is read; a failure when its read failed, or
  /// `.cancelled` when the calling task is cancelled first (the wait ends at once).
  ///
  /// - Precondition: `number` is one of the parts, asked for once.
  func digest(ofPart number: Int) async -> Outcome {
    guard let group = groupOf[number] else {
      preconditionFailure("part \(number) is not one of the parts to send")
    }
    let id = state.withLock {
      $0.nextWaiterID += 1
      return $0.nextWaiterID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
        let (now, read) = state.withLock { state -> (Outcome?, Next?) in
          state.wanted = max(state.wanted, group)
          let read = self.nextRead(&state)
          if let outcome = state.ready.removeValue(forKey: number) { return (outcome, read) }
          if state.closed { return (.failure(Self.cancelled), read) }
          // Checked under the lock the cancellation handler takes: either it finds the waiter,
          // or the waiter never waits.
          if Task.isCancelled { return (.failure(Self.cancelled), read) }
          state.waiters[number] = Waiter(id: id, continuation: continuation)
          return (nil, read)
        }
        if let read { self.read(read) }
        if let now { continuation.resume(returning: now) }
      }
    } onCancel: {
      let waiter = state.withLock { state -> Waiter? in
        guard let waiter = state.waiters[number], waiter.id == id else { return nil }
        state.waiters[number] = nil
        return waiter
      }
      waiter?.continuation.resume(returning: .failure(Self.cancelled))
    }
  }

  /// Stops reading (a running read ends after its round) and returns once no read uses an
  /// area; parts still waiting get `.cancelled`. The areas leave the gauge.
  func close() async {
    stopped.store(true, ordering: .relaxed)
    let waiters = state.withLock { state -> [Waiter] in
      state.closed = true
      state.ready.removeAll()
      let waiters = Array(state.waiters.values)
      state.waiters.removeAll()
      return waiters
    }
    for waiter in waiters { waiter.continuation.resume(returning: .failure(Self.cancelled)) }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let reading = state.withLock { state -> Bool in
        if state.reading > 0 { state.ended.append(continuation) }
        return state.reading > 0
      }
      if !reading { continuation.resume() }
    }
    gauge.release(Int64(state.withLock { $0.made } * capacity))
  }

  /// Whether ``close()`` stopped the reading.
  var isStopped: Bool { stopped.load(ordering: .relaxed) }

  private static var cancelled: StorageError {
    StorageError(.cancelled, "the upload was cancelled")
  }

  /// The group to read next and its area, marked started, when one may start now.
  private func nextRead(_ state: inout State) -> Next? {
    guard !state.closed, state.reading < reads, state.started < groups.count,
      state.started <= state.wanted + 1
    else { return nil }
    let area: ReadBuffer
    if let free = state.free.popLast() {
      area = free
    } else {
      state.made += 1
      gauge.hold(Int64(capacity))
      area = makeArea(capacity)
    }
    state.reading += 1
    state.started += 1
    return (state.started - 1, area)
  }

  /// Starts reading `group` through `area` (both from ``nextRead(_:)``).
  private func read(_ next: Next) {
    let (group, area) = next
    PartReader.digests(
      descriptor, ranges: groups[group].map { plan.range(ofPart: $0) }, makeDigest: makeDigest,
      through: area, slice: slice, isStopped: { self.isStopped },
      done: { results in self.finished(group: group, area: area, results) })
  }

  /// `group`'s read ended with `results`: hands them to the parts waiting, keeps the others,
  /// and starts the next read when one may start.
  private func finished(group: Int, area: ReadBuffer, _ results: [Outcome]) {
    let (resumed, next, ended) = state.withLock {
      state -> ([(Waiter, Outcome)], Next?, [CheckedContinuation<Void, Never>]) in
      var resumed: [(Waiter, Outcome)] = []
      for (number, outcome) in zip(groups[group], results) {
        if let waiter = state.waiters.removeValue(forKey: number) {
          resumed.append((waiter, outcome))
        } else if !state.closed {
          state.ready[number] = outcome
        }
      }
      state.reading -= 1
      state.free.append(area)
      let next = self.nextRead(&state)
      guard state.reading == 0 else { return (resumed, next, []) }
      let ended = state.ended
      state.ended.removeAll()
      return (resumed, next, ended)
    }
    for (waiter, outcome) in resumed { waiter.continuation.resume(returning: outcome) }
    if let next { read(next) }
    for continuation in ended { continuation.resume() }
  }
}
