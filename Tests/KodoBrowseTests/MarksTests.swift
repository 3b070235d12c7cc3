import KodoBrowse
import KodoTestSupport
import StorageCore
import Testing

@Suite("Browser marks")
struct MarksTests {
  @Test func spaceMarksAndMovesStarMarksAllShownThenNone() {
    var state = State.showing(
      ListPage(commonPrefixes: ["d/"], items: [object("a.jpg"), object("b.png"), object("c.jpg")]))
    _ = state.keys(" ")
    #expect(state.marks == [ExactKey("d/")] && state.selected?.id == "a.jpg")
    _ = state.keys("  ")
    #expect(state.marks.count == 3)
    let lines = view(state).lines
    #expect(
      lines[2].hasPrefix("*d/") && lines[3].hasPrefix("*a.jpg") && lines[5].hasPrefix(" c.jpg"))
    #expect(statusLine(state).contains("3 marked"))
    // Back over a marked row: Space unmarks it.
    _ = state.update(.key(.up))
    _ = state.keys(" ")
    #expect(state.marks.count == 2)
    // `*` marks what the filter shows; again, it unmarks them.
    _ = state.keys("/jpg")
    _ = state.update(.key(.enter))
    _ = state.keys("*")
    #expect(Set(state.marks.map(\.text)) == ["d/", "a.jpg", "c.jpg"])
    _ = state.keys("*")
    #expect(state.marks == [ExactKey("d/")])
    // Leaving the folder drops them.
    _ = state.update(.key(.escape))
    _ = state.update(.key(.home))
    _ = state.update(.key(.enter))
    #expect(state.marks.isEmpty)
    #expect(!statusLine(state).contains("marked"))
  }

  /// Any sequence of marks, filters, sorts, moves and page arrivals keeps the state consistent:
  /// every mark names a loaded entry and stays until unmarked, the cursor is on a row (the
  /// selected one), and the rows are the loaded entries the filter passes, each once.
  @Test func marksRowsAndCursorStayConsistent() {
    var random = SplitMix64(seed: 31)
    let parts = ["a", "B", "é", "e\u{301}", "中", ".", "0", "x"]
    for _ in 0..<150 {
      var names = Set<String>()
      for _ in 0..<Int.random(in: 0...50, using: &random) {
        names.insert(
          (0..<Int.random(in: 1...3, using: &random)).map { _ in
            parts[Int.random(in: 0..<parts.count, using: &random)]
          }.joined())
      }
      let keys = byBytes(Array(names))
      var state = State(
        location: .folder(bucket: "b", prefix: ""),
        size: Size(width: 80, height: Int.random(in: 6...14, using: &random)))
      var id = listRequests(state.update(.start)).first?.id
      var sent = 0
      var expected = Set<ExactKey>()
      for _ in 0..<60 {
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1, 2:
          if let row = state.selected {
            let key = ExactKey(row.id)
            if expected.remove(key) == nil { expected.insert(key) }
          }
          _ = state.keys(" ")
        case 3:
          let shown = Set(state.rows.indices.map { ExactKey(state.rows[$0].id) })
          if !shown.isEmpty {
            if shown.isSubset(of: expected) {
              expected.subtract(shown)
            } else {
              expected.formUnion(shown)
            }
          }
          _ = state.keys("*")
        case 4: _ = state.keys("o" + ["n", "s", "t", "r"][Int.random(in: 0..<4, using: &random)])
        case 5:
          _ = state.keys("/" + parts[Int.random(in: 0..<parts.count, using: &random)])
          _ = state.update(.key(.enter))
        case 6: _ = state.update(.key(.escape))
        case 7, 8:
          _ = state.update(.key(Bool.random(using: &random) ? .down : .pageUp))
        default:
          guard let pending = id ?? state.folder?.loading, sent < keys.count else { break }
          let end = min(keys.count, sent + Int.random(in: 0...9, using: &random))
          let effects = state.update(
            .pageLoaded(
              id: pending,
              .success(
                ListPage(
                  commonPrefixes: sent == 0 ? ["f/", "g中/"] : [],
                  items: keys[sent..<end].map { object($0, size: Int64($0.utf8.count)) },
                  nextMarker: end < keys.count ? "m\(end)" : nil))))
          sent = end
          id = listRequests(effects).first?.id
        }
        #expect(state.marks == expected)
        let loaded = Set(
          (state.folder?.folders ?? []).map(ExactKey.init)
            + (0..<(state.folder?.objectCount ?? 0)).compactMap { state.folder?.object($0) }.map {
              ExactKey($0.key)
            })
        #expect(state.marks.isSubset(of: loaded))
        let shown = state.rows.indices.map { ExactKey(state.rows[$0].id) }
        #expect(Set(shown).count == shown.count)
        #expect(Set(shown).isSubset(of: loaded))
        if shown.isEmpty {
          #expect(state.cursor == 0)
        } else {
          #expect(state.rows.indices.contains(state.cursor))
          #expect(state.selectedID.map { ExactKey($0) } == shown[state.cursor])
          #expect(state.top <= state.cursor && state.cursor < state.top + state.listHeight)
        }
      }
    }
  }
}
