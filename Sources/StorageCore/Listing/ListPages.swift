/// What one page of a listing asks for.
public struct ListRequest: Sendable, Equatable {
  /// The bucket.
  public var bucket: String
  /// Only keys that start with this.
  public var prefix: String
  /// Groups keys into common prefixes ("folders") at this separator; `nil` lists every key.
  public var delimiter: String?
  /// Where to continue (a marker a previous page gave); `nil` for the start.
  public var marker: String?
  /// The most entries on the page, 1–1000; prefixes and objects both count.
  public var limit: Int
  /// Whether the caller uses only each object's key (`rm -r`): a provider may then skip decoding
  /// the other fields, which keep their defaults (size 0, no hash…). Nothing of it goes on the
  /// wire.
  public var keysOnly: Bool

  /// A request from its parts.
  public init(
    bucket: String, prefix: String = "", delimiter: String? = nil, marker: String? = nil,
    limit: Int = 1000, keysOnly: Bool = false
  ) {
    self.bucket = bucket
    self.prefix = prefix
    self.delimiter = delimiter
    self.marker = marker
    self.limit = limit
    self.keysOnly = keysOnly
  }
}

/// Fetches one page of a listing: the service's answer, whose marker is known before the
/// page is decoded.
public typealias PageFetcher = @Sendable (ListRequest) async throws(StorageError) -> PageAnswer

/// A page as the service answered it: the marker that continues the listing, read first, and
/// the page itself, decoded on demand.
///
/// The next request needs only the marker, so `ListPages` sends it before decoding this page: the
/// service prepares the next page while this one is decoded and written.
public struct PageAnswer: Sendable {
  /// The marker that continues the listing after this page (`nil` when it is the last), as far
  /// as a quick look could tell; the decoded page's marker must agree.
  public var nextMarker: String?
  private let decodePage: @Sendable () throws(StorageError) -> ListPage

  /// An answer whose page `decode` produces.
  public init(
    nextMarker: String?, decode: @escaping @Sendable () throws(StorageError) -> ListPage
  ) {
    self.nextMarker = nextMarker
    self.decodePage = decode
  }

  /// An answer already decoded.
  public init(_ page: ListPage) {
    self.init(nextMarker: page.nextMarker, decode: { page })
  }

  /// The page.
  public func decode() throws(StorageError) -> ListPage {
    try decodePage()
  }
}

/// The pages of a listing, fetched one at a time as they are consumed: the one paging loop of
/// the package (`ls`, `find`, `du`, `get -r` and `ParallelListing` iterate it; the browser steps
/// its `PageCursor` one page at a time).
///
/// Each page is fetched (and retried) with the marker the previous page returned, so retries can
/// never skip or repeat entries. Without an entry limit, the request for the next page is sent as
/// soon as this page's marker is known, before this page is decoded and handed on: from the first
/// bytes of its answer when the provider reads them (`MarkerWatch`), else once the answer has
/// arrived. The service's work and ours overlap, at most `ReadAhead.depth` requests ahead; a
/// request sent ahead is used only for the marker the decoded page gives. Empty pages that carry a marker
/// are followed, not taken for the end. Every page must keep `PageCursor`'s rules (answers that
/// match the request, strictly increasing entries within the prefix, no marker twice, no endless
/// run of empty pages); one that does not throws `.protocolError`.
public struct ListPages: AsyncSequence, Sendable {
  /// One page and the marker that fetched it (where to resume to see this page again).
  public struct Element: Sendable {
    /// The marker this page was fetched with (`nil` for the first page).
    public var startMarker: String?
    /// The page.
    public var page: ListPage
  }

  /// Listing fails only with `StorageError`.
  public typealias Failure = StorageError
  /// The most pages in a row that may bring no entry before the listing is taken to be stuck.
  public static let defaultMaximumEmptyPages = 10_000

  let cursor: PageCursor
  let fetch: PageFetcher

  /// The pages of `request`'s listing from its marker on.
  ///
  /// - Parameters:
  ///   - request: the first page's request; later pages change only its marker.
  ///   - fetch: fetches one page.
  ///   - entryLimit: stop after this many entries (prefixes and objects); the last page is
  ///     asked for no more than remain, so it ends exactly there, and its `nextMarker` (when not
  ///     `nil`) resumes exactly after it.
  ///   - maximumEmptyPages: the most consecutive pages without an entry.
  ///   - onEmptyPages: told the length of the current run of empty pages after each empty page,
  ///     so that a long run can be shown as progress.
  public init(
    _ request: ListRequest, fetch: @escaping PageFetcher, entryLimit: Int? = nil,
    maximumEmptyPages: Int = ListPages.defaultMaximumEmptyPages,
    onEmptyPages: (@Sendable (Int) -> Void)? = nil
  ) {
    self.cursor = PageCursor(
      request, entryLimit: entryLimit, maximumEmptyPages: maximumEmptyPages,
      onEmptyPages: onEmptyPages)
    self.fetch = fetch
  }

  /// Iterates the pages.
  public func makeAsyncIterator() -> Iterator {
    Iterator(cursor: cursor, fetch: fetch)
  }

  /// Fetches the next page on demand.
  public struct Iterator: AsyncIteratorProtocol {
    /// Listing fails only with `StorageError`.
    public typealias Failure = StorageError
    private var cursor: PageCursor
    /// The requests on their way before their pages are asked for.
    private let ahead: ReadAhead

    init(cursor: PageCursor, fetch: @escaping PageFetcher) {
      self.cursor = cursor
      self.ahead = ReadAhead(cursor.request, fetch: fetch)
    }

    /// The marker the next page will be fetched with (`nil` for the first page).
    public var nextMarker: String? { cursor.nextMarker }
    /// Whether the last page has been returned.
    public var isFinished: Bool { cursor.isFinished }

    /// The next page, or `nil` after the last.
    public mutating func next() async throws(StorageError) -> Element? {
      guard let request = cursor.nextRequest else { return nil }
      // With an entry limit the next request depends on this page's entries: nothing goes ahead.
      let readAhead = !cursor.hasEntryLimit
      let answer = try await ahead.answer(for: request, readAhead: readAhead)
      if readAhead {
        // The next request goes now, before this page is decoded (unless its early marker
        // already sent it).
        ahead.answered(
          request.marker, next: answer.nextMarker,
          mayFollow: answer.nextMarker.map { !cursor.hasSeen($0) } ?? false)
      }
      do {
        let page = try answer.decode()
        if page.nextMarker != answer.nextMarker { ahead.cancelAll() }
        let element = try cursor.take(page)
        if cursor.isFinished { ahead.cancelAll() }
        return element
      } catch {
        ahead.cancelAll()
        throw error
      }
    }
  }
}
