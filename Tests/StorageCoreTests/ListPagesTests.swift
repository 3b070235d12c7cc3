import KodoTestSupport
import StorageCore
import Synchronization
import Testing

/// The one paging loop: markers followed, the next request sent ahead of decoding, and the
/// no-progress rules.
@Suite("ListPages")
struct ListPagesTests {
  /// A scripted service: pages by marker, recording the requests.
  final class Script: Sendable {
    let pages: [String: (entries: [String], next: String?)]
    let requests = Mutex<[String?]>([])

    init(_ pages: [String: (entries: [String], next: String?)]) { self.pages = pages }

    var fetch: PageFetcher {
      { request throws(StorageError) in
        self.requests.withLock { $0.append(request.marker) }
        guard let page = self.pages[request.marker ?? ""] else {
          throw StorageError(.protocolError, "no page for \(request.marker ?? "start")")
        }
        let items = page.entries.map {
          ObjectEntry(
            key: $0, size: 1, putTime: Timestamp(unixSeconds: 0),
            storageClass: StorageClass(name: "standard", serviceName: "Standard"))
        }
        return PageAnswer(ListPage(items: items, nextMarker: page.next))
      }
    }
  }

  @Test func theNextRequestIsSentBeforeThePageIsConsumed() async throws {
    let script = Script(["": (["a"], "m1"), "m1": (["b"], "m2"), "m2": (["c"], nil)])
    var iterator = ListPages(ListRequest(bucket: "b"), fetch: script.fetch).makeAsyncIterator()
    let first = try await iterator.next()
    #expect(first?.page.items.map(\.key) == ["a"])
    // Without being asked for another page, the listing has already asked for it.
    let clock = ContinuousClock()
    let deadline = Patience.deadline
    while script.requests.withLock({ $0.count }) < 2 && clock.now < deadline {
      await Task.yield()
    }
    #expect(script.requests.withLock { $0 } == [nil, "m1"])
    var keys = first?.page.items.map(\.key) ?? []
    while let element = try await iterator.next() { keys += element.page.items.map(\.key) }
    #expect(keys == ["a", "b", "c"])
    #expect(script.requests.withLock { $0 } == [nil, "m1", "m2"], "no request is sent twice")
  }

  @Test func anEntryLimitAsksForNoMoreThanRemains() async throws {
    let script = Script(["": (["a", "b"], "m1"), "m1": (["c"], "m2"), "m2": (["d"], nil)])
    var keys: [String] = []
    var last: String?
    for try await element in ListPages(
      ListRequest(bucket: "b", limit: 2), fetch: script.fetch, entryLimit: 3)
    {
      keys += element.page.items.map(\.key)
      last = element.page.nextMarker
    }
    #expect(keys == ["a", "b", "c"])
    #expect(last == "m2", "the last page's marker resumes after the limit")
    #expect(script.requests.withLock { $0 } == [nil, "m1"])
  }

