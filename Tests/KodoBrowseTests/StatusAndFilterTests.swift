import KodoBrowse
import KodoTestSupport
import StorageCore
import Testing

@Suite("Browser status, copy, details and filter")
struct StatusAndFilterTests {
  static func folder(_ items: [ObjectEntry], prefixes: [String] = [], complete: Bool = true)
    -> State
  {
    var state = State(location: .folder(bucket: "b", prefix: ""), size: Size(width: 80, height: 24))
    let id = listRequests(state.update(.start))[0].id
    _ = state.update(
      .pageLoaded(
        id: id,
        .success(
          ListPage(commonPrefixes: prefixes, items: items, nextMarker: complete ? nil : "more"))))
    return state
  }

  @Test func keysWithControlCharactersAreNotCopied() {
    var state = Self.folder([object("t/nl\nnewline"), object("e\u{1B}[201~x"), object("ok.txt")])
    // In key order: the ESC key, ok.txt, the LF key.
    #expect(state.keys("yk").isEmpty)
    #expect(state.message?.hasPrefix("not copied: the key holds control") == true)
    _ = state.update(.key(.down))
    #expect(state.keys("yk") == [.copy(what: "key", text: "ok.txt")])
    _ = state.update(.key(.down))
    #expect(state.keys("yp").isEmpty)
    #expect(state.message?.hasPrefix("not copied: the path holds control") == true)
  }

  @Test func aCopyIsNeverClaimedToHaveReachedTheClipboard() {
    var state = Self.folder([object("a")])
    _ = state.update(.copied(what: "key", .success("a")))
    #expect(state.message == "key sent by OSC 52: a")
    state.insideTmux = true
    _ = state.update(.copied(what: "key", .success("a")))
    #expect(state.message == "key sent by OSC 52 (tmux needs set-clipboard on): a")
  }

  @Test func longDetailValuesAreCutWithAnEllipsis() {
    var entry = object("a.log")
    entry.hash = "FlHSv3tZSspQ3oZGS4GmAbCdEfGhIjKl"
    let state = Self.folder([entry])
    let lines = view(state).lines
    let hash = lines.first { $0.contains("hash ") } ?? ""
    #expect(hash.hasSuffix("hash       FlHSv3tZSspQ3oZGS4G…"), "\(lines)")
  }

  @Test func errorsAreShownWholeAndTheStatusSaysWhatFailed() {
    var state = State(
      location: .folder(bucket: "nosuch", prefix: ""), size: Size(width: 60, height: 12))
    let id = listRequests(state.update(.start))[0].id
    let failure = "no such bucket \"nosuch\" (631 no such bucket) (request id ABCDEFGHIJKLMNOP)"
    _ = state.update(.pageLoaded(id: id, .failure(Failure(failure))))
    let text = view(state).lines.joined(separator: "\n")
    #expect(text.contains("ABCDEFGHIJKLMNOP)"), "\(text)")
    #expect(!statusLine(state).contains("≥"))
    #expect(statusLine(state).contains("page 1 failed (A retries)"))
  }

  @Test func messagesDoNotFollowTheUserElsewhere() {
    var state = Self.folder([object("a.jpg")], prefixes: ["sub/"])
    _ = state.update(.downloadFinished(id: 0, name: "a.jpg", .failure(Failure("disk full"))))
    #expect(state.message != nil)
    _ = state.update(.key(.home))
    _ = state.update(.key(.enter))
    #expect(state.location == .folder(bucket: "b", prefix: "sub/"))
    #expect(state.message == nil)
  }

  @Test func spacesAtEitherEndOfANameAreShownQuoted() {
    let state = Self.folder(
      [object(" leading.txt"), object("trailing.txt "), object("in side.txt")], prefixes: [" lead/"]
    )
    let lines = view(state).lines
    #expect(lines[2].hasPrefix(#" " lead/""#), "\(lines)")
    #expect(lines.contains { $0.hasPrefix(#" " leading.txt""#) })
    #expect(lines.contains { $0.hasPrefix(#" "trailing.txt ""#) })
    #expect(lines.contains { $0.hasPrefix(" in side.txt ") })
    #expect(Format.name("a/") == "a/" && Format.name("") == #""""#)
  }

  @Test func oneEntryIsOneEntry() {
    #expect(statusLine(Self.folder([object("a")])).hasPrefix(" 1 entry"))
    #expect(statusLine(Self.folder([object("a"), object("b")])).hasPrefix(" 2 entries"))
    var buckets = State(location: .buckets, size: Size(width: 80, height: 24))
    _ = buckets.update(.start)
    _ = buckets.update(.bucketsLoaded(id: 1, .success([Bucket(name: "b")])))
    #expect(statusLine(buckets) == " 1 bucket")
  }

