import KodoBrowse
import KodoTestSupport
import StorageCore
import Testing

/// Pages merged into the sorted rows as they arrive, against one sort of everything.
@Suite("Browser rows as pages arrive")
struct ArrivalTests {
  /// Name parts: a precomposed é and an e with a combining accent (canonically equal, different
  /// bytes), cases, CJK, `-` and `.` whose byte order differs from a natural one, and CR and LF
  /// (one character together).
  static let parts = ["a", "B", "b", "é", "e\u{301}", "中", "-", ".", "0", "z", "\r", "\n", "bE"]

  struct Entry {
    var name: String
    var size: Int64
    var seconds: Int64
  }

  /// The rows one sort of everything gives: folders by bytes, then objects by the sort key
  /// (ties by key bytes); all of it reversed by `r`; only names containing the filter.
  static func expected(
    folders: [String], objects: [Entry], prefix: String, key: SortKey, reversed: Bool,
    filter: String
  ) -> [[UInt8]] {
    let needle = filter.lowercased()
    func keep(_ name: String) -> Bool { needle.isEmpty || name.lowercased().contains(needle) }
    func before(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
    let folderIDs = folders.filter(keep).sorted { reversed ? before($1, $0) : before($0, $1) }
    let files = objects.filter { keep($0.name) }.sorted { a, b in
      switch key {
      case .name: return reversed ? before(b.name, a.name) : before(a.name, b.name)
      case .size:
        if a.size != b.size { return reversed ? a.size > b.size : a.size < b.size }
      case .time:
        if a.seconds != b.seconds {
          return reversed ? a.seconds > b.seconds : a.seconds < b.seconds
        }
      }
      // Ties by key bytes, turned round with the rest (as `kodo ls --sort … --reverse`).
      return reversed ? before(b.name, a.name) : before(a.name, b.name)
    }
    return (folderIDs.map { prefix + $0 } + files.map { prefix + $0.name }).map { Array($0.utf8) }
  }

  @Test func pagesInAnyOrderUnderAnySortAndFilterGiveOneSortOfEverything() {
    var random = SplitMix64(seed: 14)
    let prefix = "p/"
    for _ in 0..<300 {
      // Distinct names (by bytes), sizes and times with many ties.
      var seen = Set<[UInt8]>()
      var objects: [Entry] = []
      for _ in 0..<Int.random(in: 0...70, using: &random) {
        let name = (0..<Int.random(in: 1...3, using: &random)).map { _ in
          Self.parts[Int.random(in: 0..<Self.parts.count, using: &random)]
        }.joined()
        guard seen.insert(Array(name.utf8)).inserted else { continue }
        objects.append(
          Entry(
            name: name, size: Int64.random(in: 0...4, using: &random),
            seconds: Int64.random(in: 0...4, using: &random)))
      }
      let folderNames = ["é/", "e\u{301}/", "b/", "B/", "中/", "a-/", "a./"]
      var folders = Set<[UInt8]>()
      // The entries arrive shuffled, cut into pages at random, folders repeated across pages.
      let shuffled = objects.shuffled(using: &random)
      var pages: [ListPage] = []
      var index = 0
      repeat {
        let end = min(shuffled.count, index + Int.random(in: 0...12, using: &random))
        let prefixes = (0..<Int.random(in: 0...2, using: &random)).map { _ in
          folderNames[Int.random(in: 0..<folderNames.count, using: &random)]
        }
        folders.formUnion(prefixes.map { Array($0.utf8) })
        pages.append(
          ListPage(
            commonPrefixes: prefixes.map { prefix + $0 },
            items: shuffled[index..<end].map {
              object(prefix + $0.name, size: $0.size, seconds: $0.seconds)
            },
            nextMarker: end < shuffled.count ? "m\(pages.count)" : nil))
        index = end
      } while index < shuffled.count
      var state = State(
        location: .folder(bucket: "b", prefix: prefix),
        size: Size(width: 80, height: Int.random(in: 5...12, using: &random)))
      _ = state.update(.start)
      for page in pages {
        // Now and then the sort or the filter changes while pages arrive.
        switch Int.random(in: 0..<8, using: &random) {
        case 0: _ = state.keys("o" + ["n", "s", "t", "r"][Int.random(in: 0..<4, using: &random)])
        case 1:
          _ = state.keys("/" + Self.parts[Int.random(in: 0..<Self.parts.count, using: &random)])
          _ = state.update(.key(.enter))
        case 2: _ = state.update(.key(.escape))
        default: break
        }
        if state.folder?.loading == nil { _ = state.keys("A") }
        guard let id = state.folder?.loading else {
          Issue.record("no page requested")
          return
        }
        for _ in 0..<Int.random(in: 0...4, using: &random) {
          _ = state.update(.key(Bool.random(using: &random) ? .down : .up))
        }
        let selected = state.selected.map { Array($0.id.utf8) }
        let line = state.cursor - state.top
        _ = state.update(.pageLoaded(id: id, .success(page)))
        // The selection stays on its entry, on its screen line (unless the rows below do not
        // fill the screen from there: then the screen ends with the last row).
        if let selected {
          #expect(state.selected.map { Array($0.id.utf8) } == selected)
          let bottom = max(0, state.rows.count - state.listHeight)
          #expect(state.cursor - state.top == line || state.top == bottom)
        }
      }
      #expect(state.folder?.complete == true)
      let names = folders.map { String(decoding: $0, as: UTF8.self) }
      let want = Self.expected(
        folders: names, objects: objects, prefix: prefix, key: state.sortKey,
        reversed: state.reversed, filter: state.filter)
      #expect(state.rows.map { Array($0.id.utf8) } == want)
      // The rows' objects are the ones listed.
      for row in state.rows {
        guard let entry = row.object else { continue }
        let name = String(decoding: entry.key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
        let original = objects.first { Array($0.name.utf8) == Array(name.utf8) }
        #expect(entry.size == original?.size)
        #expect(entry.putTime == original.map { Timestamp(unixSeconds: $0.seconds) })
      }
    }
  }

  @Test func objectsSharingTheirRestAreKeptOnceHoweverTheyInterleave() {
    var state = State(location: .folder(bucket: "b", prefix: ""), size: Size(width: 80, height: 24))
    let id = listRequests(state.update(.start))[0].id
    let items = (0..<1000).map { index in
      var entry = object(
        "f\(1000 + index)", size: Int64(index), seconds: 1_715_514_660 + Int64(index))
      entry.mimeType = "type/\(index * 7 % 20)"
      entry.hash = "hash\(index)"
      entry.lastModified = Timestamp(unixSeconds: Int64(index))
      return entry
    }
    _ = state.update(.pageLoaded(id: id, .success(ListPage(items: items))))
    #expect(state.folder?.shapeCount == 20)
    #expect(state.rows.map(\.object) == items)
  }

  @Test func aFolderGivesBackEveryFieldOfTheObjectsItKeeps() {
    let kodo = ObjectEntry(
      key: "k/1.jpg", size: 5, putTime: Timestamp(hundredNanoseconds: 17_155_146_601_234_567),
      storageClass: StorageClass(name: "ia", serviceName: "1"), mimeType: "image/jpeg",
      hash: "FpthfD6d4sFhmiLLNQ35F1BnvbPR", status: .disabled, md5: "0123",
      endUser: "u", meta: ["a": "b"], restoreStatus: .restoring,
      lastModified: Timestamp(hundredNanoseconds: 17_155_146_609_999_999, fractionDigits: 3),
      parts: [1, 2])
    var second = kodo
    second.key = "k/2.jpg"
    second.hash = "Fn"
    second.size = 9
    second.lastModified?.hundredNanoseconds = 1
    let oss = ObjectEntry(
      key: "k/3", size: 0, putTime: Timestamp(unixSeconds: 1),
      storageClass: StorageClass(name: "archive", serviceName: "Archive"),
      etag: "5D41402ABC4B2A76B9719D911017C592", objectType: "multipart")
    var bare = oss
    bare.key = "k/4"
    bare.etag = nil
    var long = oss
    long.key = "k/5"
    long.etag = "5D41402ABC4B2A76B9719D911017C592-10000-and-more"
    var state = State(
      location: .folder(bucket: "b", prefix: "k/"), size: Size(width: 80, height: 24))
    let id = listRequests(state.update(.start))[0].id
    _ = state.update(
      .pageLoaded(id: id, .success(ListPage(items: [kodo, second, oss, bare, long]))))
    let folder = state.folder
    #expect(folder?.objectCount == 5)
    #expect(folder?.object(0) == kodo)
    #expect(folder?.object(1) == second)
    #expect(folder?.object(2) == oss)
    #expect(folder?.object(3) == bare)
    #expect(folder?.object(4) == long)
    #expect(folder?.object(5) == nil)
    #expect(state.rows.map(\.object) == [kodo, second, oss, bare, long])
  }
}
