import Synchronization

/// A recursive listing of a prefix that lists its top-level folders concurrently and yields
/// every object in exactly the order a sequential listing would.
///
/// Markers cannot be split, but prefixes can: the level under the prefix is listed once
/// with delimiter `/`; its objects are yielded in key order, and each folder's recursive listing,
/// started up to `concurrency` folders ahead, is yielded in the folder's place. Each folder buffers
/// at most `pagesAhead` pages, so memory stays bounded whatever the bucket's size.
public struct ParallelListing: Sendable {
  let fetch: PageFetcher
  let bucket: String
  let prefix: String
  let pageSize: Int
  let concurrency: Int
  let pagesAhead: Int

  /// A listing of everything under `prefix`.
  public init(
    fetch: @escaping PageFetcher, bucket: String, prefix: String, pageSize: Int = 1000,
    concurrency: Int, pagesAhead: Int = 4
  ) {
    self.fetch = fetch
    self.bucket = bucket
    self.prefix = prefix
    self.pageSize = pageSize
    self.concurrency = max(1, concurrency)
    self.pagesAhead = max(1, pagesAhead)
  }

  /// Calls `consume` with successive batches of objects, in sequential-listing order.
  ///
  /// - Throws: `StorageError` from any listing, or whatever `consume` throws; all listings stop.
  public func run(_ consume: ([ObjectEntry]) async throws -> Void) async throws {
    var levelMarker = ""
    var upcoming: [Segment] = []
    var running: [Task<Void, Never>] = []
    defer { for task in running { task.cancel() } }
    var levelDone = false

    // Keeps `concurrency` folder listings started ahead of the consumer.
    func startAhead(_ segments: inout [Segment], from index: Int) {
      var active = 0
      for position in index..<segments.count {
        guard case .folder(let folder) = segments[position] else { continue }
        if folder.started {
          if !folder.finished { active += 1 }
          continue
        }
        if active >= concurrency { break }
        folder.started = true
        running.append(start(folder))
        active += 1
      }
    }

    var position = 0
    while true {
      if position >= upcoming.count {
        if levelDone { return }
        // The next page of the level: its prefixes and objects, merged in key order.
        let page = try await fetch(
          ListRequest(
            bucket: bucket, prefix: prefix, delimiter: "/", marker: levelMarker, limit: pageSize))
        var segments: [Segment] = page.items.map { .objects([$0]) }
        for folder in page.commonPrefixes {
          segments.append(.folder(FolderListing(prefix: folder, capacity: pagesAhead)))
        }
        segments.sort { $0.sortKey.utf8.lexicographicallyPrecedes($1.sortKey.utf8) }
        upcoming.removeFirst(position)
        position = 0
        upcoming.append(contentsOf: segments)
        levelMarker = page.marker
        levelDone = page.marker.isEmpty
        continue
      }
      startAhead(&upcoming, from: position)
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
        while let items = try await folder.take() {
          if !items.isEmpty { try await consume(items) }
          startAhead(&upcoming, from: position)
        }
        position += 1
      }
    }
  }

  private func start(_ folder: FolderListing) -> Task<Void, Never> {
    let pages = ListPages(
      ListRequest(bucket: bucket, prefix: folder.prefix, limit: pageSize), fetch: fetch)
    return Task {
      do {
        for try await element in pages {
          try await folder.put(element.page.items)
        }
        await folder.finish(nil)
      } catch let error as StorageError {
        await folder.finish(error)
      } catch {
        await folder.finish(StorageError(.cancelled, "cancelled"))
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
  }
}

/// One folder's pages, produced by its listing task and taken in order by the consumer, with at
/// most `capacity` pages waiting.
final class FolderListing: @unchecked Sendable {
  // `started`/`finished` are read and written only by the consumer loop; the queue state is
  // behind `lock`.
  let prefix: String
  var started = false
  var finished = false
  private let capacity: Int
  private let lock = Mutex(Queue())

  struct Queue {
    var pages: [[ObjectEntry]] = []
    var done = false
    var error: StorageError?
    var waitingTaker: CheckedContinuation<Void, Never>?
    var waitingPutter: CheckedContinuation<Void, Never>?
  }

  init(prefix: String, capacity: Int) {
    self.prefix = prefix
    self.capacity = capacity
  }

  /// Adds a page, waiting while `capacity` pages are already waiting.
  func put(_ page: [ObjectEntry]) async throws {
    while true {
      try Task.checkCancellation()
      let full = lock.withLock { $0.pages.count >= capacity }
      if !full { break }
      await withCheckedContinuation { continuation in
        let resumeNow = lock.withLock { queue -> Bool in
          if queue.pages.count < capacity { return true }
          queue.waitingPutter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    }
    let taker = lock.withLock { queue -> CheckedContinuation<Void, Never>? in
      queue.pages.append(page)
      defer { queue.waitingTaker = nil }
      return queue.waitingTaker
    }
    taker?.resume()
  }

  /// Marks the listing complete (or failed).
  func finish(_ error: StorageError?) async {
    let taker = lock.withLock { queue -> CheckedContinuation<Void, Never>? in
      queue.done = true
      queue.error = error
      defer { queue.waitingTaker = nil }
      return queue.waitingTaker
    }
    taker?.resume()
  }

  /// The next page, or `nil` when the folder is done.
  func take() async throws -> [ObjectEntry]? {
    while true {
      let (page, done, error, putter) = lock.withLock {
        queue -> ([ObjectEntry]?, Bool, StorageError?, CheckedContinuation<Void, Never>?) in
        if !queue.pages.isEmpty {
          let page = queue.pages.removeFirst()
          defer { queue.waitingPutter = nil }
          return (page, false, nil, queue.waitingPutter)
        }
        return (nil, queue.done, queue.error, nil)
      }
      putter?.resume()
      if let page { return page }
      if done {
        finished = true
        if let error { throw error }
        return nil
      }
      try Task.checkCancellation()
      await withCheckedContinuation { continuation in
        let resumeNow = lock.withLock { queue -> Bool in
          if !queue.pages.isEmpty || queue.done { return true }
          queue.waitingTaker = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    }
  }
}
