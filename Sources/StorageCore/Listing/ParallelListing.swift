import AsyncAlgorithms

/// A recursive listing of a prefix that lists its top-level folders concurrently and yields
/// every object in exactly the order a sequential listing would.
///
/// Markers cannot be split, but prefixes can: the level under the prefix is listed once with
/// delimiter `/`; its objects are yielded in key order, and each folder's recursive listing,
/// started up to `concurrency` folders ahead, is yielded in the folder's place. Each folder
/// buffers at most `pagesAhead` pages, so memory stays bounded whatever the bucket's size. Every
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
    var upcoming: [Segment] = []
    var position = 0
    defer {
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
        continue
      }
      startAhead(upcoming[position...])
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
        for try await items in folder.pages {
          if !items.isEmpty { try await consume(items) }
          startAhead(upcoming[position...])
        }
        folder.drained = true
        position += 1
      }
    }
  }

  /// Keeps `concurrency` folder listings running ahead of the consumer.
  private func startAhead(_ segments: ArraySlice<Segment>) {
    var active = 0
    for segment in segments {
      guard let folder = segment.folder else { continue }
      if folder.isStarted {
        if !folder.drained { active += 1 }
        continue
      }
      if active >= concurrency { break }
      folder.start(
        ListPages(
          ListRequest(
            bucket: bucket, prefix: folder.prefix, limit: pageSize, keysOnly: keysOnly),
          fetch: fetch),
        pagesAhead: pagesAhead)
      active += 1
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

/// One folder's recursive listing: a task that fetches up to `pagesAhead` pages ahead and hands
/// them over through a channel, in order.
///
/// Used only by the consumer loop of `ParallelListing.run`, on one task at a time.
private final class FolderListing {
  let prefix: String
  let pages = AsyncThrowingChannel<[ObjectEntry], any Error>()
  var drained = false
  private var task: Task<Void, Never>?

  init(prefix: String) {
    self.prefix = prefix
  }

  var isStarted: Bool { task != nil }

  func start(_ listing: ListPages, pagesAhead: Int) {
    let pages = self.pages
    task = Task {
      do {
        for try await element in listing.buffer(policy: .bounded(pagesAhead)) {
          await pages.send(element.page.items)
        }
        pages.finish()
      } catch {
        pages.fail(error)
      }
    }
  }

  func cancel() {
    task?.cancel()
    pages.finish()
  }
}
