import KodoBrowse
import KodoTestSupport
import StorageCore
import Testing

@Suite("Browser state")
struct UpdateTests {
  static let size = Size(width: 80, height: 24)

  static func started(_ prefix: String = "") -> (State, Int) {
    var state = State(location: .folder(bucket: "photos", prefix: prefix), size: size)
    let effects = state.update(.start)
    let requests = listRequests(effects)
    return (state, requests.first?.id ?? -1)
  }

  @Test func startingInAFolderAsksForItsFirstPageAndTheBucketListForBuckets() {
    let (_, id) = Self.started("2024/")
    #expect(id > 0)
    var state = State(location: .buckets, size: Self.size)
    #expect(state.update(.start) == [.listBuckets(id: 1)])
    _ = state.update(
      .bucketsLoaded(id: 1, .success([Bucket(name: "b"), Bucket(name: "a")])))
    #expect(state.rows.map(\.id) == ["b", "a"])
    let open = state.update(.key(.enter))
    #expect(listRequests(open).count == 1)
    #expect(state.location == .folder(bucket: "b", prefix: ""))
  }

  @Test func foldersComeFirstAcrossPagesAndTheCursorStaysOnItsKey() {
    var (state, id) = Self.started()
    var effects = state.update(
      .pageLoaded(
        id: id,
        .success(
          ListPage(
            commonPrefixes: ["m/"], items: (0..<30).map { object("f\($0)") }, nextMarker: "p2"))))
    #expect(state.rows.first?.id == "m/")
    _ = state.update(.key(.character("j")))
    _ = state.update(.key(.character("j")))
    #expect(state.selected?.id == "f1")
    let line = state.cursor - state.top
    // The second page was asked for (fewer than three screens below the cursor).
    guard let next = listRequests(effects).first else {
      Issue.record("no second page requested")
      return
    }
    #expect(next.marker == "p2")
    effects = state.update(
      .pageLoaded(
        id: next.id,
        .success(
          ListPage(
            commonPrefixes: ["a/", "m/"], items: [object("z1")], nextMarker: nil))))
    #expect(state.rows.map(\.id).prefix(3) == ["a/", "m/", "f0"])
    #expect(state.selected?.id == "f1")
    #expect(state.cursor - state.top == line)
    #expect(state.folder?.complete == true)
    #expect(state.rows.count == 33)
    #expect(listRequests(effects).isEmpty)
  }

  @Test func staleResultsAreDroppedByRequestID() {
    var (state, id) = Self.started()
    _ = state.update(.pageLoaded(id: id + 100, .success(ListPage(items: [object("x")]))))
    #expect(state.rows.isEmpty)
    _ = state.update(.pageLoaded(id: id, .success(ListPage(items: [object("y")]))))
    _ = state.update(.pageLoaded(id: id, .success(ListPage(items: [object("y2")]))))
    #expect(state.rows.map(\.id) == ["y"])
  }

  @Test func leavingCancelsButKeepsTheMarkerAndReturningResumes() {
    var (state, id) = Self.started()
    _ = state.update(
      .pageLoaded(
        id: id,
        .success(ListPage(commonPrefixes: ["sub/"], items: [object("a")], nextMarker: "m1"))))
    let pending = state.folder?.loading
    #expect(pending != nil)
    let into = state.update(.key(.enter))
    #expect(into.contains(.cancel(id: pending ?? -1)))
    #expect(state.location == .folder(bucket: "photos", prefix: "sub/"))
    // The cancelled request's page arrives late: dropped.
    _ = state.update(.pageLoaded(id: pending ?? -1, .success(ListPage(items: [object("late")]))))
    let back = state.update(.key(.character("h")))
    #expect(state.location == .folder(bucket: "photos", prefix: ""))
    #expect(state.selected?.id == "sub/")
    #expect(state.rows.map(\.id) == ["sub/", "a"])
    #expect(listRequests(back).map(\.marker) == ["m1"])
  }

