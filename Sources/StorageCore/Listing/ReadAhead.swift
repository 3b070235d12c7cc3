import Synchronization

/// Where a page fetch reports, as soon as the first bytes of the answer name it, the marker that
/// continues the listing after the page it is fetching: before the rest of the page has arrived.
///
/// `ListPages` runs each fetch it sends ahead with a watch in ``current``; a provider whose
/// answers name the marker first shows the transport a ``BodyWatcher`` that reads it and calls
/// ``report(_:)``. A fetch without a watch, or a provider that never reports, only loses the
/// head start: the marker of the complete answer (`PageAnswer.nextMarker`) still sends the next
/// request.
public struct MarkerWatch: Sendable {
  /// The watch of the fetch running in this task, if `ListPages` sent it ahead.
  @TaskLocal public static var current: MarkerWatch?

  private let receive: @Sendable (String?) -> Void

  /// A watch that hands reported markers to `receive`.
  public init(_ receive: @escaping @Sendable (String?) -> Void) {
    self.receive = receive
  }

  /// The answer being received says the page it holds is continued by `marker` (`nil`: it is
  /// the last). Called on any thread, possibly more than once (once per attempt); only the first
  /// report counts.
  public func report(_ marker: String?) {
    receive(marker)
  }
}

/// The requests of one listing that are on their way before the consumer asks for their pages:
/// `ListPages`' read-ahead.
///
/// The page after a page is requested as soon as that page's marker is known: from the first
/// bytes of its answer when the provider reports them (``MarkerWatch``), else from the complete
/// answer. At most ``depth`` requests are ahead of the consumer, each for the marker the one
/// before it gave, so the service is never idle while its answer for the next page is awaited,
/// and at most that many answers are held. A request is used only when its marker is the one the
/// consumer asks for next (the decoded page's); any other is cancelled with the ones after it and
/// the page is fetched afresh, so a wrong early marker costs a request, never an entry.
final class ReadAhead: Sendable {
  typealias Answer = Task<Result<PageAnswer, StorageError>, Never>

  /// The most requests sent ahead of the consumer.
  static let depth = 2

  private struct Fetch {
    var id: Int
    var marker: String?
    var task: Answer
  }

  private struct State {
    /// The requests ahead, in listing order, each for the marker the one before it gave.
    var queue: [Fetch] = []
    /// The last fetch sent (ahead or taken), which no request follows yet, and the marker of its
    /// page once it is known (`.some(nil)`: its page is the last).
    var tail: (id: Int, next: String??)?
    var nextID = 0
    var closed = false
  }

  private let state = Mutex(State())
  private let template: ListRequest
  private let fetch: PageFetcher

  init(_ template: ListRequest, fetch: @escaping PageFetcher) {
    self.template = template
    self.fetch = fetch
  }

  deinit {
    cancelAll()
  }

  /// The answer for `request`: the one already on its way when its marker matches, else a
  /// fresh fetch (the requests ahead are then cancelled). With `readAhead`, the fetch reports its
  /// marker early, and the next page is requested as soon as it is known.
  func answer(for request: ListRequest, readAhead: Bool) async throws(StorageError) -> PageAnswer {
    guard readAhead else {
      cancelAll()
      return try await fetch(request)
    }
    let task = state.withLock { state -> Answer in
      if let first = state.queue.first, first.marker == request.marker {
        state.queue.removeFirst()
        extend(&state)
        return first.task
      }
      Self.cancel(&state)
      state.closed = false
      return start(request.marker, request: request, in: &state, queued: false)
    }
    let result = await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
    guard case .success(let answer) = result else {
      // The listing ends here: nothing ahead is wanted.
      cancelAll()
      return try result.get()
    }
    return answer
  }

  /// The complete answer for `marker`'s page said `next` continues the listing: the request for
  /// it goes now if the early marker did not already send it (one for another marker is
  /// replaced). `mayFollow` is false for a marker the listing gave before (no request follows it).
  func answered(_ marker: String?, next: String?, mayFollow: Bool) {
    state.withLock { state in
      guard !state.closed else { return }
      guard let next, mayFollow else {
        Self.cancel(&state)
        return
      }
      if let first = state.queue.first {
        guard first.marker != next else { return }
        Self.cancel(&state)
        state.closed = false
      }
      var request = template
      request.marker = next
      _ = start(next, request: request, in: &state, queued: true)
    }
  }

  /// Cancels every request ahead; none follows until the consumer asks again.
  func cancelAll() {
    state.withLock { Self.cancel(&$0) }
  }

  // MARK: - Inside the lock

  private static func cancel(_ state: inout State) {
    for fetch in state.queue { fetch.task.cancel() }
    state.queue.removeAll()
    state.tail = nil
    state.closed = true
  }

  /// Sends the request for `marker`'s page, watching for its marker early.
  private func start(
    _ marker: String?, request: ListRequest, in state: inout State, queued: Bool
  ) -> Answer {
    let id = state.nextID
    state.nextID += 1
    let watch = MarkerWatch { [weak self] next in self?.reported(next, by: id) }
    let fetch = self.fetch
    let task = Answer {
      await MarkerWatch.$current.withValue(watch) { await Self.result(of: fetch, request) }
    }
    if queued { state.queue.append(Fetch(id: id, marker: marker, task: task)) }
    state.tail = (id, nil)
    return task
  }

  private static func result(of fetch: PageFetcher, _ request: ListRequest) async -> Result<
    PageAnswer, StorageError
  > {
    do {
      return .success(try await fetch(request))
    } catch {
      return .failure(error)
    }
  }

  /// Fetch `id` learnt early that `next` continues its page.
  private func reported(_ next: String?, by id: Int) {
    state.withLock { state in
      guard !state.closed, let tail = state.tail, tail.id == id, tail.next == nil else { return }
      state.tail = (id, .some(next))
      extend(&state)
    }
  }

  /// Requests the page after the last one requested, when its marker is known and fewer than
  /// `depth` requests are ahead.
  private func extend(_ state: inout State) {
    guard !state.closed, state.queue.count < Self.depth, let tail = state.tail,
      case .some(.some(let next)) = tail.next
    else { return }
    var request = template
    request.marker = next
    _ = start(next, request: request, in: &state, queued: true)
  }
}

extension MarkerWatch {
  /// How a provider sends a list request whose answer names its marker first: the transport
  /// shows `peek` the body as it arrives, and the marker `peek` finds (`.some(nil)`: the last
  /// page; `nil`: not known from these bytes yet) is reported. `peek` must give a marker only
  /// when the bytes so far settle it: the same as the complete answer's.
  public func sender(
    through transport: any HTTPTransport, peek: @escaping @Sendable ([UInt8]) -> String??
  ) -> @Sendable (HTTPRequest) async throws -> HTTPResponse {
    let watcher = BodyWatcher { body in
      guard let marker = peek(body) else { return false }
      self.report(marker)
      return true
    }
    return { request in try await transport.send(request, watchingBody: watcher) }
  }
}
