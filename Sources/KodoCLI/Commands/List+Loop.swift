import Foundation
import StorageCore

/// The loops of `ls`: pages from `ListPages` (the next one fetched while the current one is
/// written), or batches from `ParallelListing`, rendered to the output; where to resume when
/// the listing stops early.
struct Listing {
  let provider: any StorageProvider
  let bucket: String
  let prefix: String
  let output: OutputStream
  let progress: Progress
  /// The command that resumes this listing, without `--marker`, quoted for a shell.
  let resume: DisplayText
  /// The most pages in a row without an entry before a listing is taken to be stuck: the core's
  /// bound (tests lower it to reach it quickly).
  @TaskLocal static var maximumEmptyPages = ListPages.defaultMaximumEmptyPages
  /// `--include`/`--exclude`: which objects are shown (folders always are).
  var patterns = KeyPatterns.none
  /// `--sort`: objects go here instead of to the output, to be written when the listing ends.
  var sorter: ExternalSorter?
  /// Whether the listing stopped before its end (`--limit`).
  private(set) var stoppedEarly = false

  init(
    provider: any StorageProvider, bucket: String, prefix: String, output: OutputStream,
    progress: Progress, resume: DisplayText
  ) {
    self.provider = provider
    self.bucket = bucket
    self.prefix = prefix
    self.output = output
    self.progress = progress
    self.resume = resume
  }

  /// Lists page by page; objects go to `held` (when given) until the level is complete, so that
  /// every folder is shown first.
  mutating func sequential(
    _ request: ListRequest, entryLimit: Int?, held: HeldOutput?, renderer: inout ListRenderer
  ) async throws {
    let progress = self.progress
    let pages = ListPages(
      request, fetch: provider.pageFetcher, entryLimit: entryLimit,
      maximumEmptyPages: Self.maximumEmptyPages,
      onEmptyPages: { count in progress.emptyPages(count) })
    // `position` is where the output stands: the marker of the first entry not yet written.
    var position = request.marker
    Signals.setResumeHint(position.map { "interrupted; " + resumeNote(from: $0) })
    do {
      // `ListPages` is the one read-ahead: the next page's request is on its way while this page
      // is decoded and written (bench/NOTES.md says why there is no second layer here).
      for try await element in pages {
        let page = element.page
        try renderer.prefixes(page.commonPrefixes, to: output)
        let objects = patterns.isEmpty ? page.items : page.items.filter { patterns.keeps($0.key) }
        if let sorter {
          try sorter.add(objects)
        } else {
          try renderer.objects(objects, to: output, held: held)
        }
        try output.flush()
        progress.add(page.entryCount)
        position = page.nextMarker
        Signals.setResumeHint(position.map { "interrupted; " + resumeNote(from: $0) })
      }
      // A listing cancelled after its last page still stops as interrupted.
      if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
      try held?.release(to: output)
    } catch {
      Signals.setResumeHint(nil)
      progress.clear()
      try? held?.release(to: output)
      try? output.flush()
      guard let failure = error as? StorageError else { throw error }
      throw failed(failure, resumingFrom: position)
    }
    Signals.setResumeHint(nil)
    guard let position else { return }
    // The entry limit stopped the listing: say where the rest begins.
    stoppedEarly = true
    progress.clear()
    if renderer.mode == .json {
      var line = JSONLine()
      line.string("type", "next")
      line.string("marker", position)
      try output.write(line)
    } else {
      Diagnostics.note("more entries follow; " + resumeNote(from: position))
    }
  }

  /// Lists the top-level folders of the prefix concurrently (`--parallel`).
  func parallel(concurrency: Int, pageSize: Int, renderer: inout ListRenderer) async throws {
    let listing = ParallelListing(
      fetch: provider.pageFetcher, bucket: bucket, prefix: prefix, pageSize: pageSize,
      concurrency: concurrency)
    let cannotResume: DisplayText =
      "a --parallel listing cannot be resumed with a marker; run it again"
    Signals.setResumeHint("interrupted; " + cannotResume)
    defer { Signals.setResumeHint(nil) }
    do {
      let patterns = self.patterns
      let sorter = self.sorter
      try await listing.run { objects in
        let kept = patterns.isEmpty ? objects : objects.filter { patterns.keeps($0.key) }
        if let sorter { try sorter.add(kept) } else { try renderer.objects(kept, to: output) }
        try output.flush()
        progress.add(objects.count)
      }
    } catch let error as StorageError {
      progress.clear()
      guard error.kind != .outputClosed else { throw error }
      let said: DisplayText = error.kind == .cancelled ? "interrupted; " : "the listing stopped; "
      throw CommandFailure(error: error, notes: [said + cannotResume])
    }
  }

  /// The failure with the note that says where to resume, unless resuming cannot help.
  private func failed(_ error: StorageError, resumingFrom position: String?) -> any Error {
    guard error.kind != .outputClosed else { return error }
    guard let position, error.hint != .restartListing else {
      return CommandFailure(error: error, notes: [])
    }
    let said: DisplayText = error.kind == .cancelled ? "interrupted; " : "the listing stopped; "
    return CommandFailure(error: error, notes: [said + resumeNote(from: position)])
  }

  private func resumeNote(from marker: String) -> DisplayText {
    "resume with: " + resume + " --marker " + ShellQuote.quote(marker)
  }
}
