import KodoBrowse
import StorageCore
import Testing

@Suite("Browser screens")
struct ViewTests {
  static func sample(_ size: Size, color: Bool = false) -> State {
    var state = State.showing(
      ListPage(
        commonPrefixes: ["2024/05/日志/", "2024/05/raw/"],
        items: [
          object("2024/05/a.jpg", size: 66_441, seconds: 1_715_514_660),
          object("2024/05/b 中文.png", size: 1_258_291, seconds: 1_715_514_720),
          object("2024/05/evil\u{1B}]52;c;aGk=\u{7}\u{202E}gpj.exe", size: 512),
          object(
            "2024/05/a-very-long-name-that-does-not-fit-in-the-column-at-all-👍.jpeg", size: 3),
        ], nextMarker: "next"),
      bucket: "photos", prefix: "2024/05/", size: size, color: color)
    // Onto a.jpg: the long name sorts before it (by bytes, `-` before `.`).
    for _ in 0..<3 { _ = state.update(.key(.down)) }
    return state
  }

  @Test func screenAt80x24() {
    let screen = view(Self.sample(Size(width: 80, height: 24)))
    // The position (4/6) and a column header; folders first; the cursor's object in the pane;
    // the hostile key escaped and cut by cells with its extension kept; Chinese names aligned;
    // an honest partial count.
    #expect(
      screen.lines == [
        #" kodo · photos / 2024 / 05 /                                                4/6"#,
        #" name                                     size │ a.jpg"#,
        #" raw/                                        — │"#,
        #" 日志/                                       — │ loading details …"#,
        #" a-very-long-name-that-does-n….jpeg        3 B │ size       66441 (64.9 KiB)"#,
        #" a.jpg                                64.9 KiB │ put time   2024-05-12T11:51:00Z"#,
        #" b 中文.png                            1.2 MiB │ class      standard"#,
        #" evil\u{1B}]52;c;aGk=\u{7}\u{2….exe      512 B │"#,
        #" … loading more                                │ key"#,
        #"                                               │ 2024/05/a.jpg"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #"                                               │"#,
        #" ≥ 6 entries, loading"#,
        #" ↑↓ move ⏎ open ← back / filter o sort i info y copy s save : go ? help q quit"#,
      ])
  }

  @Test func screenAt120x40() {
    let screen = view(Self.sample(Size(width: 120, height: 40)))
    // At 100 columns and more the time column appears.
    #expect(
      screen.lines == [
        #" kodo · photos / 2024 / 05 /                                                                                        4/6"#,
        #" name                                            size modified (UTC)   │ a.jpg"#,
        #" raw/                                               —                  │"#,
        #" 日志/                                              —                  │ loading details …"#,
        #" a-very-long-name-that-does-not-fit-….jpeg        3 B 2024-05-12 11:51 │ size       66441 (64.9 KiB)"#,
        #" a.jpg                                       64.9 KiB 2024-05-12 11:51 │ put time   2024-05-12T11:51:00Z"#,
        #" b 中文.png                                   1.2 MiB 2024-05-12 11:52 │ class      standard"#,
        #" evil\u{1B}]52;c;aGk=\u{7}\u{202E}gpj.exe       512 B 2024-05-12 11:51 │"#,
        #" … loading more                                                        │ key"#,
        #"                                                                       │ 2024/05/a.jpg"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #"                                                                       │"#,
        #" ≥ 6 entries, loading"#,
        #" ↑↓ move ⏎ open ← back / filter o sort i info y copy s save : go ? help q quit"#,
      ])
  }

  @Test func screenAt60x20ShowsTheDetailFullScreen() {
    var state = Self.sample(Size(width: 60, height: 20))
    #expect(!view(state).lines[4].contains("│"))
    _ = state.update(.key(.character("i")))
    let lines = view(state).lines
    #expect(lines[1] == " a.jpg")
    #expect(lines[4] == " size       66441 (64.9 KiB)")
    _ = state.update(.key(.escape))
    #expect(view(state).lines[5].hasPrefix(" a.jpg"))
  }

  @Test func theBucketListShowsOSSRegionsWhole() {
    var state = State(location: .buckets, size: Size(width: 80, height: 8))
    _ = state.update(.start)
    _ = state.update(
      .bucketsLoaded(
        id: 1,
        .success([
          Bucket(name: "photos", region: "oss-cn-hangzhou"), Bucket(name: "z", region: "z0"),
        ])))
    let lines = view(state).lines
    #expect(lines[1].hasPrefix(" name ") && lines[1].hasSuffix(" region"))
    #expect(lines[2].hasPrefix(" photos ") && lines[2].hasSuffix(" oss-cn-hangzhou"))
    #expect(lines[3].hasSuffix(" z0") && lines[3].count == lines[2].count)
  }

  /// Applies what `diff` wrote to a grid, the way a terminal would (CUP, SGR, text).
  static func apply(_ bytes: [UInt8], to grid: inout [[String]]) {
    let text = String(decoding: bytes, as: UTF8.self)
    var row = 0
    var column = 0
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "\u{1B}" {
        var end = text.index(index, offsetBy: 2)
        while end < text.endIndex, !(text[end].isLetter) { end = text.index(after: end) }
        let body = text[text.index(index, offsetBy: 2)..<end]
        if text[end] == "H" {
          let parts = body.split(separator: ";").compactMap { Int($0) }
          row = parts[0] - 1
          column = parts[1] - 1
        } else if text[end] == "J" {
          grid = grid.map { $0.map { _ in " " } }
        }
        index = text.index(after: end)
        continue
      }
      let width = CellWidth.of(character)
      grid[row][column] = String(character)
      if width == 2 { grid[row][column + 1] = "" }
      column += width
      index = text.index(after: index)
    }
  }

  @Test func diffRedrawsOnlyWhatChangedAndReachesTheNewScreen() {
    var state = Self.sample(Size(width: 80, height: 24))
    var old = view(state)
    var grid = Array(repeating: Array(repeating: " ", count: 80), count: 24)
    Self.apply(diff(from: nil, to: old), to: &grid)
    let full = diff(from: nil, to: old).count
    for key in [Key.down, .down, .up, .character("/"), .character("a"), .escape, .end, .home] {
      _ = state.update(.key(key))
      let new = view(state)
      let bytes = diff(from: old, to: new)
      Self.apply(bytes, to: &grid)
      let drawn = (0..<24).map { row in (0..<80).map { new[row, $0].text }.joined() }
      #expect(grid.map { $0.joined() } == drawn)
      if key == .down { #expect(bytes.count < full / 2) }
      old = new
    }
    #expect(diff(from: old, to: old).count < 40)
  }
}
