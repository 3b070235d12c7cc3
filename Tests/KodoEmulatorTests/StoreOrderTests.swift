import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import KodoEmulator

/// A writable bucket's objects stay in key byte order through any mix of puts, deletes, moves
/// and listings, snapshots taken along the way keep what they saw, and listing by prefix and
/// marker walks them as Kodo's semantics say (checked against a sorted dictionary).
@Suite struct StoreOrderTests {
  /// A key from a small alphabet (so that keys collide, share prefixes and hold the delimiter),
  /// one to four characters, drawn from `value`.
  static func key(_ value: UInt64, maxLength: Int = 4, minLength: Int = 1) -> String {
    let alphabet: [String] = ["a", "b", "/", "é", "\u{1}", "z"]
    var rest = value
    let length = minLength + Int(rest % UInt64(maxLength - minLength + 1))
    rest /= 7
    var key = ""
    for _ in 0..<length {
      key += alphabet[Int(rest % UInt64(alphabet.count))]
      rest /= UInt64(alphabet.count)
    }
    return key
  }

  static func stored(_ key: String, version: UInt64) -> StoredObject {
    var metadata = ObjectMetadata(fsize: 1, hash: "h\(version)", mimeType: "x/y", putTime: 0)
    metadata.putTime = Int64(truncatingIfNeeded: version)
    return StoredObject(key: Array(key.utf8), metadata: metadata, content: .bytes([1]))
  }

  static func sortedKeys(_ model: [String: Int64]) -> [String] {
    model.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// The snapshot holds exactly the model's keys and put times, in byte order, and finds each.
  static func agree(_ snapshot: StoreSnapshot, _ model: [String: Int64]) -> Bool {
    let keys = sortedKeys(model)
    guard snapshot.count == keys.count else { return false }
    for (index, key) in keys.enumerated() {
      let bytes = Array(key.utf8)
      guard snapshot.key(at: index) == bytes, snapshot.index(of: bytes) == index,
        snapshot.metadata(at: index).putTime == model[key]
      else { return false }
    }
    return true
  }

  /// Every page of a listing, entries in order, each page's marker the next page's start.
  static func listAll(_ snapshot: StoreSnapshot, prefix: String, delimiter: String, limit: Int)
    -> [Entry]
  {
    var entries = [Entry]()
    var marker: [UInt8]?
    repeat {
      let page = Listing.page(
        of: snapshot,
        ListQuery(
          prefix: Array(prefix.utf8), delimiter: Array(delimiter.utf8), marker: marker,
          limit: limit))
      var onPage =
        page.items.map { Entry(isPrefix: false, name: String(decoding: $0.key, as: UTF8.self)) }
        + page.commonPrefixes.map {
          Entry(isPrefix: true, name: String(decoding: $0, as: UTF8.self))
        }
      onPage.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
      entries += onPage
      marker = page.nextMarker
      if marker != nil && onPage.count != limit { return [] }
    } while marker != nil
    return entries
  }

  @Test func anySequenceOfWritesAndListingsAgreesWithASortedModel() async throws {
    let operations = Gen<UInt64>.value(in: 0...UInt64.max).array(of: 0...400)
    let limits = Gen<Int?>.element(of: [4, 5, 8, 64, 512]).map { $0 ?? 4 }
    await seededCheck(count: 60, input: operations, limits) { operations, chunkLimit in
      let spool = try SpoolDirectory()
      let store = ObjectStore(
        objects: [], memory: MemoryBudget(limit: 1 << 30), spool: spool, chunkLimit: chunkLimit)
      var model = [String: Int64]()
      var held: (snapshot: StoreSnapshot, model: [String: Int64])?
      for (step, value) in operations.enumerated() {
        let key = Self.key(value >> 8)
        let version = UInt64(step)
        switch value % 12 {
        case 0...3:
          let object = Self.stored(key, version: version)
          try store.put(key: object.key, content: .bytes([1]), metadata: object.metadata)
          model[key] = Int64(version)
        case 4...6:
          do throws(StoreFailure) {
            try store.delete(key: Array(key.utf8))
            #expect(model.removeValue(forKey: key) != nil, "deleted \(key), not in the model")
          } catch {
            #expect(error == .noSuchKey && model[key] == nil, "delete \(key): \(error)")
          }
        case 7...8:
          // A move as `/batch` does it: a snapshot held across the put and the delete.
          let target = Self.key(value >> 40)
          let snapshot = store.snapshot()
          guard let index = snapshot.index(of: Array(key.utf8)) else {
            #expect(model[key] == nil, "\(key) is in the model")
            continue
          }
          if key == target { continue }
          try store.put(
            key: Array(target.utf8), content: .bytes([1]), metadata: snapshot.metadata(at: index))
          try store.delete(key: Array(key.utf8))
          model[target] = model.removeValue(forKey: key)
        case 9:
          // Computed first, so that a failure names the step, not every object.
          if let held {
            let kept = Self.agree(held.snapshot, held.model)
            #expect(kept, "step \(step): an old snapshot changed")
          }
          held = (store.snapshot(), model)
        default:
          let prefix = Self.key(value >> 8, maxLength: 2, minLength: 0)
          let delimiter = value & 0x100_0000 == 0 ? "/" : ""
          let limit = 1 + Int((value >> 32) % 5)
          let listed = Self.listAll(
            store.snapshot(), prefix: prefix, delimiter: delimiter, limit: limit)
          let expected = expectedEntries(
            keys: Array(model.keys), prefix: prefix, delimiter: delimiter)
          #expect(listed == expected, "prefix \(prefix) delimiter \(delimiter) limit \(limit)")
        }
      }
      let agrees = Self.agree(store.snapshot(), model)
      #expect(agrees, "the store and the model differ at the end")
      if let held {
        let kept = Self.agree(held.snapshot, held.model)
        #expect(kept, "an old snapshot changed")
      }
      #expect(
        store.snapshot().objects.all.map(\.key) == Self.sortedKeys(model).map { Array($0.utf8) })
    }
  }

  /// Chunks split as they fill and merge as they empty; every index still finds its object.
  @Test func sortedObjectsSplitAndMergeKeepEveryIndex() {
    var objects = SortedObjects(sorted: [], chunkLimit: 4)
    var keys = [String]()
    for number in stride(from: 0, to: 300, by: 1) {
      let key = "k\(10_000 + (number * 7_919) % 1_000)"
      objects.upsert(Self.stored(key, version: UInt64(number)))
      keys.append(key)
    }
    keys.sort()
    #expect(objects.count == keys.count)
    #expect((0..<objects.count).allSatisfy { objects[$0].key == Array(keys[$0].utf8) })
    for (position, key) in keys.enumerated() where position % 3 != 0 {
      #expect(objects.remove(Array(key.utf8))?.key == Array(key.utf8))
    }
    let left = keys.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
    #expect(objects.count == left.count)
    #expect((0..<objects.count).allSatisfy { objects[$0].key == Array(left[$0].utf8) })
    #expect(objects.remove(Array("nope".utf8)) == nil)
    #expect(objects.lowerBound(Array("~".utf8)) == objects.count)
  }
}
