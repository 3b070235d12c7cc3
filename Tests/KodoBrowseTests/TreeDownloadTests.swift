import KodoBrowse
import KodoTestSupport
import StorageCore
import Testing

@Suite("Browser folder and marked downloads")
struct TreeDownloadTests {
  /// A browser in `photos/2024/` with a folder `raw/` and two objects loaded.
  static func started() -> State {
    State.showing(
      ListPage(commonPrefixes: ["2024/raw/"], items: [object("2024/a.jpg"), object("2024/b.jpg")]),
      bucket: "photos", prefix: "2024/", size: Size(width: 100, height: 24))
  }

  /// The tree download among `effects`.
  static func tree(_ effects: [Effect]) -> (id: Int, base: String, entries: [String])? {
    for case .downloadTree(let id, let bucket, let base, let entries) in effects
    where bucket == "photos" {
      return (id, base, entries)
    }
    return nil
  }

  @Test func sOnAFolderDownloadsItAsGetRShowingProgressThenWhatWasWritten() throws {
    var state = Self.started()
    #expect(state.selected?.id == "2024/raw/")
    let started = try #require(Self.tree(state.keys("s")))
    #expect(started.base == "2024/" && started.entries == ["2024/raw/"])
    var progress = TreeProgress()
    progress.done = 1
    progress.listed = 3
    progress.bytes = 2048
    progress.total = 6144
    _ = state.update(.treeProgress(id: started.id, progress))
    #expect(statusLine(state).contains("downloading raw/ 1/≥3 objects, 2.0 KiB/≥6.0 KiB"))
    // A second `s` while it runs starts nothing.
    #expect(Self.tree(state.keys("s")) == nil)
    #expect(state.message?.contains("a download is running") == true)
    // A stale id changes nothing.
    _ = state.update(.treeFinished(id: started.id + 100, .success(TreeSummary())))
    #expect(state.treeDownload != nil)
    var summary = TreeSummary()
    summary.written = 2
    summary.same = 1
    summary.problem("kept \"raw/x.jpg\": it differs", differs: true)
    _ = state.update(.treeFinished(id: started.id, .success(summary)))
    #expect(state.treeDownload == nil)
    #expect(
      state.message
        == "downloaded raw/ here: 2 written, 1 already there, 1 kept (differ, not replaced), 0 failed; kept \"raw/x.jpg\": it differs"
    )
    #expect(!statusLine(state).contains("downloading"))
    // Progress after the end is dropped.
    _ = state.update(.treeProgress(id: started.id, progress))
    #expect(state.treeDownload == nil)
  }

  @Test func sWithMarksDownloadsTheMarkedEntriesAndClearsTheMarks() throws {
    var state = Self.started()
    _ = state.keys(" ")  // raw/
    _ = state.update(.key(.down))  // skip a.jpg
    _ = state.keys(" ")  // b.jpg
    #expect(state.marks.count == 2)
    let started = try #require(Self.tree(state.keys("s")))
    #expect(started.base == "2024/" && byBytes(started.entries) == ["2024/b.jpg", "2024/raw/"])
    #expect(state.marks.isEmpty)
    #expect(statusLine(state).contains("downloading 2 entries"))
    _ = state.update(.treeFinished(id: started.id, .failure(Failure("cannot open the directory"))))
    #expect(state.message == "download of 2 entries failed: cannot open the directory")
  }

  @Test func sOnAnObjectWithoutMarksIsStillTheOneObjectDownload() {
    var state = Self.started()
    _ = state.update(.key(.down))
    #expect(
      downloads(state.keys("s")) == [
        SentDownload(bucket: "photos", key: "2024/a.jpg", size: 100, path: nil)
      ])
    #expect(state.treeDownload == nil)
  }

  @Test func theDownloadGoesOnAcrossFoldersAndItsEndIsShownThere() throws {
    var state = Self.started()
    let started = try #require(Self.tree(state.keys("s")))
    let effects = state.update(.key(.left))
    #expect(!effects.contains(.cancel(id: started.id)))
    var summary = TreeSummary()
    summary.written = 3
    _ = state.update(.treeFinished(id: started.id, .success(summary)))
    #expect(state.message == "downloaded raw/ here: 3 written, 0 already there, 0 failed")
  }
}