  @Test func aFilterMatchesAsStringContainsDoesEvenForCanonicalTwinsOfASCII() {
    var state = Self.folder([object("a;b"), object("a`b"), object("kelvin"), object("中文.txt")])
    for (needle, count) in [("\u{37E}", 1), ("\u{1FEF}", 1), ("\u{212A}", 1), ("文", 1), ("é", 0)] {
      _ = state.update(.key(.character("/")))
      _ = state.keys(needle)
      let names = ["a;b", "a`b", "kelvin", "中文.txt"]
      #expect(
        state.rows.count == names.filter { $0.lowercased().contains(needle.lowercased()) }.count)
      #expect(state.rows.count == count, "\(needle.debugDescription)")
      _ = state.update(.key(.escape))
    }
  }

  /// Typing, deleting and clearing a filter, with pages arriving and the sort changing between
  /// keys, always shows what one filter and sort of everything loaded shows, and keeps the
  /// selection on its row while it passes the filter.
  @Test func theIncrementalFilterMatchesAFullOne() {
    var random = SplitMix64(seed: 19)
    let parts = ["a", "B", "b", "é", "e\u{301}", "中", "-", ".", "0", "\r", "\n", "bE", "K"]
    for _ in 0..<200 {
      var names = Set<String>()
      for _ in 0..<Int.random(in: 0...60, using: &random) {
        names.insert(
          (0..<Int.random(in: 1...4, using: &random)).map { _ in
            parts[Int.random(in: 0..<parts.count, using: &random)]
          }.joined())
      }
      let keys = byBytes(Array(names)).map { "p/" + $0 }
      var state = State(
        location: .folder(bucket: "b", prefix: "p/"), size: Size(width: 80, height: 10))
      var id = listRequests(state.update(.start))[0].id
      var sent = 0
      func page() {
        let end = min(keys.count, sent + Int.random(in: 0...15, using: &random))
        let effects = state.update(
          .pageLoaded(
            id: id,
            .success(
              ListPage(
                commonPrefixes: sent == 0 ? ["p/a/", "p/B中/"] : [],
                items: keys[sent..<end].enumerated().map {
                  object($0.element, size: Int64(($0.offset * 7) % 5))
                }, nextMarker: end < keys.count ? "m\(end)" : nil))))
        sent = end
        id = listRequests(effects).first?.id ?? state.folder?.loading ?? id
      }
      page()
      _ = state.update(.key(.character("/")))
      for _ in 0..<30 {
        let before = state.selected?.id
        var filterOnly = true
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1, 2, 3:
          let part = parts[Int.random(in: 0..<parts.count, using: &random)]
          _ = state.keys(part)
        case 4, 5: _ = state.update(.key(.backspace))
        case 6:
          _ = state.update(.key(.down))
          filterOnly = false
        case 7:
          if state.folder?.loading != nil { page() }
          filterOnly = false
        case 8:
          _ = state.update(.key(.enter))
          _ = state.keys("o" + ["n", "s", "r"][Int.random(in: 0..<3, using: &random)])
          filterOnly = false
        default:
          _ = state.update(.key(.escape))
        }
        if state.mode != .filter { _ = state.update(.key(.character("/"))) }
        guard let folder = state.folder else {
          Issue.record("no folder")
          return
        }
        let objects = (0..<folder.objectCount).compactMap { folder.object($0) }.map {
          (entry: ObjectEntry) in
          ArrivalTests.Entry(
            name: String(decoding: entry.key.utf8.dropFirst(2), as: UTF8.self), size: entry.size,
            seconds: entry.putTime.unixSeconds)
        }
        let want = ArrivalTests.expected(
          folders: folder.folders.map { String(decoding: $0.utf8.dropFirst(2), as: UTF8.self) },
          objects: objects, prefix: "p/", key: state.sortKey, reversed: state.reversed,
          filter: state.filter)
        let shown = state.rows.map { Array($0.id.utf8) }
        #expect(shown == want, "filter \(state.filter.debugDescription)")
        if filterOnly, let before, shown.contains(Array(before.utf8)) {
          #expect(state.selected?.id == before)
        }
      }
    }
  }

  /// In a folder large enough for the filter to keep its names in one buffer (`FilterNames`),
  /// with names that need the slow comparison among them and a key outside the prefix, typing
  /// and deleting filters key by key shows what one filter of everything loaded shows.
  @Test func theFilterOverItsNameBufferMatchesAFullOne() {
    var random = SplitMix64(seed: 23)
    let parts = ["a", "B", "b", "é", "中", "-", ".", "0", "1", "\r", "K", "x"]
    var names = Set<String>()
    while names.count < 5_000 {
      names.insert(
        (0..<Int.random(in: 1...5, using: &random)).map { _ in
          parts[Int.random(in: 0..<parts.count, using: &random)]
        }.joined())
    }
    let keys = byBytes(Array(names)).map { "p/" + $0 }
    var state = State(
      location: .folder(bucket: "b", prefix: "p/"), size: Size(width: 80, height: 10))
    let id = listRequests(state.update(.start))[0].id
    _ = state.update(
      .pageLoaded(
        id: id,
        .success(
          ListPage(
            commonPrefixes: ["p/a/"], items: keys.map { object($0, size: 1) }, nextMarker: nil))))
    _ = state.update(.key(.character("/")))
    for _ in 0..<60 {
      if Int.random(in: 0..<3, using: &random) == 0 {
        _ = state.update(.key(.backspace))
      } else {
        _ = state.keys(parts[Int.random(in: 0..<parts.count, using: &random)])
      }
      if state.mode != .filter { _ = state.update(.key(.character("/"))) }
      let want =
        names.filter {
          state.filter.isEmpty || $0.lowercased().contains(state.filter.lowercased())
        }.count + (state.filter.isEmpty || "a".contains(state.filter.lowercased()) ? 1 : 0)
      #expect(state.rows.count == want, "filter \(state.filter.debugDescription)")
    }
  }

  /// The folder keeps the filter's name buffer in step with its objects: after deletes made
  /// between pages, and a page arriving after them, typing filters shows what one simple filter
  /// of what is left shows.
  @Test func theNameBufferFollowsDeletesAndLaterPages() {
    var random = SplitMix64(seed: 41)
    let parts = ["a", "B", "b", "é", "中", "-", ".", "0", "1", "\r", "K", "x"]
    var names = Set<String>()
    while names.count < 3_000 {
      names.insert(
        (0..<Int.random(in: 1...5, using: &random)).map { _ in
          parts[Int.random(in: 0..<parts.count, using: &random)]
        }.joined())
    }
    let sorted = byBytes(Array(names))
    let (first, second) = (Array(sorted.prefix(2_000)), Array(sorted.dropFirst(2_000)))
    var state = State(
      location: .folder(bucket: "b", prefix: "p/"), size: Size(width: 80, height: 10))
    let id = listRequests(state.update(.start))[0].id
    _ = state.update(
      .pageLoaded(
        id: id,
        .success(
          ListPage(
            items: first.map { object("p/" + $0, size: 1) }, nextMarker: "p/" + first[1_999]))))
    var left = names
    for _ in 0..<25 {
      for _ in 0..<Int.random(in: 0..<120, using: &random) { _ = state.update(.key(.down)) }
      _ = state.keys("d")
      for delete in state.keys("y").compactMap({ effect -> (Int, [String])? in
        if case .delete(let id, _, let objects, _) = effect { return (id, objects) }
        return nil
      }) {
        var report = DeleteReport()
        report.objects = delete.1
        report.deleted = delete.1.count
        for key in delete.1 { left.remove(String(key.dropFirst(2))) }
        _ = state.update(.deleteFinished(id: delete.0, report))
      }
    }
    #expect(left.count < names.count - 20)
    guard let next = listRequests(state.keys("A")).first?.id else {
      Issue.record("no request for the second page")
      return
    }
    _ = state.update(
      .pageLoaded(id: next, .success(ListPage(items: second.map { object("p/" + $0, size: 1) }))))
    _ = state.update(.key(.character("/")))
    for _ in 0..<80 {
      if Int.random(in: 0..<3, using: &random) == 0 {
        _ = state.update(.key(.backspace))
      } else {
        _ = state.keys(parts[Int.random(in: 0..<parts.count, using: &random)])
      }
      if state.mode != .filter { _ = state.update(.key(.character("/"))) }
      let needle = state.filter.lowercased()
      let want = byBytes(left.filter { needle.isEmpty || $0.lowercased().contains(needle) })
      #expect(
        state.rows.indices.map { state.rows[$0].id } == want.map { "p/" + $0 },
        "filter \(state.filter.debugDescription)")
    }
  }
}
