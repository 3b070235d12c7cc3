import KodoBrowse
import StorageCore
import Testing

/// `u`, `t` and quitting while transfers run: the prompt, the effects, the rows uploaded
/// objects add at once, the replace question, the queue and its cancel.
@Suite("Browser upload and transfer queue")
struct TransfersTests {
  static func uploads(_ effects: [Effect]) -> [(id: Int, plan: UploadPlan, replace: Bool)] {
    effects.compactMap {
      if case .upload(let id, "b", let plan, let replace) = $0 { return (id, plan, replace) }
      return nil
    }
  }

  static func type(_ text: String, into state: inout State) -> [Effect] {
    var effects: [Effect] = []
    for character in text { effects += state.update(.key(.character(character))) }
    return effects + state.update(.key(.enter))
  }

  @Test func uploadPromptSendsThePathIntoTheFolderShownWithHomeExpanded() {
    var state = WritesTests.loaded([], ["a.jpg"])
    state.home = "/home/u"
    #expect(state.keys("u").isEmpty)
    #expect(state.mode == .upload(LineEditor("")))
    let sent = Self.uploads(Self.type("~/pics/", into: &state))
    #expect(sent.count == 1)
    #expect(sent.first?.plan == .path("/home/u/pics/", folder: "p/"))
    #expect(sent.first?.replace == false)
    #expect(state.mode == .normal)
    #expect(state.transfers.map(\.name) == ["pics"])
    #expect(state.runningTransfers == 1)
  }

  @Test func uploadOfNothingOrDotSendsNothing() {
    var state = WritesTests.loaded([], ["a.jpg"])
    _ = state.keys("u")
    #expect(Self.uploads(Self.type("", into: &state)).isEmpty)
    _ = state.keys("u")
    #expect(Self.uploads(Self.type(".", into: &state)).isEmpty)
    #expect(state.message?.contains("nothing uploaded") == true)
    #expect(state.transfers.isEmpty)
  }

  @Test func uploadedObjectsAppearAtOnceAndASubfolderOnce() {
    var state = WritesTests.loaded(["d/"], ["a.jpg", "c.jpg"])
    _ = state.keys("u")
    guard let id = Self.uploads(Self.type("/tmp/x", into: &state)).first?.id else {
      Issue.record("no upload")
      return
    }
    var progress = UploadProgress()
    progress.listed = 3
    progress.done = 2
    progress.uploaded = [object("p/b.jpg"), object("p/new/x.txt"), object("p/new/y.txt")]
    _ = state.update(.uploadProgress(id: id, progress))
    #expect(WritesTests.ids(state) == ["p/d/", "p/new/", "p/a.jpg", "p/b.jpg", "p/c.jpg"])
    #expect(state.transfers.first?.done == 2)
    var summary = UploadSummary()
    summary.uploaded = 3
    _ = state.update(.uploadFinished(id: id, summary))
    #expect(state.runningTransfers == 0)
    #expect(state.message?.hasPrefix("uploaded x: 3 objects") == true)
    #expect(state.mode == .normal)
  }

  @Test func existingKeysAskAndYesSendsThemAgainReplacing() {
    var state = WritesTests.loaded([], ["a.jpg"])
    _ = state.keys("u")
    guard let id = Self.uploads(Self.type("dir", into: &state)).first?.id else {
      Issue.record("no upload")
      return
    }
    var summary = UploadSummary()
    summary.uploaded = 1
    summary.existing = [
      UploadFile(source: "dir/a", key: "p/dir/a"), UploadFile(source: "dir/b", key: "p/dir/b"),
    ]
    _ = state.update(.uploadFinished(id: id, summary))
    #expect(WritesTests.question(state) == "replace 2 existing objects? [y/N]")
    let again = Self.uploads(state.keys("y"))
    #expect(again.count == 1)
    #expect(again.first?.plan == .files(summary.existing))
    #expect(again.first?.replace == true)
    #expect(state.transfers.count == 2)
  }

  @Test func existingKeysKeptWithN() {
    var state = WritesTests.loaded([], ["a.jpg"])
    _ = state.keys("u")
    guard let id = Self.uploads(Self.type("f", into: &state)).first?.id else {
      Issue.record("no upload")
      return
    }
    var summary = UploadSummary()
    summary.existing = [UploadFile(source: "f", key: "p/f")]
    _ = state.update(.uploadFinished(id: id, summary))
    #expect(Self.uploads(state.keys("n")).isEmpty)
    #expect(state.message == "not replaced: 1 existing object kept")
  }

  @Test func queueListsTransfersAndXCancelsTheSelectedOne() {
    var state = WritesTests.loaded([], ["a.jpg"])
    _ = state.keys("u")
    guard let id = Self.uploads(Self.type("f", into: &state)).first?.id else {
      Issue.record("no upload")
      return
    }
    _ = state.keys("d")
    _ = state.keys("y")
    #expect(state.transfers.map(\.kind) == [.upload, .delete])
    _ = state.keys("t")
    #expect(state.mode == .transfers)
    let screen = view(state).lines.joined(separator: "\n")
    #expect(screen.contains("upload · f"))
    #expect(screen.contains("delete · a.jpg"))
    #expect(screen.contains("2 running"))
    _ = state.update(.key(.up))
    #expect(state.keys("x") == [.cancel(id: id)])
    #expect(state.transfers.first?.status == .cancelled)
    // Its later messages change nothing.
    var summary = UploadSummary()
    summary.uploaded = 1
    _ = state.update(.uploadFinished(id: id, summary))
    #expect(state.transfers.first?.status == .cancelled)
    // A cancelled transfer is not cancelled twice.
    #expect(state.keys("x").isEmpty)
    _ = state.update(.key(.escape))
    #expect(state.mode == .normal)
  }

