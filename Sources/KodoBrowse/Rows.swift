import StorageCore

/// An object as a folder keeps it: what differs from object to object inline (the digest too,
/// rather than in a string of its own), the rest (class, type, status, content type, the times'
/// digits …, the same for many objects) shared through `Shapes`. 88 bytes instead of
/// `ObjectEntry`'s 240 and a string for the digest, so that a folder of a million objects stays
/// within its memory goal.
struct StoredObject: Sendable, Equatable {
  var key: String
  var size: Int64
  /// `putTime` and `lastModified` in 100 ns units (their digits, and whether `lastModified` is
  /// there, are the shape's).
  var putTime: Int64
  var lastModified: Int64
  /// The hash, or the ETag when the object has no hash (which one is the shape's).
  var digest: ShortText
  var shape: Int32
}

/// Text of up to 40 bytes held inline (a Kodo hash is 28, an OSS ETag 32 to 37); longer text is
/// kept in `Shapes.long` and only its index here.
struct ShortText: Sendable, Equatable {
  private var words: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
  /// The length, or `none` or `long`.
  private var count: UInt8 = Self.none

  static let capacity = 40
  private static let none: UInt8 = 0xFF
  private static let long: UInt8 = 0xFE

  /// No text.
  init() {}

  /// `text`, inline when it fits, else as the index of its copy in `long`.
  init(_ text: String?, long: inout [String]) {
    guard var text else { return }
    let fits = text.withUTF8 { bytes -> Bool in
      guard bytes.count <= Self.capacity else { return false }
      withUnsafeMutableBytes(of: &words) { raw in
        raw.copyMemory(from: UnsafeRawBufferPointer(bytes))
      }
      count = UInt8(bytes.count)
      return true
    }
    if !fits {
      words.0 = UInt64(long.count)
      count = Self.long
      long.append(text)
    }
  }

  /// The text, if any.
  func text(long: [String]) -> String? {
    switch count {
    case Self.none: return nil
    case Self.long:
      let index = Int(truncatingIfNeeded: words.0)
      return long.indices.contains(index) ? long[index] : nil
    default:
      var words = self.words
      let count = Int(self.count)
      return withUnsafeBytes(of: &words) { raw in
        String(decoding: raw.prefix(count), as: UTF8.self)
      }
    }
  }

  static func == (a: ShortText, b: ShortText) -> Bool {
    var (x, y) = (a.words, b.words)
    return a.count == b.count
      && withUnsafeBytes(of: &x) { p in withUnsafeBytes(of: &y) { q in p.elementsEqual(q) } }
  }
}

/// The distinct rests of the objects of a folder: each `ObjectEntry` here has an empty key, zero
/// size and times, and `""` in place of the digest `StoredObject` carries.
struct Shapes: Sendable, Equatable {
  var all: [ObjectEntry] = []
  /// Digests too long to be held inline.
  var long: [String] = []
  /// The shapes by their hash (a few bytes each, however many shapes there are).
  private var byHash: [Int: [Int]] = [:]

  /// `entry` as a folder keeps it.
  mutating func store(_ entry: ObjectEntry) -> StoredObject {
    var shape = entry
    shape.key = ""
    shape.size = 0
    shape.putTime.hundredNanoseconds = 0
    shape.lastModified?.hundredNanoseconds = 0
    var digest: String?
    if let hash = entry.hash {
      digest = hash
      shape.hash = ""
    } else if let etag = entry.etag {
      digest = etag
      shape.etag = ""
    }
    let hash = Self.hash(shape)
    let index: Int
    if let found = byHash[hash]?.first(where: { all[$0] == shape }) {
      index = found
    } else {
      index = all.count
      all.append(shape)
      byHash[hash, default: []].append(index)
    }
    return StoredObject(
      key: entry.key, size: entry.size, putTime: entry.putTime.hundredNanoseconds,
      lastModified: entry.lastModified?.hundredNanoseconds ?? 0,
      digest: ShortText(digest, long: &long), shape: Int32(truncatingIfNeeded: index))
  }
}

extension Shapes {
  /// A hash of every field `==` compares (`ObjectEntry` is not `Hashable`; its fields are).
  static func hash(_ shape: ObjectEntry) -> Int {
    var hasher = Hasher()
    hasher.combine(shape.key)
    hasher.combine(shape.size)
    hasher.combine(shape.putTime)
    hasher.combine(shape.storageClass)
    hasher.combine(shape.mimeType)
    hasher.combine(shape.hash)
    hasher.combine(shape.etag)
    hasher.combine(shape.status)
    hasher.combine(shape.objectType)
    hasher.combine(shape.md5)
    hasher.combine(shape.endUser)
    hasher.combine(shape.meta)
    hasher.combine(shape.restoreStatus)
    hasher.combine(shape.lastModified)
    hasher.combine(shape.parts)
    return hasher.finalize()
  }
}

