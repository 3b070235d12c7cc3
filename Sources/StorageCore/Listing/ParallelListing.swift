import AsyncAlgorithms
import Synchronization

/// A recursive listing of a prefix that lists its top-level folders concurrently and yields
/// every object in exactly the order a sequential listing would.
///
/// Markers cannot be split, but prefixes can: the level under the prefix is listed once with
/// delimiter `/`; its objects are yielded in key order, and each folder's recursive listing,
/// started ahead of the consumer (`FolderStarter`: at most `concurrency` folders fetching and
/// twice that many not yet consumed), is yielded in the folder's place. Each folder buffers at
/// most `pagesAhead` pages, so memory stays bounded whatever the bucket's size. Every
/// listing, the level's and each folder's, is a `ListPages`, so the same no-progress rules hold.
public struct ParallelListing: Sendable {
  let fetch: PageFetcher
  let bucket: String
  let prefix: String
  let pageSize: Int
  let concurrency: Int
  let pagesAhead: Int
  /// Only each object's key is used (`ListRequest.keysOnly`).
  let keysOnly: Bool

  /// A listing of everything under `prefix`.
  public init(
    fetch: @escaping PageFetcher, bucket: String, prefix: String, pageSize: Int = 1000,
    concurrency: Int, pagesAhead: Int = 4, keysOnly: Bool = false
  ) {
    self.fetch = fetch
    self.bucket = bucket
    self.prefix = prefix
    self.pageSize = pageSize
    self.keysOnly = keysOnly
    self.concurrency = max(1, concurrency)
    self.pagesAhead = max(1, pagesAhead)
  }

  /// Calls `consume` with successive batches of objects, in sequential-listing order.
  ///
  /// - Throws: `StorageError` from any listing, or whatever `consume` throws; all listings stop.
  public func run(_ consume: ([ObjectEntry]) async throws -> Void) async throws {
    var level = ListPages(
      ListRequest(
        bucket: bucket, prefix: prefix, delimiter: "/", limit: pageSize, keysOnly: keysOnly),
      fetch: fetch
    ).makeAsyncIterator()
    let starter = FolderStarter(
      concurrency: concurrency, pagesAhead: pagesAhead,
      request: ListRequest(bucket: bucket, limit: pageSize, keysOnly: keysOnly), fetch: fetch)
    var upcoming: [Segment] = []
    var position = 0
    defer {
      starter.close()
      for segment in upcoming { segment.folder?.cancel() }
    }

    while true {
      // Cancelled channels and read-aheads end their loops rather than throwing.
      if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
      if position >= upcoming.count {
        // The next page of the level: its prefixes and objects, merged in key order.
        guard let element = try await level.next() else { return }
        var segments: [Segment] = element.page.items.map { .objects([$0]) }
        for folder in element.page.commonPrefixes {
          segments.append(.folder(FolderListing(prefix: folder)))
        }
        segments.sort { $0.sortKey.utf8.lexicographicallyPrecedes($1.sortKey.utf8) }
        upcoming.removeFirst(position)
        position = 0
        upcoming.append(contentsOf: segments)
        starter.add(segments.compactMap(\.folder))
        continue
      }
      switch upcoming[position] {
      case .objects(let objects):
        // Batch consecutive objects of the level.
        var batch = objects
        var next = position + 1
        while next < upcoming.count, case .objects(let more) = upcoming[next] {
          batch += more
          next += 1
        }
        try await consume(batch)
        position = next
      case .folder(let folder):
        for try await items in folder.pages where !items.isEmpty {
          try await consume(items)
        }
        starter.drained()
        position += 1
      }
    }
  }

  private enum Segment {
    case objects([ObjectEntry])
    case folder(FolderListing)

    var sortKey: String {
      switch self {
      case .objects(let objects): objects.first?.key ?? ""
      case .folder(let folder): folder.prefix
      }
    }

    var folder: FolderListing? {
      if case .folder(let folder) = self { return folder }
      return nil
    }
  }
}

/// Starts the folders' listings in order, as slots free up: at most `concurrency` folders
/// fetching at once, and at most twice that many started and not yet drained by the consumer
/// (fetched pages wait in their folder, up to `pagesAhead` each, so memory stays bounded).
///
/// A folder frees its fetching slot when its last page has arrived, not when the consumer has
/// taken its pages, so a slow folder the consumer waits on does not hold back the fetching of
/// the folders after it.
private final class FolderStarter: Sendable {
  private struct State {
    var waiting: [FolderListing] = []
    var next = 0
    var fetching = 0
    var held = 0
    var closed = false
  }

