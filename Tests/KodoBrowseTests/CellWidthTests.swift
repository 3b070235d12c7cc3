import KodoBrowse
import KodoTestSupport
import PropertyBased
import StorageCore
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

  /// Joiners, selectors, marks, format characters, controls and wide or emoji neighbours: what
  /// puts a cell model out of step with a terminal.
  static let awkward = Gen<Character?>.element(
    of: Array(
      "a}X.中😀👩❤\u{200D}\u{200C}\u{200B}\u{FE0F}\u{FE0E}\u{301}\u{20E3}\u{1B}\n\u{E0020}\u{3164}\u{34F}\u{1F3FD}\u{1F1E8}1#"
    ) as [Character]
  ).map { $0 ?? "a" }

  // Issue 19 L-5: `b\u{200B}\u{200D}X.txt` was drawn `b\u{200B}` + ZWJ + `X.txt`: the ZWJ joined
  // the `}` of the escape in a cluster the cell model measured as one plain cell, and the
  // terminal drew it elsewhere. Whatever the escaper emits, each cluster is either measured
  // exactly (one starting scalar of known width, then combining marks only) or risky (the
  // renderer puts the cursor back after it), and no cluster is of no width.
  @Test func theCellModelMeasuresWhatTheEscaperEmits() async {
    let input = Gen.oneOf(Self.awkward, Self.awkward, anyScalar).string(of: 0...24)
    await seededCheck(count: fuzzCount(2_000), input: input) { text in
      let shown = Fit.visible(text)
      #expect(DisplayText.isDisplaySafe(shown))
      for character in shown {
        let scalars = character.unicodeScalars.map(\.value)
        #expect(CellWidth.of(character) >= 1, "\(scalars) in \(text.unicodeScalars.map(\.value))")
        if scalars.contains(0x200D) || scalars.contains(0xFE0F) || scalars.contains(0xFE0E) {
          #expect(CellWidth.isRisky(character), "\(scalars)")
        }
        guard !CellWidth.isRisky(character) else { continue }
        for scalar in character.unicodeScalars.dropFirst() {
          switch scalar.properties.generalCategory {
          case .nonspacingMark, .enclosingMark, .spacingMark: continue
          default: Issue.record("\(scalars) joins a non-mark to its cluster")
          }
        }
      }
    }
  }
}
