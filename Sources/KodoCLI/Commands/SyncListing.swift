import StorageCore

/// What `sync`'s upload listed under its prefix, in the listing's order (strictly increasing by
/// bytes: `ListPages` checks it), each object found by its key's exact bytes as the walk meets
/// the local files, and marked as having one. No map of every key: the walk meets keys mostly
/// in the listing's order, so the object after the last one found is tried first, and a binary
/// search by bytes finds the others. Two keys that differ only in their Unicode normalization
/// are two objects (a `String` map would take one for the other).
final class SyncListing {
  /// The objects, in key order.
  let objects: [ObjectEntry]
  /// Whether a local file has the object at the same index.
  private var taken: [Bool]
  /// Where the next key is looked for first.
  private var cursor = 0

  /// `objects` as listed, in strictly increasing byte order of their keys.
  init(_ objects: [ObjectEntry]) {
    self.objects = objects
    taken = [Bool](repeating: false, count: objects.count)
  }

  /// Every object under `prefix`, listed page by page.
  static func listing(_ provider: any StorageProvider, bucket: String, prefix: String)
    async throws -> SyncListing
  {
    var objects: [ObjectEntry] = []
    try await RecursiveScan(
      provider: provider, bucket: bucket, prefix: prefix, pageSize: 1000, parallel: nil
    ).run { page, _ in
      objects.append(contentsOf: page)
      return !Task.isCancelled
    }
    return SyncListing(objects)
  }

  /// The object listed at exactly `key`'s bytes (`nil`: none), marked as having a local file.
  func take(_ key: String) -> ObjectEntry? {
    let index: Int
    if cursor < objects.count, KeyBytes.compare(objects[cursor].key, key) == 0 {
      index = cursor
    } else {
      // The first object whose key does not sort before `key`.
      var low = 0
      var high = objects.count
      while low < high {
        let middle = low + (high - low) / 2
        if KeyBytes.compare(objects[middle].key, key) < 0 {
          low = middle + 1
        } else {
          high = middle
        }
      }
      cursor = low
      guard low < objects.count, KeyBytes.compare(objects[low].key, key) == 0 else { return nil }
      index = low
    }
    taken[index] = true
    cursor = index + 1
    return objects[index]
  }

  /// The keys no local file had, under `prefix`, that the patterns keep (matched against the
  /// path below `prefix`), in key order; a folder marker (an empty object ending in `/`) is
  /// not one.
  func untaken(prefix: String, _ patterns: KeyPatterns) -> [String] {
    var keys: [String] = []
    for (index, object) in objects.enumerated() where !taken[index] {
      guard object.key.utf8.starts(with: prefix.utf8) else { continue }
      if KeySegments.endsWithSlash(object.key) && object.size == 0 { continue }
      let relative = String(decoding: object.key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
      if patterns.keeps(relative) { keys.append(object.key) }
    }
    return keys
  }
}