  @Test func aMarkerSeenBeforeIsAnError() async {
    let script = Script(["": (["a"], "m1"), "m1": (["b"], "m2"), "m2": (["c"], "m1")])
    await #expect(throws: StorageError.self) {
      for try await _ in ListPages(ListRequest(bucket: "b"), fetch: script.fetch) {}
    }
  }

  @Test func endlessEmptyPagesAreAnError() async {
    let counter = Mutex(0)
    let fetch: PageFetcher = { _ throws(StorageError) in
      let next = counter.withLock { count -> Int in
        count += 1
        return count
      }
      return PageAnswer(ListPage(nextMarker: "m\(next)"))
    }
    let runs = Mutex<[Int]>([])
    var caught: StorageError?
    do {
      for try await _ in ListPages(
        ListRequest(bucket: "b"), fetch: fetch, maximumEmptyPages: 50,
        onEmptyPages: { count in runs.withLock { $0.append(count) } })
      {}
    } catch {
      caught = error
    }
    #expect(caught?.kind == .protocolError)
    #expect(caught?.message.contains("51 pages in a row brought no entry") == true)
    #expect(runs.withLock { $0.last } == 51)
    #expect(counter.withLock { $0 } <= 52, "at most one request ahead")
  }

  /// A service whose fetches report their page's marker early (`early`, else the true one),
  /// then wait until `release` lets them end; page `mN` continues with `mN+1` up to `last`.
  final class EarlyScript: Sendable {
    let last: Int
    let early: [String: String]
    let started = Mutex<[String?]>([])
    let reported = Mutex<[String?]>([])
    let released = Mutex<Set<String>>([])
    let releaseAll: Bool

    init(last: Int, early: [String: String] = [:], releaseAll: Bool = true) {
      self.last = last
      self.early = early
      self.releaseAll = releaseAll
    }

    static func index(_ marker: String?) -> Int { marker.flatMap { Int($0.dropFirst()) } ?? 0 }

    func next(after marker: String?) -> String? {
      let index = Self.index(marker)
      return index < last ? "m\(index + 1)" : nil
    }

    var fetch: PageFetcher {
      { request throws(StorageError) in
        let marker = request.marker
        self.started.withLock { $0.append(marker) }
        let next = self.next(after: marker)
        MarkerWatch.current?.report(self.early[marker ?? ""] ?? next)
        self.reported.withLock { $0.append(marker) }
        let deadline = Patience.deadline
        while !self.releaseAll, !self.released.withLock({ $0.contains(marker ?? "") }),
          ContinuousClock.now < deadline
        {
          if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
          try? await Task.sleep(for: .milliseconds(1))
        }
        let items = [
          ObjectEntry(
            key: "k\(Self.index(marker) + 100)", size: 1, putTime: Timestamp(unixSeconds: 0),
            storageClass: StorageClass(name: "standard", serviceName: "Standard"))
        ]
        return PageAnswer(ListPage(items: items, nextMarker: next))
      }
    }

    func release(_ marker: String?) { released.withLock { _ = $0.insert(marker ?? "") } }

    func waitUntil(_ condition: () -> Bool) async {
      let deadline = Patience.deadline
      while !condition() && ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(1))
      }
    }
  }

  @Test func theNextRequestGoesWhenTheMarkerIsReportedBeforeTheAnswerEnds() async throws {
    let script = EarlyScript(last: 3, releaseAll: false)
    let consumer = Task {
      var keys: [String] = []
      for try await element in ListPages(ListRequest(bucket: "b"), fetch: script.fetch) {
        keys += element.page.items.map(\.key)
      }
      return keys
    }
    // The first answer is held until the second request has gone: only its early marker can
    // have sent it.
    await script.waitUntil { script.started.withLock { $0.count } >= 2 }
    #expect(script.started.withLock { $0 }.prefix(2) == [nil, "m1"])
    for marker in [nil, "m1", "m2", "m3"] { script.release(marker) }
    #expect(try await consumer.value == ["k100", "k101", "k102", "k103"])
    #expect(script.started.withLock { $0 } == [nil, "m1", "m2", "m3"], "no request twice")
  }

  @Test func noMoreThanTheDepthOfRequestsGoAhead() async throws {
    let script = EarlyScript(last: 50, releaseAll: false)
    script.release(nil)
    var iterator = ListPages(ListRequest(bucket: "b"), fetch: script.fetch).makeAsyncIterator()
    let first = try await iterator.next()
    #expect(first?.page.items.map(\.key) == ["k100"])
    // Every fetch reports its marker at once; the last one allowed has reported when it ran.
    await script.waitUntil { script.reported.withLock { $0.count } >= 3 }
    #expect(script.started.withLock { $0 } == [nil, "m1", "m2"])
    for index in 1...50 { script.release("m\(index)") }
    var count = 1
    while try await iterator.next() != nil { count += 1 }
    #expect(count == 51)
    #expect(script.started.withLock { $0.count } == 51, "each page requested once")
  }

  @Test func aWrongEarlyMarkerCostsARequestNotAnEntry() async throws {
    // Page m1's answer says early that m9 follows, but the page itself says m2.
    let script = EarlyScript(last: 3, early: ["m1": "m9"])
    var keys: [String] = []
    for try await element in ListPages(ListRequest(bucket: "b"), fetch: script.fetch) {
      keys += element.page.items.map(\.key)
    }
    #expect(keys == ["k100", "k101", "k102", "k103"])
    let started = script.started.withLock { $0 }
    #expect(started.filter { $0 != "m9" } == [nil, "m1", "m2", "m3"])
    #expect(started.filter { $0 == "m9" }.count <= 1)
  }

  @Test func cancellingTheConsumerCancelsTheRequestsAhead() async throws {
    let script = EarlyScript(last: 50, releaseAll: false)
    let consumer = Task {
      for try await _ in ListPages(ListRequest(bucket: "b"), fetch: script.fetch) {}
    }
    await script.waitUntil { script.reported.withLock { $0.count } >= 3 }
    consumer.cancel()
    let result = await consumer.result
    #expect(throws: StorageError.self) { try result.get() }
    #expect(script.started.withLock { $0.count } == 3, "nothing more was sent")
  }
}
