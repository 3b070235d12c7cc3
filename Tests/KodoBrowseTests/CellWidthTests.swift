import KodoBrowse
import KodoTestSupport
import Testing

@Suite("Cell widths")
struct CellWidthTests {
  @Test(arguments: [
    ("a", 1), ("中", 2), ("カ", 2), ("한", 2), ("Ａ", 2), ("\u{3000}", 2), ("𠀀", 2), ("ｶ", 1),
    ("±", 1), ("①", 1), ("Ω", 1), ("e\u{301}", 1), ("👍", 2), ("🫠", 2), ("🇨🇳", 2), ("🪿", 2),
    ("❤", 1), ("❤️", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("\u{301}", 0), ("\u{200B}", 0),
  ])
  func widthOfOneCluster(sample: String, cells: Int) {
    #expect(sample.count == 1)
    #expect(CellWidth.of(Character(sample)) == cells, "\(sample.unicodeScalars.map(\.value))")
  }

  @Test func tableEdges() {
    #expect(CellWidth.of(Character("\u{10FF}")) == 1)
    #expect(CellWidth.of(Character("\u{1100}")) == 2)
    #expect(CellWidth.of(Character("\u{115F}")) == 2)
    #expect(CellWidth.of(Character("\u{1160}")) == 0 || CellWidth.of(Character("\u{1160}")) == 1)
    #expect(CellWidth.of(Character("\u{9FFF}")) == 2)
    #expect(CellWidth.of(Character("\u{FF61}")) == 1)
  }

  @Test func truncationKeepsTheExtensionAndNeverSplitsAWideCharacter() {
    #expect(Fit.truncate("a-very-long-file-name.jpg", to: 14) == "a-very-lo….jpg")
    #expect(Fit.truncate("short.jpg", to: 14) == "short.jpg")
    #expect(Fit.truncate("中文中文中文中文.png", to: 11) == "中文中….png")
    #expect(CellWidth.of(Fit.truncate("中文中文中文中文.png", to: 11)) <= 11)
    #expect(Fit.truncate("没有扩展名的很长的名字", to: 7) == "没有扩…")
    var random = SplitMix64(seed: 3)
    let pieces = ["a", "中", "👍", ".", "x", "😀", "é", "日志"]
    for _ in 0..<2_000 {
      let text = (0..<Int.random(in: 0...20, using: &random)).map { _ in
        pieces.randomElement(using: &random) ?? ""
      }.joined()
      let cells = Int.random(in: 1...16, using: &random)
      let cut = Fit.truncate(text, to: cells)
      #expect(CellWidth.of(cut) <= cells)
      #expect(CellWidth.of(Fit.pad(text, to: cells)) == cells)
    }
  }

  @Test func controlBidiAndInvisibleCharactersAreShownAsEscapes() {
    #expect(Fit.visible("a\u{1B}]52;c;x\u{7}") == #"a\u{1B}]52;c;x\u{7}"#)
    #expect(Fit.visible("gpj.\u{202E}exe") == #"gpj.\u{202E}exe"#)
    #expect(Fit.visible("a\u{200B}b") == #"a\u{200B}b"#)
    #expect(Fit.visible("\u{301}x") == #"\u{301}x"#)
    #expect(Fit.visible("中文 😀") == "中文 😀")
  }
}
