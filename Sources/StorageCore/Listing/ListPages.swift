/// What one page of a listing asks for.
public struct ListRequest: Sendable, Equatable {
  /// The bucket.
  public var bucket: String
  /// Only keys that start with this.
  public var prefix: String
  /// Groups keys into common prefixes ("folders") at this separator; `nil` lists every key.
  public var delimiter: String?
  /// Where to continue; empty for the start.
  public var marker: String
  /// The most entries on the page, 1–1000; prefixes and objects both count.
  public var limit: Int

  /// A request from its parts.
  public init(
    bucket: String, prefix: String = "", delimiter: String? = nil, marker: String = "",
    limit: Int = 1000
  ) {
    self.bucket = bucket
    self.prefix = prefix
    self.delimiter = delimiter
    self.marker = marker
    self.limit = limit
  }
}

/// Fetches one page of a listing; a provider's `listPage`.
public typealias PageFetcher = @Sendable (ListRequest) async throws(StorageError) -> ListPage

/// The pages of a listing, fetched one at a time as they are consumed.
///
/// Empty pages that carry a marker are followed, not taken for the end. Each page is fetched (and
/// retried) with the marker the previous page returned, so retries can never skip or repeat
/// entries.
public struct ListPages: AsyncSequence, Sendable {
  /// One page and the marker that fetched it (where to resume to see this page again).
  public struct Element: Sendable {
    /// The marker this page was fetched with ("" for the first page).
    public var startMarker: String
    /// The page.
    public var page: ListPage
  }

  /// Listing fails only with `StorageError`.
  public typealias Failure = StorageError
  let first: ListRequest
  let fetch: PageFetcher

  /// The pages of `request`'s listing from its marker on.
  public init(_ request: ListRequest, fetch: @escaping PageFetcher) {
    self.first = request
    self.fetch = fetch
  }

  /// Iterates the pages.
  public func makeAsyncIterator() -> Iterator {
    Iterator(sequence: self, nextMarker: first.marker)
  }

  /// Fetches the next page on demand.
  public struct Iterator: AsyncIteratorProtocol {
    /// Listing fails only with `StorageError`.
    public typealias Failure = StorageError
    let sequence: ListPages
    /// The marker the next page will be fetched with; `nil` after the last page.
    public private(set) var nextMarker: String?

    init(sequence: ListPages, nextMarker: String) {
      self.sequence = sequence
      self.nextMarker = nextMarker
    }

    /// The next page, or `nil` after the last.
    public mutating func next() async throws(StorageError) -> Element? {
      guard let marker = nextMarker else { return nil }
      var request = sequence.first
      request.marker = marker
      let page = try await sequence.fetch(request)
      nextMarker = page.marker.isEmpty ? nil : page.marker
      return Element(startMarker: marker, page: page)
    }
  }
}
