import KodoBrowse
import StorageCore
import Synchronization

/// The browser's pages, one at a time, through the shared paging driver: each folder keeps its
/// `PageCursor` (the markers and entries seen so far), so the browser's listing obeys the same
/// rules as the command line's (`ListPages`): no marker twice, no endless run of empty pages,
/// entries that fit the request and strictly increase. A page that breaks one is a failure the
/// browser shows on the folder, and it stops asking.
final class BrowsePaging: Sendable {
  private let cursors = Mutex([Location: PageCursor]())
  /// The most folders whose cursors are kept; past it they are all dropped, and a folder
  /// resumed later starts a new cursor at its marker (the rules still hold from there on).
  static let keptFolders = 256

  /// The folder's next page: through the cursor kept for the folder when it stands at `marker`,
  /// else a new one from `marker` (`nil`: the folder's start). The cursor moves only when the
  /// page is taken and the request was not cancelled, so a page asked for again is checked as
  /// the first time.
  func nextPage(
    from provider: any StorageProvider, bucket: String, prefix: String, marker: String?
  ) async -> Result<ListPage, Failure> {
    let place = Location.folder(bucket: bucket, prefix: prefix)
    var cursor: PageCursor
    if let kept = cursors.withLock({ $0[place] }), marker != nil, kept.nextMarker == marker,
      !kept.isFinished
    {
      cursor = kept
    } else {
      cursor = PageCursor(
        ListRequest(bucket: bucket, prefix: prefix, delimiter: "/", marker: marker),
        maximumEmptyPages: Listing.maximumEmptyPages)
    }
    let result = await EffectRunner.result { () async throws(StorageError) -> ListPage in
      try await cursor.step(provider.pageFetcher)?.page ?? ListPage()
    }
    if case .success = result, !Task.isCancelled {
      cursors.withLock { cursors in
        if cursors[place] == nil, cursors.count >= Self.keptFolders { cursors.removeAll() }
        cursors[place] = cursor
      }
    }
    return result
  }
}