  @Test func aFailureIsShownWholeInTheQueue() {
    var state = WritesTests.loaded([], ["a.jpg"], height: 10)
    _ = state.keys("r")
    for _ in 0..<5 { _ = state.update(.key(.backspace)) }
    let moved = WritesTests.moves(Self.type("b.jpg", into: &state))
    guard let id = moved.first?.id else {
      Issue.record("no move")
      return
    }
    let error = String(repeating: "long reason ", count: 20) + "(request id R-END)"
    _ = state.update(.moveFinished(id: id, .failed(Failure(error))))
    _ = state.keys("t")
    let screen = view(state).lines.joined(separator: "\n")
    #expect(screen.contains("R-END"))
    #expect(state.transfers.first?.status == .failed(error))
  }

  @Test func quitWhileTransfersRunAsksFirst() {
    var state = WritesTests.loaded([], ["a.jpg"])
    #expect(state.keys("q") == [.quit(0)])
    _ = state.keys("u")
    _ = Self.type("f", into: &state)
    #expect(state.keys("q").isEmpty)
    #expect(WritesTests.question(state) == "1 transfer running: quit and cancel them? [y/N]")
    #expect(state.keys("n").isEmpty)
    #expect(state.mode == .normal)
    _ = state.keys("q")
    #expect(state.keys("y") == [.quit(0)])
  }

  @Test func aOneObjectDownloadIsInTheQueueAndItsCancelDropsItsEnd() {
    var state = WritesTests.loaded([], ["a.jpg"])
    let sent = state.keys("s")
    guard case .download(let id, "b", "p/a.jpg", 100, nil) = sent.first else {
      Issue.record("no download: \(sent)")
      return
    }
    _ = state.update(
      .downloadProgress(id: id, name: "a.jpg", bytes: 40, total: 100, seconds: 0.5))
    #expect(state.transfers.first?.bytes == 40)
    #expect(state.transfers.first?.rate == 80)
    _ = state.keys("t")
    #expect(state.keys("x") == [.cancel(id: id)])
    #expect(state.download == nil)
    _ = state.update(.downloadFinished(id: id, name: "a.jpg", .failure(Failure("cancelled"))))
    #expect(state.message == "cancelled download of a.jpg")
    #expect(state.transfers.first?.status == .cancelled)
  }

  @Test func dashIsAFileNamedDashAndAFailureIsAFailedTransfer() {
    var state = WritesTests.loaded([], ["a.jpg"])
    _ = state.keys("u")
    let sent = Self.uploads(Self.type("-", into: &state))
    #expect(sent.first?.plan == .path("./-", folder: "p/"))
    guard let id = sent.first?.id else { return }
    var summary = UploadSummary()
    summary.failure("cannot read \"-\": No such file or directory")
    _ = state.update(.uploadFinished(id: id, summary))
    #expect(
      state.transfers.first?.status
        == .failed("uploaded -: 0 objects, 1 failed; cannot read \"-\": No such file or directory"))
  }

  @Test func whatTheWalkSkippedIsSaidNotCountedAsFailed() {
    var state = WritesTests.loaded([], ["a.jpg"])
    _ = state.keys("u")
    guard let id = Self.uploads(Self.type("dir", into: &state)).first?.id else {
      Issue.record("no upload")
      return
    }
    var summary = UploadSummary()
    summary.uploaded = 1
    summary.skipped = 2
    summary.firstSkip = "dir/link is a symbolic link; skipped"
    _ = state.update(.uploadFinished(id: id, summary))
    #expect(
      state.message == "uploaded dir: 1 object; 2 skipped: dir/link is a symbolic link; skipped")
    #expect(state.transfers.first?.status == .done(state.message ?? ""))
  }

  @Test func aFolderDownloadIsInTheQueueWithItsRate() {
    var state = WritesTests.loaded(["d/"], ["a.jpg"])
    let sent = state.keys("s")
    guard case .downloadTree(let id, "b", "p/", ["p/d/"]) = sent.first else {
      Issue.record("no folder download: \(sent)")
      return
    }
    var progress = TreeProgress()
    progress.done = 1
    progress.listed = 2
    progress.bytes = 2048
    progress.total = 4096
    progress.seconds = 2
    _ = state.update(.treeProgress(id: id, progress))
    #expect(state.transfers.first?.kind == .download)
    #expect(state.transfers.first?.rate == 1024)
    #expect(state.transfers.first?.done == 1)
    _ = state.update(.treeFinished(id: id, .failure(Failure("listing failed (request id R1)"))))
    #expect(state.transfers.first?.status == .failed("listing failed (request id R1)"))
  }
}
