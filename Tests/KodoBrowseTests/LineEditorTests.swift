import KodoBrowse
import KodoTestSupport
import StorageCore
import Testing

@Suite("Prompt line editor")
struct LineEditorTests {
  static func typed(_ editor: inout LineEditor, _ text: String) {
    for character in text { _ = editor.apply(.character(character)) }
  }

  @Test func movesAndEditsInTheMiddle() {
    var editor = LineEditor("file-0001.jpg")
    #expect(editor.cursor == 13)
    for _ in 0..<4 { _ = editor.apply(.left) }
    Self.typed(&editor, "X")
    #expect(editor.text == "file-0001X.jpg")
    _ = editor.apply(.control("a"))
    Self.typed(&editor, "Y")
    #expect(editor.text == "Yfile-0001X.jpg" && editor.cursor == 1)
    _ = editor.apply(.control("e"))
    _ = editor.apply(.backspace)
    #expect(editor.text == "Yfile-0001X.jp")
    _ = editor.apply(.home)
    _ = editor.apply(.delete)
    #expect(editor.text == "file-0001X.jp" && editor.cursor == 0)
    // Nothing moves past either end.
    _ = editor.apply(.left)
    _ = editor.apply(.backspace)
    #expect(editor.cursor == 0 && editor.text == "file-0001X.jp")
    _ = editor.apply(.end)
    _ = editor.apply(.right)
    _ = editor.apply(.delete)
    #expect(editor.cursor == 13 && editor.text == "file-0001X.jp")
  }

  @Test func killsBeforeAfterAndBySegment() {
    var editor = LineEditor("big/dir-000/sub-00/")
    _ = editor.apply(.control("w"))
    #expect(editor.text == "big/dir-000/")
    _ = editor.apply(.control("w"))
    #expect(editor.text == "big/")
    Self.typed(&editor, "a b")
    _ = editor.apply(.control("w"))
    #expect(editor.text == "big/a ")
    _ = editor.apply(.left)
    _ = editor.apply(.left)
    _ = editor.apply(.control("k"))
    #expect(editor.text == "big/" && editor.cursor == 4)
    _ = editor.apply(.left)
    _ = editor.apply(.control("u"))
    #expect(editor.text == "/" && editor.cursor == 0)
  }

  @Test func aSelectedTextIsReplacedByTypingAndKeptByAMove() {
    var editor = LineEditor("big/dir-000/sub-00/", selectAll: true)
    #expect(editor.selected)
    Self.typed(&editor, "photos/2024/")
    #expect(editor.text == "photos/2024/" && !editor.selected)
    editor = LineEditor("big/", selectAll: true)
    _ = editor.apply(.right)
    Self.typed(&editor, "x/")
    #expect(editor.text == "big/x/")
    editor = LineEditor("big/", selectAll: true)
    _ = editor.apply(.backspace)
    #expect(editor.text.isEmpty)
    #expect(!LineEditor("", selectAll: true).selected)
  }

  @Test func keysSayWhatTheyAskFor() {
    var editor = LineEditor("a")
    #expect(editor.apply(.enter) == .submit)
    #expect(editor.apply(.escape) == .cancel)
    #expect(editor.apply(.tab) == .complete)
    #expect(editor.apply(.pageDown) == .ignored)
    #expect(editor.text == "a")
  }

  @Test func controlKeysAreDecoded() {
    var decoder = KeyDecoder()
    #expect(
      decoder.feed([0x01, 0x05, 0x15, 0x17, 0x0B, 0x03, 0x09, 0x1B, 0x5B, 0x33, 0x7E]) == [
        .control("a"), .control("e"), .control("u"), .control("w"), .control("k"), .controlC,
        .tab, .delete,
      ])
  }

  @Test func tildeExpandsOnlyAtTheStart() {
    #expect(expandingHome("~", home: "/home/u") == "/home/u")
    #expect(expandingHome("~/x.jpg", home: "/home/u/") == "/home/u/x.jpg")
    #expect(expandingHome("~other/x", home: "/home/u") == "~other/x")
    #expect(expandingHome("a/~/x", home: "/home/u") == "a/~/x")
    #expect(expandingHome("~/x", home: nil) == "~/x")
  }

  /// Any keys keep the cursor within the text, and typing at the cursor puts the character
  /// there.
  @Test func theCursorStaysWithinTheText() {
    let keys: [Key] = [
      .left, .right, .home, .end, .backspace, .delete, .control("a"), .control("e"),
      .control("u"), .control("k"), .control("w"), .character("a"), .character("/"),
      .character(" "), .character("中"), .tab,
    ]
    var random = SplitMix64(seed: 22)
    for _ in 0..<300 {
      var editor = LineEditor("photos/2024/", selectAll: true)
      for _ in 0..<Int.random(in: 0...40, using: &random) {
        let pick = Int.random(in: 0..<keys.count, using: &random)
        let before = editor
        _ = editor.apply(keys[pick])
        #expect(editor.cursor >= 0 && editor.cursor <= editor.characters.count)
        if case .character(let character) = keys[pick], !before.selected {
          #expect(editor.characters[editor.cursor - 1] == character)
          #expect(editor.characters.count == before.characters.count + 1)
        }
      }
    }
  }
}

