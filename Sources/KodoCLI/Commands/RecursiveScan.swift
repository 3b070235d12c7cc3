import StorageCore

/// Every object under a prefix, page by page (`ListPages`) or with the top-level folders listed
/// concurrently (`ParallelListing`): the scan under `du` and `find`.
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

  /// Calls `body` with each batch of objects in key order, and, page by page, the page it came
  /// from; `body` returns `false` to stop.
  func run(
    _ body: ([ObjectEntry], ListPages.Element?) async throws -> Bool
  ) async throws {
    if let parallel {
      let listing = ParallelListing(
        fetch: provider.pageFetcher, bucket: bucket, prefix: prefix, pageSize: pageSize,
        concurrency: parallel)
      Signals.setResumeHint("interrupted")
      defer { Signals.setResumeHint(nil) }
      do {
        try await listing.run { objects in
          // A parallel listing runs to its end: `false` is only honoured by cancelling it.
          guard try await body(objects, nil) else { throw ScanStopped() }
        }
      } catch is ScanStopped {
        return
      } catch let error as StorageError {
        throw CommandFailure(error: error, notes: [])
      }
      return
    }
    let pages = ListPages(
      ListRequest(bucket: bucket, prefix: prefix, marker: marker, limit: pageSize),
      fetch: provider.pageFetcher, maximumEmptyPages: Listing.maximumEmptyPages)
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
        guard try await body(element.page.items, element) else { return }
        position = element.page.nextMarker
        Signals.setResumeHint(hint("interrupted; "))
      }
      if Task.isCancelled { throw StorageError(.cancelled, "cancelled") }
    } catch let error as StorageError {
      guard error.kind != .outputClosed, error.hint != .restartListing,
        let note = hint(error.kind == .cancelled ? "interrupted; " : "the listing stopped; ")
      else { throw CommandFailure(error: error, notes: []) }
      throw CommandFailure(error: error, notes: [note])
    }
  }

  private struct ScanStopped: Error {}
}
