import KodoBrowse
import KodoTestSupport
import StorageCore
import Testing

@Suite("Browser pager")
struct PagerTests {
  static func opened(_ size: Int64, key: String = "big.log") -> (State, [Effect]) {
    var state = State(
      location: .folder(bucket: "logs", prefix: ""), size: Size(width: 80, height: 12))
    let id = listRequests(state.update(.start))[0].id
    _ = state.update(.pageLoaded(id: id, .success(ListPage(items: [object(key, size: size)]))))
    let effects = state.update(.key(.enter))
    return (state, effects)
  }

  static func fetches(_ effects: [Effect]) -> [(id: Int, range: ClosedRange<Int64>)] {
    effects.compactMap {
      if case .fetchRange(let id, _, _, let range) = $0 { return (id, range) }
      return nil
    }
  }

  /// Lines `line 00000` … of a text, as bytes from `offset` (11 bytes each).
  static func text(from offset: Int64, count: Int) -> [UInt8] {
    let all = (0..<20_000).map {
      "line " + String(repeating: "0", count: 5 - String($0).count) + "\($0)\n"
    }.joined()
    return Array(all.utf8.dropFirst(Int(offset)).prefix(count))
  }

  @Test func aHugeTextOpensFromItsFirstRangeAndScrollsByRanges() throws {
    let size: Int64 = 10 << 30
    var (state, effects) = Self.opened(size)
    var fetch = try #require(Self.fetches(effects).first)
    #expect(Self.fetches(effects).count == 1)
    #expect(fetch.range == 0...65_535)
    #expect(view(state).lines[1] == " loading …")
    effects = state.update(.rangeLoaded(id: fetch.id, .success(Self.text(from: 0, count: 65_536))))
    #expect(Self.fetches(effects).isEmpty)
    var lines = view(state).lines
    #expect(lines[1] == "line 00000" && lines[10] == "line 00009")
    #expect(lines[11].hasPrefix(" text · 10.0 GiB"))
    // Down a page at a time, until a line needs the next range: one request, then on.
    var asked: [(id: Int, range: ClosedRange<Int64>)] = []
    for _ in 0..<700 where asked.isEmpty {
      asked = Self.fetches(state.update(.key(.pageDown)))
    }
    fetch = try #require(asked.first)
    #expect(fetch.range == 65_536...131_071)
    _ = state.update(.rangeLoaded(id: fetch.id, .success(Self.text(from: 65_536, count: 65_536))))
    lines = view(state).lines
    #expect(lines[1].hasPrefix("line ") && lines[2].hasPrefix("line "))
    // q goes back to the folder.
    _ = state.update(.key(.character("q")))
    #expect(state.pager == nil)
    #expect(view(state).lines[2].hasPrefix(" big.log"))
  }

  @Test func controlCharactersInTextAreEscaped() throws {
    var (state, effects) = Self.opened(23, key: "evil.txt")
    let fetch = try #require(Self.fetches(effects).first)
    #expect(fetch.range == 0...22)
    effects = state.update(
      .rangeLoaded(id: fetch.id, .success(Array("a\u{1B}]0;pwned\u{7}b\r\nnext\u{202E}x\n".utf8))))
    let lines = view(state).lines
    #expect(lines[1] == #"a\u{1B}]0;pwned\u{7}b"#)
    #expect(lines[2] == #"next\u{202E}x"#)
  }

  @Test func binaryIsAHexDumpAndEndFetchesTheLastRange() throws {
    let size: Int64 = 1 << 20
    var (state, effects) = Self.opened(size, key: "blob.bin")
    var fetch = try #require(Self.fetches(effects).first)
    var first = [UInt8](repeating: 0x41, count: 65_536)
    first[1] = 0
    first[2] = 0x1B
    effects = state.update(.rangeLoaded(id: fetch.id, .success(first)))
    var lines = view(state).lines
    #expect(
      lines[1] == "0000000000  41 00 1b 41 41 41 41 41  41 41 41 41 41 41 41 41  |A..AAAAAAAAAAAAA|"
    )
    #expect(lines[11].hasPrefix(" hex · 1.0 MiB"))
    effects = state.update(.key(.character("G")))
    fetch = try #require(Self.fetches(effects).first)
    #expect(fetch.range == (size - 65_536)...(size - 1))
    _ = state.update(
      .rangeLoaded(id: fetch.id, .success([UInt8](repeating: 0x7A, count: 65_536))))
    lines = view(state).lines
    #expect(lines[10].hasPrefix("00000ffff0  7a 7a"))
    #expect(lines[0].hasSuffix(" 99%"))
  }

  @Test func aFailedRangeIsShownAndAKeyTriesAgain() throws {
    var (state, effects) = Self.opened(100)
    let fetch = try #require(Self.fetches(effects).first)
    _ = state.update(.rangeLoaded(id: fetch.id, .failure(Failure("no such key (612)"))))
    #expect(view(state).lines[1].contains("⚠ no such key (612)"))
    effects = state.update(.key(.down))
    #expect(Self.fetches(effects).count == 1)
    // Leaving while a range loads cancels it.
    let pending = try #require(Self.fetches(effects).first)
    #expect(state.update(.key(.left)) == [.cancel(id: pending.id)])
  }

  @Test func fewRangesAreKept() throws {
    let size: Int64 = 4 << 20
    var (state, effects) = Self.opened(size, key: "b.bin")
    var fetch = try #require(Self.fetches(effects).first)
    effects = state.update(
      .rangeLoaded(id: fetch.id, .success([UInt8](repeating: 0, count: 65_536))))
    // Page down through the whole hex dump, answering every request.
    var requests = 0
    for _ in 0..<40_000 {
      effects = state.update(.key(.pageDown))
      if let next = Self.fetches(effects).first {
        requests += 1
        fetch = next
        effects = state.update(
          .rangeLoaded(id: fetch.id, .success([UInt8](repeating: 1, count: fetch.range.count))))
      }
      if state.pager?.top ?? 0 >= size - 16 * 10 { break }
    }
    #expect(requests == 63)
    #expect(state.pager.map { $0.loadedRanges <= 8 } == true)
    #expect(state.pager.map { $0.top + 16 * 10 >= size } == true)
  }
}
