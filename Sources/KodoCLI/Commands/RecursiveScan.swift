import StorageCore

/// The one listing driver of the commands (`ls`, `find`, `du`, `get -r`, `rm -r`, `mv -r`,
/// `sync`, `put`'s destination listing): every object under a prefix, page by page (`ListPages`,
/// whose read-ahead fetches the next page while this one is handled) or with the top-level
/// folders listed concurrently (`ParallelListing`); one level at a time with a delimiter (page by
/// page only). It keeps the rules every listing shares: the empty-pages guard, the resume hint a
/// signal prints, the note that says where to resume when the listing stops, and the end of a
/// listing cancelled after its last page.
struct RecursiveScan {
  let provider: any StorageProvider
  let bucket: String
  let prefix: String
  let pageSize: Int
  /// List this many top-level folders at once (`nil`: page by page).
  let parallel: Int?
  /// Where a page-by-page scan starts.
  var marker: String? = nil
  /// How to resume a page-by-page scan from a marker, for the note on stderr when it stops
  /// (`nil`: it cannot be resumed).
  var resume: ((String) -> DisplayText)? = nil
  /// Groups keys into folders at this separator (page by page only; `nil`: every key).
  var delimiter: String? = nil
  /// Stop a page-by-page scan after this many entries (folders and objects).
  var entryLimit: Int? = nil
  /// Only each object's key is used: the provider may leave the other fields at their
  /// defaults (`ListRequest.keysOnly`).
  var keysOnly = false
  /// Told the length of the current run of empty pages (page by page).
  var onEmptyPages: (@Sendable (Int) -> Void)? = nil
  /// What the notes of a parallel scan that stops say after "interrupted; " or "the listing
  /// stopped; " (`nil`: a parallel scan stops with no note, and a signal says "interrupted").
  var parallelNote: DisplayText? = nil

  /// Calls `body` with each batch of objects in key order, and, page by page, the page it came
  /// from (its folders too); `body` returns `false` to stop. `atEnd` runs once the listing has
  /// reached its end (or its entry limit), before this returns; its failures are reported as the
  /// listing's.
  ///
  /// - Returns: the marker where the rest of the listing begins when the entry limit stopped it
  ///   (`nil` when it reached its end).
  /// - Throws: `CommandFailure` (with the note that says where to resume, when resuming can
  ///   help) for a `StorageError`; anything else `body` or `atEnd` throws, as it is.
  @discardableResult
  func run(
    _ body: ([ObjectEntry], ListPages.Element?) async throws -> Bool,
    atEnd: () throws -> Void = {}
  ) async throws -> String? {
    if let parallel {
      try await runParallel(concurrency: parallel, body, atEnd: atEnd)
      return nil
    }
    let pages = ListPages(
      ListRequest(
        bucket: bucket, prefix: prefix, delimiter: delimiter, marker: marker, limit: pageSize,
        keysOnly: keysOnly),
      fetch: provider.pageFetcher, entryLimit: entryLimit,
      maximumEmptyPages: Listing.maximumEmptyPages, onEmptyPages: onEmptyPages)
    // Where the output stands: the marker of the first entry not yet handed to `body`.
    var position = marker
    let resume = self.resume
    func hint(_ said: DisplayText) -> DisplayText? {
      guard let resume, let position else { return nil }
      return said + resume(position)
    }
    Signals.setResumeHint(hint("interrupted; "))
    defer { Signals.setResumeHint(nil) }
    do {
      for try await element in pages {
        guard try await body(element.page.items, element) else { return position }
        position = element.page.nextMarker
        Signals.setResumeHint(hint("interrupted; "))
      }
      // A listing cancelled after its last page still stops as interrupted.
      if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
      try atEnd()
    } catch let error as StorageError {
      guard error.kind != .outputClosed, error.hint != .restartListing,
        let note = hint(error.kind == .cancelled ? "interrupted; " : "the listing stopped; ")
      else { throw CommandFailure(error: error, notes: []) }
      throw CommandFailure(error: error, notes: [note])
    }
    return position
  }

  private func runParallel(
    concurrency: Int, _ body: ([ObjectEntry], ListPages.Element?) async throws -> Bool,
    atEnd: () throws -> Void
  ) async throws {
    let listing = ParallelListing(
      fetch: provider.pageFetcher, bucket: bucket, prefix: prefix, pageSize: pageSize,
      concurrency: concurrency, keysOnly: keysOnly)
    let note = parallelNote
    Signals.setResumeHint(note.map { "interrupted; " + $0 } ?? "interrupted")
    defer { Signals.setResumeHint(nil) }
    do {
      try await listing.run { objects in
        // A parallel listing runs to its end: `false` is only honoured by cancelling it.
        guard try await body(objects, nil) else { throw ScanStopped() }
      }
      try atEnd()
    } catch is ScanStopped {
      return
    } catch let error as StorageError {
      guard error.kind != .outputClosed, let note else {
        throw CommandFailure(error: error, notes: [])
      }
      let said: DisplayText = error.kind == .cancelled ? "interrupted; " : "the listing stopped; "
      throw CommandFailure(error: error, notes: [said + note])
    }
  }

  private struct ScanStopped: Error {}
}
