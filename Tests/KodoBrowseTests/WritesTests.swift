import KodoBrowse
import StorageCore
import Testing

/// `d` and `r`: the questions, the effects they send only once answered, and the view changed
/// at once by their results.
@Suite("Browser delete and rename")
struct WritesTests {
  /// A folder `p/` of bucket `b` with `folders` and `objects` loaded (`complete`: the last page).
  static func loaded(
    _ folders: [String], _ objects: [String], complete: Bool = true, height: Int = 24
  ) -> State {
    State.showing(
      ListPage(
        commonPrefixes: folders.map { "p/" + $0 }, items: objects.map { object("p/" + $0) },
        nextMarker: complete ? nil : "next"),
      prefix: "p/", size: Size(width: 120, height: height))
  }

  static func ids(_ state: State) -> [String] { state.rows.indices.map { state.rows[$0].id } }

  /// The question asked, or "" (recorded as an issue) when none is.
  static func question(_ state: State, sourceLocation: SourceLocation = #_sourceLocation)
    -> String
  {
    guard case .confirm(let confirmation) = state.mode else {
      Issue.record("no question: \(state.mode)", sourceLocation: sourceLocation)
      return ""
    }
    return confirmation.question
  }

  static func deletes(_ effects: [Effect]) -> [(id: Int, objects: [String], folders: [String])] {
    effects.compactMap {
      if case .delete(let id, "b", let objects, let folders) = $0 { return (id, objects, folders) }
      return nil
    }
  }

  static func counts(_ effects: [Effect]) -> [(id: Int, folders: [String])] {
    effects.compactMap {
      if case .countObjects(let id, "b", let folders) = $0 { return (id, folders) }
      return nil
    }
  }

  static func moves(_ effects: [Effect]) -> [(id: Int, from: String, to: String, replace: Bool)] {
    effects.compactMap {
      if case .move(let id, "b", let from, let to, let replace) = $0 {
        return (id, from, to, replace)
      }
      return nil
    }
  }

  @Test func deleteAsksNamingTheKeyAndNoDeletesNothing() {
    var state = Self.loaded(["d/"], ["a.jpg", "b\u{1B}[31m.png", "c.jpg"])
    _ = state.update(.key(.down))
    _ = state.update(.key(.down))
    #expect(Self.deletes(state.keys("d")).isEmpty)
    let question = Self.question(state)
    // The key is named escaped, on the bottom line.
    #expect(question.hasPrefix(#"delete b\u{1B}[31m.png?"#), "\(question)")
    #expect(view(state).lines.last?.contains(#"delete b\u{1B}[31m.png?"#) == true)
    _ = state.update(.key(.escape))
    #expect(state.mode == .normal && state.message == "nothing deleted")
    _ = state.keys("d")
    #expect(Self.deletes(state.keys("n")).isEmpty)
    #expect(Self.ids(state) == ["p/d/", "p/a.jpg", "p/b\u{1B}[31m.png", "p/c.jpg"])
  }

  @Test func yDeletesAndTheRowGoesTheNextSelected() {
    var state = Self.loaded(["d/"], ["a.jpg", "b.png", "c.jpg"])
    _ = state.update(.key(.down))
    _ = state.update(.key(.down))
    _ = state.keys("d")
    let sent = Self.deletes(state.keys("y"))
    #expect(sent.count == 1 && sent.first?.objects == ["p/b.png"] && sent.first?.folders == [])
    #expect(state.mode == .normal && statusLine(state).contains("deleting 1 entry"))
    guard let id = sent.first?.id else { return }
    var report = DeleteReport()
    report.objects = ["p/b.png"]
    report.deleted = 1
    _ = state.update(.deleteFinished(id: id, report))
    #expect(Self.ids(state) == ["p/d/", "p/a.jpg", "p/c.jpg"])
    #expect(state.selected?.id == "p/c.jpg" && state.cursor == 2)
    #expect(
      statusLine(state).contains("deleted 1 object") && !statusLine(state).contains("deleting"))
    #expect(state.folder?.count == 3)
  }