/// The object `stored` stands for.
func entry(_ stored: StoredObject, shapes: Shapes) -> ObjectEntry {
  let shape = Int(stored.shape)
  guard shapes.all.indices.contains(shape) else {
    return ObjectEntry(
      key: stored.key, size: stored.size,
      putTime: Timestamp(hundredNanoseconds: stored.putTime),
      storageClass: StorageClass(name: "", serviceName: ""))
  }
  var entry = shapes.all[shape]
  entry.key = stored.key
  entry.size = stored.size
  entry.putTime.hundredNanoseconds = stored.putTime
  entry.lastModified?.hundredNanoseconds = stored.lastModified
  if entry.hash != nil {
    entry.hash = stored.digest.text(long: shapes.long)
  } else if entry.etag != nil {
    entry.etag = stored.digest.text(long: shapes.long)
  }
  return entry
}

/// The filter: names (keys after the folder's prefix) that contain `needle` (lower-cased), as
/// `String.contains` on lower-cased names decides. Names and needles of plain ASCII (no CR, which
/// joins a following LF into one character) are compared byte by byte, in place, without making
/// a string; a needle with a non-ASCII character is not in a name of plain ASCII (whose lower
/// case is ASCII too). A pass over a million such keys allocates nothing.
struct NameFilter {
  let needle: String
  let prefix: String
  private let bytes: [UInt8]?
  private let prefixBytes: [UInt8]
  /// Whether the needle holds a byte outside ASCII.
  private let wide: Bool

  init(_ filter: String, prefix: String) {
    needle = filter.lowercased()
    self.prefix = prefix
    prefixBytes = Array(prefix.utf8)
    let utf8 = Array(needle.utf8)
    bytes = utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? utf8 : nil
    // U+037E and U+1FEF are canonically `;` and `` ` `` (U+212A, `K`, is `k` once lower-cased):
    // a needle holding them may match ASCII.
    wide =
      utf8.contains { $0 >= 0x80 }
      && !needle.unicodeScalars.contains { $0.value == 0x37E || $0.value == 0x1FEF }
  }

  var isEmpty: Bool { needle.isEmpty }

  func matches(_ key: String) -> Bool {
    if let bytes {
      let quick = key.utf8.withContiguousStorageIfAvailable { all -> Bool? in
        prefixBytes.withUnsafeBufferPointer { prefix -> Bool? in
          guard all.count >= prefix.count else { return nil }
          var index = 0
          while index < prefix.count {
            if all[index] != prefix[index] { return nil }
            index += 1
          }
          return bytes.withUnsafeBufferPointer { needle in
            Self.search(UnsafeBufferPointer(rebasing: all[prefix.count...]), needle)
          }
        }
      }
      if let quick, let result = quick { return result }
    } else if wide {
      let ascii = key.utf8.withContiguousStorageIfAvailable { all in all.allSatisfy { $0 < 0x80 } }
      if ascii == true { return false }
    }
    return Rows.name(key, in: prefix).lowercased().contains(needle)
  }

  /// Whether `name` holds `needle` (lower-case ASCII), ASCII letters compared without case;
  /// `nil` when the name is not plain ASCII (the caller then compares strings).
  private static func search(
    _ name: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>
  ) -> Bool? {
    for byte in name where byte >= 0x80 || byte == 0x0D { return nil }
    let count = needle.count
    if count == 0 { return true }
    guard name.count >= count else { return false }
    @inline(__always) func lower(_ byte: UInt8) -> UInt8 {
      byte &- 0x41 < 26 ? byte | 0x20 : byte
    }
    let first = needle[0]
    var start = 0
    while start <= name.count - count {
      if lower(name[start]) == first {
        var index = 1
        while index < count && lower(name[start + index]) == needle[index] { index += 1 }
        if index == count { return true }
      }
      start += 1
    }
    return false
  }
}

