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
    let deadline = clock.now + .seconds(30)
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
}