  @Test func marksAreDeletedTogetherFoldersAsEverythingUnderThem() {
    var state = Self.loaded(["d/", "d-other/"], ["a.jpg", "b.png", "c.jpg"])
    // Mark d/ and c.jpg, not the look-alike d-other/ (the first row: `-` sorts before `/`).
    #expect(Self.ids(state).prefix(2) == ["p/d-other/", "p/d/"])
    _ = state.keys("j ")
    for _ in 0..<2 { _ = state.update(.key(.down)) }
    _ = state.keys(" ")
    var count = Self.counts(state.keys("d"))
    #expect(count.map(\.folders) == [["p/d/"]])
    let question = Self.question(state)
    #expect(
      question.hasPrefix("delete 1 object and 1 folder and everything under it (counting …)?"),
      "\(question)")
    // Esc stops the count.
    #expect(state.update(.key(.escape)) == count.map { .cancel(id: $0.id) })
    count = Self.counts(state.keys("d"))
    let answered = state.keys("y")
    #expect(answered.first == count.first.map { .cancel(id: $0.id) })
    let sent = Self.deletes(answered)
    #expect(sent.first?.objects == ["p/c.jpg"] && sent.first?.folders == ["p/d/"], "\(sent)")
    #expect(state.marks.count == 2 && statusLine(state).contains("deleting 2 entries"))
    guard let id = sent.first?.id else { return }
    var report = DeleteReport()
    report.folders = ["p/d/"]
    report.deleted = 40
    report.failed = 1
    report.firstFailure = "kodo: c.jpg: access denied (reqid XYZ)"
    _ = state.update(.deleteFinished(id: id, report))
    // The folder went; the failed key stays, marked, and the failure is said whole.
    #expect(
      Self.ids(state) == ["p/d-other/", "p/a.jpg", "p/b.png", "p/c.jpg"], "\(Self.ids(state))")
    #expect(Set(state.marks.map(\.text)) == ["p/c.jpg"])
    #expect(
      statusLine(state).contains(
        "deleted 40 objects; 1 not deleted: kodo: c.jpg: access denied (reqid XYZ)"))
  }

  @Test func severalObjectsAndFoldersAreCounted() {
    var state = Self.loaded(["d/", "e/"], ["a.jpg", "b.png", "c.jpg"])
    _ = state.keys("*")
    let count = Self.counts(state.keys("d"))
    #expect(count.map(\.folders) == [["p/d/", "p/e/"]])
    // A stale count is dropped; the current one is said, with the objects named.
    _ = state.update(.objectsCounted(id: (count.first?.id ?? 0) + 100, .success(7)))
    #expect(Self.question(state).contains("(counting …)?"))
    _ = state.update(.objectsCounted(id: count.first?.id ?? 0, .success(12_405)))
    #expect(
      Self.question(state).hasPrefix(
        "delete 3 objects and 2 folders and everything under them (12,408 objects in all)?"),
      "\(Self.question(state))")
    let sent = Self.deletes(state.keys("y"))
    #expect(sent.first?.objects == ["p/a.jpg", "p/b.png", "p/c.jpg"])
    #expect(sent.first?.folders == ["p/d/", "p/e/"])
  }

  @Test func aFolderWhoseListingStoppedStaysAndSaysWhy() {
    var state = Self.loaded(["d/"], ["a.jpg"])
    _ = state.keys("*d")
    let id = Self.deletes(state.keys("y"))[0].id
    var report = DeleteReport()
    report.objects = ["p/a.jpg"]
    report.deleted = 3
    report.firstFailure = "listing failed (request id L1)"
    _ = state.update(.deleteFinished(id: id, report))
    #expect(Self.ids(state) == ["p/d/"])
    #expect(state.message == "deleted 3 objects; listing failed (request id L1)")
  }

  @Test func aLongFailureIsShownWholeUntilTheNextKey() {
    var state = Self.loaded([], ["a.jpg"], height: 12)
    let failure = "access denied: " + String(repeating: "x", count: 200) + " (reqid THE-END)"
    _ = state.keys("d")
    let id = Self.deletes(state.keys("y"))[0].id
    var report = DeleteReport()
    report.failed = 1
    report.firstFailure = failure
    _ = state.update(.deleteFinished(id: id, report))
    let lines = view(state).lines
    #expect(lines.joined().contains("THE-END"), "\(lines)")
    #expect(Self.ids(state) == ["p/a.jpg"])
    _ = state.update(.key(.down))
    #expect(state.message == nil)
    #expect(!view(state).lines.joined().contains("THE-END"))
  }

  @Test func theMessageDoesNotFollowIntoAnotherFolder() {
    var state = Self.loaded(["d/"], ["a.jpg"])
    _ = state.keys("jd")
    _ = state.keys("n")
    #expect(state.message == "nothing deleted")
    _ = state.update(.key(.home))
    _ = state.update(.key(.enter))
    #expect(state.message == nil)
    // Nor into a preview and back.
    _ = state.update(.key(.left))
    _ = state.keys("jd")
    _ = state.keys("n")
    #expect(state.message == "nothing deleted")
    _ = state.update(.key(.enter))
    #expect(state.pager != nil)
    _ = state.keys("q")
    #expect(state.pager == nil && state.message == nil)
  }

  @Test func renameEditsTheNameAndMovesInTheView() {
    var state = Self.loaded(["d/"], ["a.jpg", "b.png", "c.jpg"])
    _ = state.keys("r")
    // A folder: its name without the slash, moved as mv -r (the key ends in /).
    guard case .rename(let folderEditor, let folder) = state.mode else {
      Issue.record("no prompt for the folder: \(state.mode)")
      return
    }
    #expect(folderEditor.text == "d" && folder.key == "p/d/")
    _ = state.update(.key(.escape))
    _ = state.update(.key(.down))
    _ = state.keys("r")
    guard case .rename(let editor, _) = state.mode else {
      Issue.record("no prompt: \(state.mode)")
      return
    }
    #expect(editor.text == "a.jpg" && editor.cursor == 5 && !editor.selected)
    #expect(view(state).lines.last?.hasPrefix("rename to: a.jpg") == true)
    for _ in 0..<5 { _ = state.update(.key(.backspace)) }
    _ = state.keys("z.jpg")
    let sent = Self.moves(state.update(.key(.enter)))
    #expect(sent.count == 1 && sent.first?.from == "p/a.jpg" && sent.first?.to == "p/z.jpg")
    #expect(sent.first?.replace == false)
    guard let id = sent.first?.id else { return }
    let effects = state.update(.moveFinished(id: id, .moved))
    // The stat of a.jpg still on its way is cancelled (it could only say a.jpg is gone); the
    // renamed object's is asked for.
    #expect(effects.contains { if case .cancel = $0 { true } else { false } }, "\(effects)")
    #expect(effects.contains { $0 == .stat(id: $0.statID ?? -1, bucket: "b", key: "p/z.jpg") })
    #expect(Self.ids(state) == ["p/d/", "p/b.png", "p/c.jpg", "p/z.jpg"])
    #expect(state.selected?.id == "p/z.jpg")
    #expect(statusLine(state).contains("renamed a.jpg to z.jpg"))
  }

  @Test func renameWithASlashMovesIntoASubfolder() {
    var state = Self.loaded(["d/"], ["a.jpg", "b.png"])
    _ = state.update(.key(.down))
    _ = state.keys("r")
    _ = state.update(.key(.control("u")))
    _ = state.keys("new/x.jpg")
    let sent = Self.moves(state.update(.key(.enter)))
    #expect(sent.first?.to == "p/new/x.jpg")
    guard let id = sent.first?.id else { return }
    _ = state.update(.moveFinished(id: id, .moved))
    #expect(Self.ids(state) == ["p/d/", "p/new/", "p/b.png"])
    #expect(state.selected?.id == "p/b.png")
  }

  @Test func anExistingDestinationAsksAndYReplaces() {
    var state = Self.loaded([], ["a.jpg", "b.png", "c.jpg"])
    _ = state.keys("r")
    _ = state.update(.key(.control("u")))
    _ = state.keys("c.jpg")
    var id = Self.moves(state.update(.key(.enter)))[0].id
    _ = state.update(.moveFinished(id: id, .exists))
    let question = Self.question(state)
    #expect(question.hasPrefix("c.jpg exists: replace it with a.jpg?"))
    // n keeps both.
    #expect(Self.moves(state.keys("n")).isEmpty)
    #expect(Self.ids(state) == ["p/a.jpg", "p/b.png", "p/c.jpg"])
    #expect(state.message?.contains("kept") == true)
    // Again, and y sends the move that replaces.
    _ = state.keys("r")
    _ = state.update(.key(.control("u")))
    _ = state.keys("c.jpg")
    id = Self.moves(state.update(.key(.enter)))[0].id
    _ = state.update(.moveFinished(id: id, .exists))
    let sent = Self.moves(state.keys("y"))
    #expect(sent.count == 1 && sent.first?.replace == true && sent.first?.to == "p/c.jpg")
    guard let again = sent.first?.id else { return }
    _ = state.update(.moveFinished(id: again, .moved))
    #expect(Self.ids(state) == ["p/b.png", "p/c.jpg"])
    #expect(state.selected?.id == "p/c.jpg")
  }

  @Test func aFailedRenameKeepsTheRowAndSaysWhy() {
    var state = Self.loaded([], ["a.jpg"])
    _ = state.keys("r")
    _ = state.keys("x")
    let id = Self.moves(state.update(.key(.enter)))[0].id
    _ = state.update(.moveFinished(id: id, .failed(Failure("kodo: access denied (reqid R1)"))))
    #expect(Self.ids(state) == ["p/a.jpg"])
    #expect(state.message == "rename of a.jpg failed: kodo: access denied (reqid R1)")
    // An unchanged or empty name sends nothing.
    _ = state.keys("r")
    #expect(Self.moves(state.update(.key(.enter))).isEmpty)
    #expect(state.message == "not renamed: the name is the same")
  }

  /// A key renamed beyond what a partial folder loaded is not added: its page brings it, once.
  @Test func aRenameBeyondTheLoadedPagesComesWithTheirPage() {
    var state = Self.loaded([], ["a.jpg", "b.png"], complete: false)
    let pending = state.folder?.loading
    _ = state.keys("r")
    _ = state.update(.key(.control("u")))
    _ = state.keys("z.jpg")
    let id = Self.moves(state.update(.key(.enter)))[0].id
    _ = state.update(.moveFinished(id: id, .moved))
    #expect(Self.ids(state) == ["p/b.png"])
    if let pending {
      _ = state.update(
        .pageLoaded(id: pending, .success(ListPage(items: [object("p/c"), object("p/z.jpg")]))))
    }
    #expect(Self.ids(state) == ["p/b.png", "p/c", "p/z.jpg"])
  }

  /// A deleted folder is forgotten by the cache, and its rows leave the parent kept there.
  @Test func aDeletedFolderLeavesTheCache() {
    var state = State(
      location: .folder(bucket: "b", prefix: ""), size: Size(width: 100, height: 20))
    var id = listRequests(state.update(.start))[0].id
    _ = state.update(
      .pageLoaded(id: id, .success(ListPage(commonPrefixes: ["p/"], items: [object("top")]))))
    id = listRequests(state.update(.key(.enter)))[0].id
    _ = state.update(
      .pageLoaded(
        id: id, .success(ListPage(commonPrefixes: ["p/q/"], items: [object("p/a")]))))
    _ = state.update(.key(.enter))  // into p/q/
    _ = state.update(.key(.left))
    #expect(state.folders[.folder(bucket: "b", prefix: "p/q/")] != nil)
    _ = state.keys("d")
    let sent = Self.deletes(state.keys("y"))
    #expect(sent.first?.folders == ["p/q/"])
    var report = DeleteReport()
    report.folders = ["p/q/"]
    _ = state.update(.deleteFinished(id: sent[0].id, report))
    #expect(state.folders[.folder(bucket: "b", prefix: "p/q/")] == nil)
    #expect(Self.ids(state) == ["p/a"])
  }
}

extension Effect {
  var statID: Int? {
    if case .stat(let id, _, _) = self { return id }
    return nil
  }
}
