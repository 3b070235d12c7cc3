import StorageCore

/// How far a folder's (or the marked entries') download has come: `s`, as `get -r`.
package struct TreeProgress: Sendable, Equatable {
  /// Objects finished (written, already there, kept or failed), of `listed` found so far.
  package var done = 0
  package var listed = 0
  /// Bytes of the finished objects, of `total` found so far.
  package var bytes: Int64 = 0
  package var total: Int64 = 0
  /// Whether every object has been found (until then the totals are lower bounds).
  package var listingComplete = false
  /// Seconds since the download started (for the rate in the transfer queue).
  package var seconds: Double = 0

  package init() {}
}

/// How a folder's (or the marked entries') download ended.
package struct TreeSummary: Sendable, Equatable {
  /// Files written.
  package var written = 0
  /// Files already there with the object's size and hash.
  package var same = 0
  /// Files there that differ from the object: kept, not replaced.
  package var differing = 0
  /// Objects not downloaded (an error, or a key whose path would not stay inside).
  package var failed = 0
  /// The first kept or failed object's message.
  package var firstProblem: String?

  package init() {}

  /// Counts a problem and keeps the first one's message.
  package mutating func problem(_ text: String, differs: Bool) {
    if differs { differing += 1 } else { failed += 1 }
    if firstProblem == nil { firstProblem = text }
  }
}

/// A folder (or the marked entries) being downloaded into the current directory.
package struct TreeDownload: Sendable, Equatable {
  /// The request's id.
  package var id: Int
  /// What is downloaded, for the status line (not yet escaped).
  package var name: String
  package var progress = TreeProgress()

  /// The status line's part while it runs.
  var status: String {
    let more = progress.listingComplete ? "" : "≥"
    return "downloading \(name) \(progress.done)/\(more)\(progress.listed) objects,"
      + " \(Format.size(progress.bytes))/\(more)\(Format.size(progress.total))"
  }

  /// The message when it ends.
  func finished(_ result: Result<TreeSummary, Failure>) -> String {
    switch result {
    case .failure(let failure):
      return "download of \(name) failed: " + failure.message
    case .success(let summary):
      var text =
        "downloaded \(name) here: \(summary.written) written, \(summary.same) already there"
      if summary.differing > 0 { text += ", \(summary.differing) kept (differ, not replaced)" }
      text += ", \(summary.failed) failed"
      if let first = summary.firstProblem { text += "; " + first }
      return text
    }
  }
}

extension State {
  /// `s` on a folder, or with entries marked: downloads them into the current directory as
  /// `get -r` does (a folder keeps its name there); `nil` when `s` is about one object.
  mutating func saveTree() -> [Effect]? {
    guard case .folder(let bucket, let prefix) = location else { return nil }
    let entries: [String]
    let name: String
    if !marks.isEmpty {
      entries = marks.map(\.text).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      name = entries.count == 1 ? (rowName(entries[0]) ?? entries[0]) : "\(entries.count) entries"
    } else if let row = selected, row.kind == .folder {
      entries = [row.id]
      name = row.name
    } else {
      return nil
    }
    if treeDownload != nil {
      message = "a download is running; wait for it to end"
      return []
    }
    let id = newID()
    treeDownload = TreeDownload(id: id, name: name)
    began(id, .download, name)
    marks = []
    message = nil
    return [.downloadTree(id: id, bucket: bucket, base: prefix, entries: entries)]
  }

  private func rowName(_ id: String) -> String? {
    rows.indices.first { rows.id(at: $0).utf8.elementsEqual(id.utf8) }.map { rows[$0].name }
  }

  /// A tree download's progress or end (a stale id is dropped).
  mutating func treeDownloadChanged(
    id: Int, progress: TreeProgress?, end: Result<TreeSummary, Failure>?
  ) {
    guard let running = treeDownload, running.id == id else { return }
    if let progress {
      treeDownload?.progress = progress
      transfer(id) {
        $0.done = progress.done
        $0.listed = progress.listed
        $0.bytes = progress.bytes
        $0.total = progress.total
        $0.seconds = progress.seconds
      }
    }
    if let end {
      treeDownload = nil
      let text = running.finished(end)
      message = text
      transfer(id) {
        if case .failure(let failure) = end {
          $0.status = .failed(failure.message)
        } else {
          $0.status = .done(text)
        }
      }
    }
  }
}
