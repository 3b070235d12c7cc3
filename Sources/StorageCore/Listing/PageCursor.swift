import Foundation

/// Where one listing stands, and the rules every page of it must keep: the paging driver under
/// `ListPages` (which reads ahead) and the browser (which asks for one page at a time).
///
/// A page is taken only when it fits the request and the listing so far; anything else throws
/// `.protocolError`, so no service (or anything in its place) can make a listing endless, show
/// another listing's entries, or repeat entries:
/// - **Answers match the request.** A page that names its bucket or prefix (OSS's `Name`,
///   `Prefix`) names the ones asked for. Every key starts with the prefix; with a delimiter, an
///   object's key holds no delimiter after the prefix, and each folder is the prefix, something,
///   and the delimiter; without one, there are no folders.
/// - **Entries strictly increase** (by UTF-8 bytes, the services' order), across pages too: no
///   entry comes twice or goes backwards. One exception: a page may open with the folder the
///   previous page ended with (a folder can straddle a page boundary); it is dropped.
/// - **Markers never repeat** within the listing (a cycle).
/// - **Empty pages end**: more than `maximumEmptyPages` pages in a row without an entry is a
///   listing that does not progress.
///
/// A page that breaks a rule leaves the cursor as it was: asking again gives the same answer.
public struct PageCursor: Sendable {
  /// The first page's request; later pages change only its marker (and, near an entry limit,
  /// its page size).
  public let request: ListRequest
  /// The marker the next page will be fetched with (`nil` for the first page).
  public private(set) var nextMarker: String?
  /// Whether the last page has been taken.
  public private(set) var isFinished = false
  /// The length of the current run of pages without an entry.
  public private(set) var emptyPagesInARow = 0
  let maximumEmptyPages: Int
  let onEmptyPages: (@Sendable (Int) -> Void)?
  // Hashes of the markers given so far: 8 bytes a page, whatever the markers' length.
  private var seenMarkers: Set<Int> = []
  private var remaining: Int?
  /// The greatest entry so far, and whether it was a folder.
  private var last: (entry: String, isFolder: Bool)?

  /// A cursor at `request`'s marker.
  ///
  /// - Parameters:
  ///   - request: the first page's request.
  ///   - entryLimit: stop after this many entries (prefixes and objects); the last page is asked
  ///     for no more than remain.
  ///   - maximumEmptyPages: the most consecutive pages without an entry.
  ///   - onEmptyPages: told the length of the current run after each empty page.
  public init(
    _ request: ListRequest, entryLimit: Int? = nil,
    maximumEmptyPages: Int = ListPages.defaultMaximumEmptyPages,
    onEmptyPages: (@Sendable (Int) -> Void)? = nil
  ) {
    self.request = request
    self.nextMarker = request.marker
    self.remaining = entryLimit
    self.maximumEmptyPages = Swift.max(1, maximumEmptyPages)
    self.onEmptyPages = onEmptyPages
    if let marker = request.marker { seenMarkers.insert(marker.hashValue) }
  }

  /// The request for the next page, or `nil` after the last.
  public var nextRequest: ListRequest? {
    guard !isFinished else { return nil }
    var next = request
    next.marker = nextMarker
    if let remaining { next.limit = Swift.max(1, Swift.min(next.limit, remaining)) }
    return next
  }

  /// Whether the next page's size depends on this one's entries (an entry limit).
  var hasEntryLimit: Bool { remaining != nil }

  /// Whether `marker` was already given in this listing (a read-ahead never follows one).
  func hasSeen(_ marker: String) -> Bool {
    seenMarkers.contains(marker.hashValue)
  }

  /// Fetches the next page with `fetch` and takes it (see `take(_:)`); `nil` after the last.
  public mutating func step(_ fetch: PageFetcher) async throws(StorageError) -> ListPages.Element? {
    guard let next = nextRequest else { return nil }
    return try take(try await fetch(next).decode())
  }

  /// Takes `page`, the answer to `nextRequest`: checks it against the request and the listing so
  /// far, and moves past it.
  ///
  /// - Returns: the page (without a folder repeated from the previous page) and the marker that
  ///   fetched it.
  /// - Throws: `StorageError(.protocolError)` when the page breaks a rule; the cursor is then
  ///   unchanged.
  public mutating func take(_ page: ListPage) throws(StorageError) -> ListPages.Element {
    guard !isFinished else {
      throw StorageError(.protocolError, "\(what) was already complete")
    }
    var page = page
    let greatest = try check(&page)
    var state = self
    if let greatest { state.last = greatest }
    if let left = state.remaining {
      state.remaining = left - page.entryCount
      if left - page.entryCount <= 0 { state.isFinished = true }
    }
    let element = ListPages.Element(startMarker: nextMarker, page: page)
    guard let marker = page.nextMarker else {
      state.isFinished = true
      self = state
      return element
    }
    if state.isFinished {
      self = state
      return element
    }
    guard state.seenMarkers.insert(marker.hashValue).inserted else {
      throw StorageError(
        .protocolError,
        "\(what) goes round in circles: the service gave a marker it had given before in this listing"
      )
    }
    if page.entryCount == 0 {
      state.emptyPagesInARow += 1
      onEmptyPages?(state.emptyPagesInARow)
      if state.emptyPagesInARow > maximumEmptyPages {
        throw StorageError(
          .protocolError,
          "\(what) is not progressing: \(state.emptyPagesInARow) pages in a row brought no entry")
      }
    } else {
      state.emptyPagesInARow = 0
    }
    state.nextMarker = marker
    self = state
    return element
  }