@Suite("Prompts")
struct PromptTests {
  static func saveAs() -> State {
    var state = State(
      location: .folder(bucket: "photos", prefix: ""), size: Size(width: 80, height: 24))
    let id = listRequests(state.update(.start))[0].id
    _ = state.update(.pageLoaded(id: id, .success(ListPage(items: [object("file-0001.jpg")]))))
    state.home = "/home/u"
    _ = state.update(.key(.character("S")))
    return state
  }

  static func completion(_ effects: [Effect]) -> (id: Int, directory: String)? {
    for case .listLocal(let id, let directory) in effects { return (id, directory) }
    return nil
  }

  @Test func saveAsStartsWithTheNameAndExpandsTilde() {
    var state = Self.saveAs()
    #expect(state.mode == .saveAs(LineEditor("file-0001.jpg")))
    _ = state.update(.key(.control("u")))
    _ = state.keys("~/x.jpg")
    #expect(
      downloads(state.update(.key(.enter))) == [
        SentDownload(bucket: "photos", key: "file-0001.jpg", size: 100, path: "/home/u/x.jpg")
      ])
    #expect(state.mode == .normal)
  }

  @Test func tabCompletesOneMatchAndNamesSeveral() throws {
    var state = Self.saveAs()
    _ = state.update(.key(.control("u")))
    _ = state.keys("~/Do")
    var asked = try #require(Self.completion(state.update(.key(.tab))))
    #expect(asked.directory == "/home/u/")
    #expect(state.mode.editor?.text == "/home/u/Do")
    let entries = [
      LocalEntry(name: "Documents", isDirectory: true),
      LocalEntry(name: "Downloads", isDirectory: true),
      LocalEntry(name: ".Dotfile", isDirectory: false), LocalEntry(name: "x", isDirectory: false),
    ]
    _ = state.update(.localListed(id: asked.id, .success(entries)))
    #expect(state.mode.editor?.text == "/home/u/Do")
    #expect(state.message == "2 matches: Documents/  Downloads/")
    _ = state.keys("w")
    asked = try #require(Self.completion(state.update(.key(.tab))))
    _ = state.update(.localListed(id: asked.id, .success(entries)))
    #expect(state.mode.editor?.text == "/home/u/Downloads/")
    // A stale listing (the text changed since) is dropped.
    asked = try #require(Self.completion(state.update(.key(.tab))))
    _ = state.keys("a")
    _ = state.update(
      .localListed(id: asked.id, .success([LocalEntry(name: "zz", isDirectory: false)])))
    #expect(state.mode.editor?.text == "/home/u/Downloads/a")
    // A relative path lists the current directory.
    _ = state.update(.key(.control("u")))
    _ = state.keys("fi")
    asked = try #require(Self.completion(state.update(.key(.tab))))
    #expect(asked.directory == ".")
    _ = state.update(
      .localListed(id: asked.id, .success([LocalEntry(name: "file.txt", isDirectory: false)])))
    #expect(state.mode.editor?.text == "file.txt")
  }

  @Test func goToStartsSelectedAndIsDrawnWithItsCursor() {
    var state = Self.saveAs()
    _ = state.update(.key(.escape))
    _ = state.update(.key(.character(":")))
    #expect(state.mode == .goTo(LineEditor("photos/", selectAll: true)))
    _ = state.keys("logs/2024/")
    for _ in 0..<3 { _ = state.update(.key(.left)) }
    let screen = view(state)
    #expect(screen.lines.last == "go to: logs/2024/")
    let cursorColumn = "go to: logs/20".count
    #expect(
      screen[23, cursorColumn].text == "2" && screen[23, cursorColumn].style.contains(.reverse))
    #expect(!screen[23, cursorColumn - 1].style.contains(.reverse))
    // Control characters are drawn escaped.
    _ = state.update(.key(.end))
    _ = state.update(.key(.character("\u{1B}")))
    #expect(view(state).lines.last == "go to: logs/2024/\\u{1B}")
  }
}
