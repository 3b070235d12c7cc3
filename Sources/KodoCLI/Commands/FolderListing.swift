import StorageCore

/// The objects under a folder, listed once up front where a command would otherwise ask about
/// each key (`sync`'s upload, `put -r --skip-same`): kept in the listing's order (strictly
/// increasing by bytes: `ListPages` checks it), each found by its key's exact bytes as the walk
/// meets the local files, and marked as having one. No map of every key: the walk meets keys
/// mostly in the listing's order, so the object after the last one found is tried first, and a
/// binary search by bytes finds the others. Two keys that differ only in their Unicode
/// normalization are two objects (a map of `String`s takes one for the other).
final class FolderListing {
  /// The listing's pages as they came (kept whole: no copy of each object), none empty.
  private let pages: [[ObjectEntry]]
  /// The index, counted over every page, of each page's first object.
  private let starts: [Int]
  /// How many objects the pages hold.
  let count: Int
  /// Whether a local file has the object at the same index.
  private var taken: [Bool]
  /// Where the next key is looked for first: its index (counted over every page), and its
  /// page and place in that page.
  private var cursor = 0
  private var cursorPlace = (page: 0, offset: 0)

  /// `pages` as listed: their objects in strictly increasing byte order of their keys.
  init(pages: [[ObjectEntry]]) {
    self.pages = pages.filter { !$0.isEmpty }
    var starts: [Int] = []
    var count = 0
    for page in self.pages {
      starts.append(count)
      count += page.count
    }
    self.starts = starts
    self.count = count
    taken = [Bool](repeating: false, count: count)
  }

  /// Every object under `prefix`, listed page by page.
  static func listing(_ provider: any StorageProvider, bucket: String, prefix: String)
    async throws -> FolderListing
  {
    var pages: [[ObjectEntry]] = []
    try await RecursiveScan(
      provider: provider, bucket: bucket, prefix: prefix, pageSize: 1000, parallel: nil
    ).run { page, _ in
      pages.append(page)
      return !Task.isCancelled
    }
    return FolderListing(pages: pages)
  }

  /// The page, and the place in it, of the object at `index` (counted over every page).
  private func place(_ index: Int) -> (page: Int, offset: Int) {
    // The last page that starts at or before `index`.
    var low = 0
    var high = starts.count - 1
    while low < high {
      let middle = low + (high - low + 1) / 2
      if starts[middle] <= index { low = middle } else { high = middle - 1 }
    }
    return (low, index - starts[low])
  }

  /// The key of the object at `index`.
  private func key(_ index: Int) -> String {
    let (page, offset) = place(index)
    return pages[page][offset].key
  }

  /// Where an object is in the listing: its page, and its place in that page.
  struct Place {
    fileprivate let page: Int
    fileprivate let offset: Int
  }

  /// The object at `place`.
  subscript(place: Place) -> ObjectEntry { pages[place.page][place.offset] }

  /// The size of the object at `place` (read in place: no copy of the object).
  func size(at place: Place) -> Int64 { pages[place.page][place.offset].size }

  /// The object listed at exactly `key`'s bytes (`nil`: none), marked as having a local file.
  func take(_ key: String) -> ObjectEntry? { takePlace(key).map { self[$0] } }

  /// Where the object listed at exactly `key`'s bytes is (`nil`: none), marked as having a
  /// local file.
  func takePlace(_ key: String) -> Place? {
    let index: Int
    let found: (page: Int, offset: Int)
    if cursor < count,
      KeyBytes.compare(pages[cursorPlace.page][cursorPlace.offset].key, key) == 0
    {
      index = cursor
      found = cursorPlace
    } else {
      // The first object whose key does not sort before `key`.
      var low = 0
      var high = count
      while low < high {
        let middle = low + (high - low) / 2
        if KeyBytes.compare(self.key(middle), key) < 0 {
          low = middle + 1
        } else {
          high = middle
        }
      }
      cursor = low
      guard low < count else { return nil }
      cursorPlace = place(low)
      guard KeyBytes.compare(pages[cursorPlace.page][cursorPlace.offset].key, key) == 0 else {
        return nil
      }
      index = low
      found = cursorPlace
    }
    taken[index] = true
    cursor = index + 1
    let next = found.offset + 1
    cursorPlace = next < pages[found.page].count ? (found.page, next) : (found.page + 1, 0)
    return Place(page: found.page, offset: found.offset)
  }

  /// The keys no local file had, under `prefix`, that the patterns keep (matched against the
  /// path below `prefix`), in key order; a folder marker (an empty object ending in `/`) is
  /// not one.
  func untaken(prefix: String, _ patterns: KeyPatterns) -> [String] {
    var keys: [String] = []
    var index = 0
    for page in pages {
      for object in page {
        defer { index += 1 }
        guard !taken[index], object.key.utf8.starts(with: prefix.utf8) else { continue }
        if KeySegments.endsWithSlash(object.key) && object.size == 0 { continue }
        let relative = String(
          decoding: object.key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
        if patterns.keeps(relative) { keys.append(object.key) }
      }
    }
    return keys
  }
}