/// The rows shown: indices into the current folder's entries (or the bucket list), filtered and
/// sorted, and the rows they stand for made on demand: a million loaded entries cost 8 bytes
/// each here, not a copy of each.
package struct Rows: RandomAccessCollection, Sendable {
  enum Source: Sendable {
    case none
    case buckets([Bucket])
    /// The folder's prefixes and objects, and the folder's own prefix.
    case folder(prefixes: [String], objects: [StoredObject], shapes: Shapes, prefix: String)
  }

  /// An entry: `~i` for the folder's prefix `i`, `i` for its object (or bucket) `i`.
  var order: [Int] = []
  /// How many rows at the start are folders.
  var folderRows = 0
  var source: Source = .none

  package var startIndex: Int { 0 }
  package var endIndex: Int { order.count }

  package subscript(position: Int) -> Row { row(order[position]) }

  /// The row of an entry.
  func row(_ entry: Int) -> Row {
    switch source {
    case .none:
      return Row(id: "", name: "", kind: .folder)
    case .buckets(let buckets):
      let bucket = buckets[entry]
      return Row(id: bucket.name, name: bucket.name, kind: .bucket(bucket))
    case .folder(let prefixes, let objects, let shapes, let prefix):
      if entry < 0 {
        let folder = prefixes[~entry]
        return Row(id: folder, name: Self.name(folder, in: prefix), kind: .folder)
      }
      let object = objects[entry]
      return Row(
        id: object.key, name: Self.name(object.key, in: prefix),
        kind: .object(KodoBrowse.entry(object, shapes: shapes)))
    }
  }

  /// The id of the row at `position`, without making the row.
  func id(at position: Int) -> String {
    let entry = order[position]
    switch source {
    case .none: return ""
    case .buckets(let buckets): return buckets[entry].name
    case .folder(let prefixes, let objects, _, _):
      return entry < 0 ? prefixes[~entry] : objects[entry].key
    }
  }

  /// Where the row with this id is, if shown.
  func position(of id: String) -> Int? {
    switch source {
    case .none: return nil
    case .buckets(let buckets):
      return order.firstIndex { ExactKey.same(buckets[$0].name, id) }
    case .folder(let prefixes, let objects, _, _):
      let count = id.utf8.count
      return order.firstIndex { entry in
        let key = entry < 0 ? prefixes[~entry] : objects[entry].key
        return key.utf8.count == count && KeyBytes.compare(key, id) == 0
      }
    }
  }

  /// A key without the folder's prefix (the whole key if it does not start with it), by bytes.
  static func name(_ key: String, in prefix: String) -> String {
    guard !prefix.isEmpty, key.utf8.starts(with: prefix.utf8) else { return key }
    return String(decoding: key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
  }
}

/// The order of a folder's entries: folders first, by name; then objects by the sort key
/// through `ObjectOrder`, the CLI's `--sort` and `--reverse` comparison (smallest and oldest
/// first, ties by key, `reversed` turning all of it round); entries that still tie (the same key
/// twice) in the order they arrived. Total, so that pages merged as they arrive give what one
/// sort of everything gives.
struct EntryOrder {
  let prefixes: [String]
  let objects: [StoredObject]
  let key: SortKey
  let reversed: Bool

  func precedes(_ a: Int, _ b: Int) -> Bool {
    switch (a < 0, b < 0) {
    case (true, false): return true
    case (false, true): return false
    case (true, true):
      let order = KeyBytes.compare(prefixes[~a], prefixes[~b])
      if order != 0 { return reversed ? order > 0 : order < 0 }
      return a > b
    case (false, false):
      let (x, y) = (objects[a], objects[b])
      var sameKey = false
      let before = key.precedes(
        sizes: (x.size, y.size), times: (x.putTime, y.putTime), reversed: reversed
      ) {
        let order = KeyBytes.compare(x.key, y.key)
        sameKey = order == 0
        return order
      }
      return sameKey ? a < b : before
    }
  }

  /// Merges `new` (sorted) into `order[range]` (sorted): only the part of the range from where
  /// the first new entry goes is rewritten, so entries arriving after all others (pages in key
  /// order, sorted by name) are appended.
  func merge(_ new: [Int], into order: inout [Int], range: Range<Int>) {
    guard let first = new.first else { return }
    var low = range.lowerBound
    var high = range.upperBound
    while low < high {
      let middle = low + (high - low) / 2
      if precedes(first, order[middle]) { high = middle } else { low = middle + 1 }
    }
    if low == range.upperBound {
      order.insert(contentsOf: new, at: low)
      return
    }
    var merged: [Int] = []
    merged.reserveCapacity(range.upperBound - low + new.count)
    var old = low
    var next = 0
    while old < range.upperBound && next < new.count {
      if precedes(new[next], order[old]) {
        merged.append(new[next])
        next += 1
      } else {
        merged.append(order[old])
        old += 1
      }
    }
    merged += order[old..<range.upperBound]
    merged += new[next...]
    order.replaceSubrange(low..<range.upperBound, with: merged)
  }

  /// How many of `new` (sorted) go before `entry`.
  func countBefore(_ entry: Int, in new: [Int]) -> Int {
    var low = 0
    var high = new.count
    while low < high {
      let middle = low + (high - low) / 2
      if precedes(new[middle], entry) { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