  /// "the listing of "bucket/prefix"", for messages.
  private var what: DisplayText {
    "the listing of \(DisplayText(quoting: request.bucket + "/" + request.prefix))"
  }

  /// Checks that `page` answers the request and follows the entries so far; drops a folder
  /// repeated from the previous page. Returns the page's greatest entry, if it has any.
  private func check(_ page: inout ListPage) throws(StorageError) -> (String, Bool)? {
    if let bucket = page.bucket, !ExactKey.same(bucket, request.bucket) {
      throw StorageError(
        .protocolError,
        "the answer to \(what) is about another bucket, \(DisplayText(quoting: bucket)); it answers another request"
      )
    }
    if let prefix = page.prefix, !ExactKey.same(prefix, request.prefix) {
      throw StorageError(
        .protocolError,
        "the answer to \(what) lists another prefix, \(DisplayText(quoting: prefix)); it answers another request"
      )
    }
    if let first = page.commonPrefixes.first, let last, last.isFolder,
      ExactKey.same(first, last.entry)
    {
      page.commonPrefixes.removeFirst()
    }
    let prefix = Array(request.prefix.utf8)
    let delimiter = request.delimiter.map { Array($0.utf8) }
    var previous = last?.entry
    // By index: `for item in page.items` would copy each entry (a retain per field) for its key.
    for index in page.items.indices {
      let key = page.items[index].key
      try checkPlace(key, folder: false, prefix: prefix, delimiter: delimiter)
      try checkOrder(key, after: previous)
      previous = key
    }
    var previousFolder = last?.entry
    if !page.commonPrefixes.isEmpty, delimiter == nil {
      throw StorageError(
        .protocolError,
        "the answer to \(what) holds folders (\(DisplayText(quoting: page.commonPrefixes[0]))), though it was asked for every key"
      )
    }
    for folder in page.commonPrefixes {
      try checkPlace(folder, folder: true, prefix: prefix, delimiter: delimiter)
      try checkOrder(folder, after: previousFolder)
      previousFolder = folder
    }
    switch (page.items.last?.key, page.commonPrefixes.last) {
    case (nil, nil): return nil
    case (let key?, nil): return (key, false)
    case (nil, let folder?): return (folder, true)
    case (let key?, let folder?):
      return Self.precedes(key, folder) ? (folder, true) : (key, false)
    }
  }

  /// Whether `entry` is where the request puts entries: under the prefix and, with a delimiter,
  /// an object holds none after it and a folder ends at its first one.
  private func checkPlace(_ entry: String, folder: Bool, prefix: [UInt8], delimiter: [UInt8]?)
    throws(StorageError)
  {
    let bytes = entry.utf8
    guard bytes.starts(with: prefix) else {
      throw StorageError(
        .protocolError,
        "\(what) holds \(DisplayText(quoting: entry)), which is not under the prefix asked for")
    }
    guard let delimiter, !delimiter.isEmpty else { return }
    let rest = bytes.dropFirst(prefix.count)
    let end = Self.firstEnd(of: delimiter, in: rest)
    if folder {
      guard end == bytes.count - prefix.count else {
        throw StorageError(
          .protocolError,
          "\(what) holds the folder \(DisplayText(quoting: entry)), which is not one folder of the level asked for"
        )
      }
    } else if end != nil {
      throw StorageError(
        .protocolError,
        "\(what) holds the key \(DisplayText(quoting: entry)) among the level's objects, though it lies in a folder"
      )
    }
  }

  /// Whether `entry` comes strictly after `previous` (by bytes).
  private func checkOrder(_ entry: String, after previous: String?) throws(StorageError) {
    guard let previous, !Self.precedes(previous, entry) else { return }
    throw StorageError(
      .protocolError,
      "\(what) gave \(DisplayText(quoting: entry)) after \(DisplayText(quoting: previous)): entries must come in increasing order, each once"
    )
  }

  /// Whether `a` sorts strictly before `b` by UTF-8 bytes.
  static func precedes(_ a: String, _ b: String) -> Bool { KeyBytes.precede(a, b) }

  /// The offset just past the first `needle` in `bytes`, or `nil`.
  static func firstEnd<Bytes: Collection<UInt8>>(of needle: [UInt8], in bytes: Bytes) -> Int? {
    var start = bytes.startIndex
    var offset = 0
    while start != bytes.endIndex {
      if bytes[start...].starts(with: needle) { return offset + needle.count }
      bytes.formIndex(after: &start)
      offset += 1
    }
    return nil
  }
}