  private let state = Mutex(State())
  private let concurrency: Int
  /// Each folder's request, but for its prefix.
  private let request: ListRequest
  private let pagesAhead: Int
  private let fetch: PageFetcher

  init(
    concurrency: Int, pagesAhead: Int, request: ListRequest, fetch: @escaping PageFetcher
  ) {
    self.concurrency = concurrency
    self.request = request
    self.pagesAhead = pagesAhead
    self.fetch = fetch
  }

  /// Folders to list after those already added, in order.
  func add(_ folders: [FolderListing]) {
    state.withLock { $0.waiting += folders }
    startReady()
  }

  /// The consumer has taken every page of the oldest started folder.
  func drained() {
    state.withLock { $0.held -= 1 }
    startReady()
  }

  /// Starts no more folders.
  func close() {
    state.withLock { $0.closed = true }
  }

  private func fetched() {
    state.withLock { $0.fetching -= 1 }
    startReady()
  }

  private func startReady() {
    let ready = state.withLock { state -> ArraySlice<FolderListing> in
      guard !state.closed else { return [] }
      let room = min(concurrency - state.fetching, 2 * concurrency - state.held)
      let count = max(0, min(room, state.waiting.count - state.next))
      let ready = state.waiting[state.next..<state.next + count]
      state.next += count
      state.fetching += count
      state.held += count
      if state.next > 1024 {
        state.waiting.removeFirst(state.next)
        state.next = 0
      }
      return ready
    }
    for folder in ready {
      var request = self.request
      request.prefix = folder.prefix
      let listing = ListPages(request, fetch: fetch)
      folder.start(listing, pagesAhead: pagesAhead) { [weak self] in self?.fetched() }
    }
  }
}

/// One folder's recursive listing: a task that fetches up to `pagesAhead` pages ahead and hands
/// them over through a channel, in order. Started by `FolderStarter`, consumed and cancelled by
/// the consumer loop of `ParallelListing.run`.
private final class FolderListing: Sendable {
  let prefix: String
  let pages = AsyncThrowingChannel<[ObjectEntry], any Error>()
  private let task = Mutex<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

  init(prefix: String) {
    self.prefix = prefix
  }

  /// Starts the listing, unless the folder was cancelled; `fetched` is called once, when its
  /// last page has arrived or its listing has failed or stopped.
  func start(_ listing: ListPages, pagesAhead: Int, fetched: @escaping @Sendable () -> Void) {
    let pages = self.pages
    task.withLock { state in
      guard !state.cancelled else { return }
      state.task = Task {
        let end = FetchEnd(fetched)
        defer { end.signal() }
        do {
          let told = EndTelling(base: listing, onEnd: end.signal)
          for try await element in told.buffer(policy: .bounded(pagesAhead)) {
            await pages.send(element.page.items)
          }
          pages.finish()
        } catch {
          pages.fail(error)
        }
      }
    }
  }

  func cancel() {
    task.withLock { state in
      state.cancelled = true
      state.task?.cancel()
    }
    pages.finish()
  }
}

/// Calls its function once, however many times it is signalled.
private final class FetchEnd: Sendable {
  private let function: Mutex<(@Sendable () -> Void)?>

  init(_ function: @escaping @Sendable () -> Void) {
    self.function = Mutex(function)
  }

  func signal() {
    let function = self.function.withLock { function in
      defer { function = nil }
      return function
    }
    function?()
  }
}

/// A folder's pages, signalling `onEnd` when there are no more (the listing's end or failure):
/// the moment its fetching is over, which comes before the consumer has taken its buffered
/// pages.
private struct EndTelling: AsyncSequence, Sendable {
  typealias Element = ListPages.Element
  typealias Failure = StorageError

  let base: ListPages
  let onEnd: @Sendable () -> Void

  func makeAsyncIterator() -> Iterator {
    Iterator(base: base.makeAsyncIterator(), onEnd: onEnd)
  }

  struct Iterator: AsyncIteratorProtocol {
    typealias Element = ListPages.Element
    typealias Failure = StorageError

    var base: ListPages.Iterator
    let onEnd: @Sendable () -> Void

    mutating func next() async throws(StorageError) -> ListPages.Element? {
      do {
        guard let element = try await base.next() else {
          onEnd()
          return nil
        }
        return element
      } catch {
        onEnd()
        throw error
      }
    }
  }
}