  @Test func pagesInAnyOrderWithStaleOnesGiveTheSameFolder() {
    var random = SplitMix64(seed: 99)
    for _ in 0..<200 {
      let keys = (0..<Int.random(in: 1...60, using: &random)).map { "k\($0 * 7 % 61)" }
      var folders = Set<String>()
      var pages: [ListPage] = []
      var index = 0
      while index < keys.count {
        let count = Int.random(in: 0...10, using: &random)
        let end = min(keys.count, index + count)
        let prefixes = (0..<Int.random(in: 0...2, using: &random)).map { _ in
          "d\(Int.random(in: 0...5, using: &random))/"
        }
        folders.formUnion(prefixes)
        pages.append(
          ListPage(
            commonPrefixes: prefixes, items: keys[index..<end].map { object($0) },
            nextMarker: end < keys.count ? "m\(pages.count)" : nil))
        index = end
      }
      if pages.last?.nextMarker != nil { pages.append(ListPage()) }
      var state = State(
        location: .folder(bucket: "b", prefix: ""), size: Size(width: 80, height: 3))
      var effects = state.update(.start)
      var selected: String?
      _ = effects
      for page in pages {
        if state.folder?.loading == nil { effects = state.keys("A") }
        guard let id = state.folder?.loading else {
          Issue.record("no page requested")
          break
        }
        let request = (id: id, marker: String?.none)
        // A stale page and random keys arrive before the real one.
        effects = state.update(
          .pageLoaded(id: request.id - 1, .success(ListPage(items: [object("stale")]))))
        #expect(!state.rows.contains { $0.id == "stale" })
        for _ in 0..<Int.random(in: 0...3, using: &random) {
          effects += state.update(.key(Bool.random(using: &random) ? .down : .up))
        }
        selected = state.selected?.id
        let line = state.cursor - state.top
        effects += state.update(.pageLoaded(id: request.id, .success(page)))
        if let selected {
          #expect(state.selected?.id == selected)
          #expect(state.cursor - state.top == line)
        }
        effects += state.update(.key(.end))
      }
      #expect(state.folder?.complete == true)
      let ids = state.rows.map(\.id)
      // Folders first, then the keys, each by bytes, whatever order the entries arrived in.
      #expect(ids == byBytes(Array(folders)) + byBytes(keys))
      #expect(Set(ids).count == ids.count)
    }
  }

  @Test func filterSortAndTheirHonestStatus() {
    var (state, id) = Self.started()
    _ = state.update(
      .pageLoaded(
        id: id,
        .success(
          ListPage(
            items: [
              object("日志-1.log", size: 5, seconds: 30), object("b.jpg", size: 50, seconds: 10),
              object("日志-2.log", size: 500, seconds: 20),
            ], nextMarker: "more"))))
    _ = state.update(.key(.character("/")))
    _ = state.keys("日志")
    #expect(state.rows.map(\.id) == ["日志-1.log", "日志-2.log"])
    #expect(statusLine(state).contains("filter \"日志\": 2 of 3 loaded"))
    _ = state.update(.key(.enter))
    #expect(state.mode == .normal)
    // Smallest and oldest first, as the CLI's --sort; `r` reverses until the next key.
    _ = state.keys("os")
    #expect(state.rows.map(\.id) == ["日志-1.log", "日志-2.log"])
    #expect(statusLine(state).contains("sorted by size among loaded"))
    #expect(statusLine(state).contains("≥ 3 entries, loading"))
    _ = state.keys("or")
    #expect(state.rows.map(\.id) == ["日志-2.log", "日志-1.log"])
    _ = state.update(.key(.escape))
    #expect(state.rows.count == 3)
    _ = state.keys("ot")
    #expect(!state.reversed)
    #expect(state.rows.map(\.id) == ["b.jpg", "日志-2.log", "日志-1.log"])
    _ = state.keys("or")
    #expect(state.rows.map(\.id) == ["日志-1.log", "日志-2.log", "b.jpg"])
  }

  @Test func goToAndUpCutPathsAtSlashBytes() {
    var (state, _) = Self.started("")
    _ = state.update(.key(.character(":")))
    // Typed text replaces the path shown (selected); → keeps it and appends.
    _ = state.keys("photos/a/\u{301}x")
    _ = state.update(.key(.enter))
    #expect(state.location == .folder(bucket: "photos", prefix: "a/"))
    _ = state.update(.key(.character(":")))
    _ = state.update(.key(.right))
    _ = state.keys("\u{301}/")
    _ = state.update(.key(.enter))
    #expect(state.location == .folder(bucket: "photos", prefix: "a/\u{301}/"))
    _ = state.update(.key(.backspace))
    #expect(state.location == .folder(bucket: "photos", prefix: "a/"))
  }

