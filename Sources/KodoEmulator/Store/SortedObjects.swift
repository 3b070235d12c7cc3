/// A writable bucket's objects in key byte order: a list of sorted chunks of at most
/// `chunkLimit` objects each, with each chunk's first index.
///
/// A lookup is two binary searches (O(log n)). An insert or a delete changes one chunk (at most
/// `chunkLimit` objects moved) and the chunks' first indices after it (n / `chunkLimit` integers),
/// instead of moving half the bucket. A copy of the value (a reader's snapshot) shares every
/// chunk: a write while a snapshot is held copies the list of chunks and the one chunk it changes,
/// never the bucket.
struct SortedObjects: Sendable {
  static let defaultChunkLimit = 512

  /// The objects, in key byte order; no chunk is empty.
  private var chunks: [[StoredObject]] = []
  /// The index (in the whole) of each chunk's first object.
  private var starts: [Int] = []
  let chunkLimit: Int
  private(set) var count = 0

  /// The objects, sorted by key bytes with unique keys.
  init(sorted objects: [StoredObject], chunkLimit: Int = Self.defaultChunkLimit) {
    self.chunkLimit = max(4, chunkLimit)
    let fill = self.chunkLimit / 2
    var start = 0
    while start < objects.count {
      let end = min(objects.count, start + fill)
      chunks.append(Array(objects[start..<end]))
      starts.append(start)
      start = end
    }
    count = objects.count
  }

  var isEmpty: Bool { count == 0 }

  subscript(index: Int) -> StoredObject {
    let (chunk, offset) = position(of: index)
    return chunks[chunk][offset]
  }

  /// Every object in order (tests and diagnostics).
  var all: [StoredObject] { chunks.flatMap { $0 } }

  /// The first index whose key is not less than `target` (or greater than it, if `strictly`).
  func lowerBound(_ target: [UInt8], strictly: Bool = false) -> Int {
    let chunk = chunk(for: target, strictly: strictly)
    guard chunk < chunks.count else { return count }
    return starts[chunk] + Self.lowerBound(target, in: chunks[chunk], strictly: strictly)
  }

  /// The index of the object with exactly this key.
  func index(of key: [UInt8]) -> Int? {
    let index = lowerBound(key)
    guard index < count, self[index].key == key else { return nil }
    return index
  }

  /// The object with exactly this key.
  func object(_ key: [UInt8]) -> StoredObject? {
    let chunk = chunk(for: key, strictly: false)
    guard chunk < chunks.count else { return nil }
    let offset = Self.lowerBound(key, in: chunks[chunk], strictly: false)
    guard offset < chunks[chunk].count, chunks[chunk][offset].key == key else { return nil }
    return chunks[chunk][offset]
  }

  // MARK: Writes

  /// Stores `object`, replacing the one with its key; returns the replaced one.
  @discardableResult
  mutating func upsert(_ object: StoredObject) -> StoredObject? {
    guard !chunks.isEmpty else {
      chunks = [[object]]
      starts = [0]
      count = 1
      return nil
    }
    let chunk = min(chunk(for: object.key, strictly: false), chunks.count - 1)
    let offset = Self.lowerBound(object.key, in: chunks[chunk], strictly: false)
    if offset < chunks[chunk].count, chunks[chunk][offset].key == object.key {
      let replaced = chunks[chunk][offset]
      chunks[chunk][offset] = object
      return replaced
    }
    chunks[chunk].insert(object, at: offset)
    count += 1
    shiftStarts(after: chunk, by: 1)
    if chunks[chunk].count > chunkLimit { split(chunk) }
    return nil
  }

  /// Removes the object with `key`; returns it.
  @discardableResult
  mutating func remove(_ key: [UInt8]) -> StoredObject? {
    let chunk = chunk(for: key, strictly: false)
    guard chunk < chunks.count else { return nil }
    let offset = Self.lowerBound(key, in: chunks[chunk], strictly: false)
    guard offset < chunks[chunk].count, chunks[chunk][offset].key == key else { return nil }
    let removed = chunks[chunk].remove(at: offset)
    count -= 1
    shiftStarts(after: chunk, by: -1)
    if chunks[chunk].isEmpty {
      chunks.remove(at: chunk)
      starts.remove(at: chunk)
    } else if chunks[chunk].count < chunkLimit / 4 {
      mergeSmall(chunk)
    }
    return removed
  }

  // MARK: Helpers

  /// The chunk that holds, or would hold, the first key not less than `target` (greater, if
  /// `strictly`): the first chunk whose last key is; `chunks.count` when none is.
  private func chunk(for target: [UInt8], strictly: Bool) -> Int {
    var low = 0
    var high = chunks.count
    while low < high {
      let middle = low + (high - low) / 2
      let last = chunks[middle][chunks[middle].count - 1].key
      let order = ByteOrder.compare(last, target)
      if order < 0 || (strictly && order == 0) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  private static func lowerBound(_ target: [UInt8], in chunk: [StoredObject], strictly: Bool)
    -> Int
  {
    var low = 0
    var high = chunk.count
    while low < high {
      let middle = low + (high - low) / 2
      let order = ByteOrder.compare(chunk[middle].key, target)
      if order < 0 || (strictly && order == 0) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  /// The chunk and offset of the object at `index`: the last chunk starting at or before it.
  private func position(of index: Int) -> (chunk: Int, offset: Int) {
    precondition(index >= 0 && index < count, "index out of range")
    var low = 0
    var high = starts.count
    while high - low > 1 {
      let middle = low + (high - low) / 2
      if starts[middle] <= index {
        low = middle
      } else {
        high = middle
      }
    }
    return (low, index - starts[low])
  }

  private mutating func shiftStarts(after chunk: Int, by delta: Int) {
    var next = chunk + 1
    while next < starts.count {
      starts[next] += delta
      next += 1
    }
  }

  private mutating func split(_ chunk: Int) {
    let half = chunks[chunk].count / 2
    let tail = Array(chunks[chunk][half...])
    chunks[chunk].removeSubrange(half...)
    chunks.insert(tail, at: chunk + 1)
    starts.insert(starts[chunk] + half, at: chunk + 1)
  }

  /// Joins a small chunk to a neighbour when the two fit in one.
  private mutating func mergeSmall(_ chunk: Int) {
    if chunk + 1 < chunks.count, chunks[chunk].count + chunks[chunk + 1].count <= chunkLimit {
      let next = chunks.remove(at: chunk + 1)
      starts.remove(at: chunk + 1)
      chunks[chunk].append(contentsOf: next)
    } else if chunk > 0, chunks[chunk - 1].count + chunks[chunk].count <= chunkLimit {
      let this = chunks.remove(at: chunk)
      starts.remove(at: chunk)
      chunks[chunk - 1].append(contentsOf: this)
    }
  }
}
