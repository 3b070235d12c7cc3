import KodoTestSupport
import StorageCore
import Synchronization
import Testing

/// The concurrent listing: the sequential order whatever the tree, page size and concurrency,
/// and folders started as fetching slots free up, within the bound on folders not yet consumed.
@Suite("ParallelListing")
struct ParallelListingTests {
  /// A bucket as a service lists it: keys in byte order, pages of `limit` entries after a marker,
  /// folders at the delimiter. One folder's first page can be held back until `release()`.
  final class Bucket: Sendable {
    let keys: [String]
    let held: String?
    private let state = Mutex(State())

    struct State {
      var started: [String] = []
      var inFlight = 0
      var mostInFlight = 0
      var gate: CheckedContinuation<Void, Never>?
      var released = false
    }

    init(_ keys: [String], holding held: String? = nil) {
      self.keys = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      self.held = held
    }

    /// The folders whose listing has started, in the order they started.
    var started: [String] { state.withLock { $0.started } }
    /// The most folder requests answered at once.
    var mostInFlight: Int { state.withLock { $0.mostInFlight } }

    func release() {
      let gate = state.withLock { state in
        state.released = true
        defer { state.gate = nil }
        return state.gate
      }
      gate?.resume()
    }

    var fetch: PageFetcher {
      { request throws(StorageError) in await self.answer(request) }
    }

    private func answer(_ request: ListRequest) async -> PageAnswer {
      if request.delimiter == nil {
        let first = request.marker == nil
        let holding = state.withLock { state in
          if first { state.started.append(request.prefix) }
          state.inFlight += 1
          state.mostInFlight = max(state.mostInFlight, state.inFlight)
          return first && request.prefix == held && !state.released
        }
        if holding {
          await withCheckedContinuation { gate in
            let open = state.withLock { state in
              if state.released { return true }
              state.gate = gate
              return false
            }
            if open { gate.resume() }
          }
        }
        // Let other requests overlap this one.
        await Task.yield()
        state.withLock { $0.inFlight -= 1 }
      }
      return PageAnswer(page(request))
    }

    private func page(_ request: ListRequest) -> ListPage {
      var page = ListPage()
      var last: String?
      for key in keys where key.hasPrefix(request.prefix) {
        if let marker = request.marker, !marker.utf8.lexicographicallyPrecedes(key.utf8) {
          continue
        }
        var entry = key
        var isFolder = false
        if request.delimiter != nil,
          let cut = key.utf8.dropFirst(request.prefix.utf8.count).firstIndex(of: UInt8(ascii: "/"))
        {
          entry = String(key[..<key.utf8.index(after: cut)])
          isFolder = true
          if entry == last { continue }
          if let marker = request.marker, !marker.utf8.lexicographicallyPrecedes(entry.utf8) {
            continue
          }
        }
        if page.entryCount == request.limit {
          page.nextMarker = last
          return page
        }
        if isFolder {
          page.commonPrefixes.append(entry)
        } else {
          page.items.append(
            ObjectEntry(
              key: key, size: 1, putTime: Timestamp(unixSeconds: 0),
              storageClass: StorageClass(name: "standard", serviceName: "Standard")))
        }
        last = isFolder ? entry : key
      }
      return page
    }
  }

  static func list(_ bucket: Bucket, pageSize: Int, concurrency: Int) async throws -> [String] {
    var keys: [String] = []
    try await ParallelListing(
      fetch: bucket.fetch, bucket: "b", prefix: "", pageSize: pageSize, concurrency: concurrency,
      pagesAhead: 2
    ).run { objects in keys += objects.map(\.key) }
    return keys
  }

  /// Any tree of keys, any page size and concurrency: exactly the keys, in byte order.
  @Test(arguments: 0..<40)
  func yieldsTheSequentialOrder(seed: UInt64) async throws {
    var random = SplitMix64(seed: seed)
    let parts = ["a", "a-b", "a0", "b", "é", "z"]
    var keys = Set<String>()
    for _ in 0..<Int.random(in: 0...40, using: &random) {
      var key = ""
      for level in 0..<Int.random(in: 1...3, using: &random) {
        if level > 0 { key += "/" }
        key += parts.randomElement(using: &random) ?? "a"
      }
      if Bool.random(using: &random) { key += "/" }
      keys.insert(key)
    }
    let bucket = Bucket(Array(keys))
    let listed = try await Self.list(
      bucket, pageSize: Int.random(in: 1...4, using: &random),
      concurrency: Int.random(in: 1...4, using: &random))
    #expect(listed == bucket.keys, "seed \(seed)")
  }

  /// While the consumer waits on a folder whose answer is late, the folders after it are fetched:
  /// one that has its last page frees its fetching slot, up to twice `concurrency` folders not
  /// yet consumed; never more than `concurrency` requests at once.
  @Test func aLateFolderDoesNotHoldBackTheFetchingOfLaterOnes() async throws {
    let folders = (0..<20).map { "f\($0 < 10 ? "0" : "")\($0)/" }
    let bucket = Bucket(folders.map { $0 + "k" }, holding: "f00/")
    let listing = Task { try await Self.list(bucket, pageSize: 10, concurrency: 3) }
    let clock = ContinuousClock()
    // Generous: at the start of `make test` every thread of the pool has many tests to run.
    let deadline = Patience.deadline
    while bucket.started.count < 6 && clock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(bucket.started.sorted() == Array(folders.prefix(6)))
    // No more start until the consumer has taken a folder.
    for _ in 0..<200 { await Task.yield() }
    #expect(bucket.started.count == 6)
    bucket.release()
    let listed = try await listing.value
    #expect(listed == folders.map { $0 + "k" })
    #expect(bucket.started.sorted() == folders)
    #expect(bucket.mostInFlight <= 3)
  }
}