  @Test func copyGoToDownloadPickAndQuit() {
    var (state, id) = Self.started("2024/")
    _ = state.update(.pageLoaded(id: id, .success(ListPage(items: [object("2024/a.jpg")]))))
    #expect(state.keys("yk") == [.copy(what: "key", text: "2024/a.jpg")])
    #expect(state.keys("yp") == [.copy(what: "path", text: "photos/2024/a.jpg")])
    #expect(state.keys("yu") == [.copyURL(bucket: "photos", key: "2024/a.jpg")])
    #expect(
      downloads(state.keys("s")) == [
        SentDownload(bucket: "photos", key: "2024/a.jpg", size: 100, path: nil)
      ])
    _ = state.keys("S")
    #expect(state.mode == .saveAs(LineEditor("a.jpg")))
    for _ in 0..<3 { _ = state.update(.key(.backspace)) }
    _ = state.keys("png")
    #expect(
      downloads(state.update(.key(.enter))) == [
        SentDownload(bucket: "photos", key: "2024/a.jpg", size: 100, path: "a.png")
      ])
    _ = state.update(.key(.character(":")))
    #expect(state.mode == .goTo(LineEditor("photos/2024/", selectAll: true)))
    _ = state.update(.key(.right))
    for _ in 0..<5 { _ = state.update(.key(.backspace)) }
    _ = state.keys("2025/x.txt")
    let go = state.update(.key(.enter))
    #expect(state.location == .folder(bucket: "photos", prefix: "2025/"))
    #expect(state.wanted == "2025/x.txt")
    #expect(listRequests(go).map(\.marker) == [nil])
    #expect(state.update(.key(.controlC)) == [.quit(130)])
    // The two downloads asked for above still run: q asks first.
    #expect(state.update(.key(.character("q"))).isEmpty)
    #expect(state.update(.key(.character("y"))) == [.quit(0)])
    var pick = State(location: .folder(bucket: "b", prefix: ""), size: Self.size, pick: true)
    let first = listRequests(pick.update(.start))[0].id
    _ = pick.update(.pageLoaded(id: first, .success(ListPage(items: [object("k")]))))
    #expect(pick.update(.key(.enter)) == [.pick(bucket: "b", key: "k")])
  }

  @Test func theCacheIsBoundedAndKeepsTheCurrentFolder() {
    var state = State(location: .folder(bucket: "b", prefix: ""), size: Self.size)
    state.cacheLimit = 10
    var effects = state.update(.start)
    for folder in 0..<5 {
      let id = listRequests(effects)[0].id
      _ = state.update(
        .pageLoaded(
          id: id, .success(ListPage(items: (0..<6).map { object("f\(folder)/\($0)") }))))
      effects = state.update(.key(.character(":")))
      for _ in 0..<20 { _ = state.update(.key(.backspace)) }
      effects = state.keys("b/f\(folder + 1)/")
      effects = state.update(.key(.enter))
    }
    let cached = state.folders.values.reduce(0) { $0 + $1.count }
    #expect(cached <= 10 + (state.folder?.count ?? 0))
    #expect(state.folders[.folder(bucket: "b", prefix: "f5/")] != nil)
  }

  @Test func detailsAreAskedForTheSelectedObjectAndStaleOnesDropped() {
    var (state, id) = Self.started()
    let effects = state.update(
      .pageLoaded(id: id, .success(ListPage(items: [object("a"), object("b")]))))
    let stats = effects.compactMap { effect -> Int? in
      if case .stat(let id, _, "a") = effect { return id }
      return nil
    }
    #expect(stats.count == 1)
    let moved = state.update(.key(.down))
    #expect(moved.contains(.cancel(id: stats[0])))
    _ = state.update(
      .statLoaded(id: stats[0], .success(ObjectDetails(object: object("a", size: 9)))))
    #expect(state.details[ExactKey("a")] == nil)
  }

  @Test func detailsOfOneBucketAreNotShownForAnother() {
    var (state, id) = Self.started()
    func stat(_ effects: [Effect], bucket wanted: String) -> Int? {
      for case .stat(let id, let bucket, "a") in effects where bucket == wanted { return id }
      return nil
    }
    let first = state.update(.pageLoaded(id: id, .success(ListPage(items: [object("a")]))))
    let asked = stat(first, bucket: "photos")
    #expect(asked != nil)
    _ = state.update(.statLoaded(id: asked ?? -1, .success(ObjectDetails(object: object("a")))))
    #expect(state.details[ExactKey("a")] != nil)
    _ = state.update(.key(.character(":")))
    for _ in 0..<"photos/".count { _ = state.update(.key(.backspace)) }
    _ = state.keys("other/")
    let entered = state.update(.key(.enter))
    let other = listRequests(entered).first?.id ?? -1
    let loaded = state.update(.pageLoaded(id: other, .success(ListPage(items: [object("a")]))))
    #expect(stat(loaded, bucket: "other") != nil, "\(loaded)")
  }

  // "caf\u{E9}" (as typed on Linux) and "cafe\u{301}" (as a Mac names files) are equal Strings
  // and two objects.
  @Test func keysThatAreEqualStringsButOtherBytesStayApart() {
    let composed = "caf\u{E9}/"
    let decomposed = "cafe\u{301}/"
    #expect(composed == decomposed, "Swift's String equality is canonical")
    var (state, id) = Self.started()
    let effects = state.update(
      .pageLoaded(
        id: id,
        .success(ListPage(commonPrefixes: [composed, decomposed], items: [], nextMarker: "m"))))
    #expect(state.rows.count == 2)
    // By bytes, "cafe" + U+0301 comes first: the cursor goes to the composed one.
    #expect(state.rows.map { Array($0.id.utf8) } == [Array(decomposed.utf8), Array(composed.utf8)])
    _ = state.update(.key(.down))
    #expect(state.selected.map { Array($0.id.utf8) } == Array(composed.utf8))
    // A page that puts a folder above them: the cursor follows its own key, not its twin.
    let next = listRequests(effects).first?.id
    _ = state.update(
      .pageLoaded(
        id: next ?? -1, .success(ListPage(commonPrefixes: ["a/"], items: [], nextMarker: nil))))
    #expect(state.rows.count == 3)
    #expect(state.selected.map { Array($0.id.utf8) } == Array(composed.utf8))
    #expect(
      Location.folder(bucket: "b", prefix: composed) != .folder(bucket: "b", prefix: decomposed))
  }
}
