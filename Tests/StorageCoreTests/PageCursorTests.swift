import StorageCore
import Testing

/// Issue 19 §2, M-3 and L-2: every page must fit the request and the listing so far; a page that
/// does not ends the listing with `.protocolError` and leaves the cursor where it was.
@Suite("PageCursor: the paging driver's rules")
struct PageCursorTests {
  static func object(_ key: String) -> ObjectEntry {
    ObjectEntry(
      key: key, size: 1, putTime: Timestamp(unixSeconds: 0),
      storageClass: StorageClass(name: "standard", serviceName: "Standard"))
  }

  static func page(
    _ keys: [String], folders: [String] = [], next: String? = nil, bucket: String? = nil,
    prefix: String? = nil
  ) -> ListPage {
    ListPage(
      commonPrefixes: folders, items: keys.map(object), nextMarker: next, bucket: bucket,
      prefix: prefix)
  }

  /// The message of the error `take` throws for `page` after `before`, or `nil` when it is taken.
  static func refusal(
    _ request: ListRequest, after before: [ListPage] = [], _ page: ListPage
  ) throws -> String? {
    var cursor = PageCursor(request)
    for earlier in before { _ = try cursor.take(earlier) }
    let saved = cursor.nextMarker
    do {
      _ = try cursor.take(page)
      return nil
    } catch {
      #expect(error.kind == .protocolError)
      #expect(cursor.nextMarker == saved, "a refused page leaves the cursor where it was")
      #expect(!cursor.isFinished)
      return error.message
    }
  }

  @Test func anAnswerAboutAnotherBucketOrPrefixIsRefused() throws {
    let request = ListRequest(bucket: "bkt", prefix: "pre/")
    let bucket = try Self.refusal(request, Self.page(["pre/a"], bucket: "someone-else"))
    #expect(bucket?.contains(#"another bucket, "someone-else""#) == true)
    let prefix = try Self.refusal(request, Self.page(["pre/a"], bucket: "bkt", prefix: "nope/"))
    #expect(prefix?.contains(#"another prefix, "nope/""#) == true)
    #expect(try Self.refusal(request, Self.page(["pre/a"], bucket: "bkt", prefix: "pre/")) == nil)
  }

  @Test(arguments: ["zzz/other-prefix.txt", "../up.txt", "/abs12", "pr", "qqnotprefix.txt"])
  func aKeyOutsideThePrefixIsRefused(_ key: String) throws {
    let message = try Self.refusal(
      ListRequest(bucket: "b", prefix: "pre/"), Self.page(["pre/a", key].sorted()))
    #expect(message?.contains("is not under the prefix asked for") == true, "\(message ?? "")")
  }

  @Test func aOneLevelListingHoldsOnlyItsLevel() throws {
    let level = ListRequest(bucket: "b", prefix: "p/", delimiter: "/")
    #expect(try Self.refusal(level, Self.page(["p/a", "p/b"], folders: ["p/c/", "p/d/"])) == nil)
    #expect(try Self.refusal(level, Self.page(["p/a/b"]))?.contains("lies in a folder") == true)
    #expect(
      try Self.refusal(level, Self.page([], folders: ["p/a/b/"]))?.contains("not one folder")
        == true)
    #expect(
      try Self.refusal(level, Self.page([], folders: ["p/a"]))?.contains("not one folder") == true)
    let recursive = ListRequest(bucket: "b", prefix: "p/")
    #expect(
      try Self.refusal(recursive, Self.page([], folders: ["p/a/"]))?.contains("holds folders")
        == true)
  }

  @Test func entriesMustStrictlyIncreaseAcrossPages() throws {
    let request = ListRequest(bucket: "b")
    // Backwards within a page, a key twice, backwards across pages (k9 k0 k8 k0 …).
    for keys in [["b", "a"], ["a", "a"]] {
      #expect(try Self.refusal(request, Self.page(keys))?.contains("increasing order") == true)
    }
    let first = Self.page(["k9"], next: "m1")
    #expect(try Self.refusal(request, after: [first], Self.page(["k0"], next: "m2")) != nil)
    #expect(try Self.refusal(request, after: [first], Self.page(["k9"], next: "m2")) != nil)
    // Bytes, not Characters: é precomposed (C3 A9) comes after e + U+0301 (65 CC 81).
    #expect(try Self.refusal(request, Self.page(["e\u{301}", "\u{E9}"])) == nil)
    // Folders and objects of a level interleave by bytes.
    let level = ListRequest(bucket: "b", delimiter: "/")
    let mixed = Self.page(["a.txt", "b"], folders: ["a/", "c/"], next: "m1")
    #expect(try Self.refusal(level, mixed) == nil)
    #expect(try Self.refusal(level, after: [mixed], Self.page(["b2"])) != nil, "b2 comes before c/")
  }

  @Test func aFolderThatStraddlesTwoPagesIsShownOnce() throws {
    var cursor = PageCursor(ListRequest(bucket: "b", delimiter: "/"))
    _ = try cursor.take(Self.page(["a"], folders: ["f/"], next: "m1"))
    let second = try cursor.take(Self.page(["g"], folders: ["f/", "h/"]))
    #expect(second.page.commonPrefixes == ["h/"])
    #expect(second.startMarker == "m1")
    #expect(cursor.isFinished)
  }

  @Test func markersAndEmptyPagesFollowTheSameRulesAsListPages() throws {
    var cursor = PageCursor(ListRequest(bucket: "b"), maximumEmptyPages: 2)
    _ = try cursor.take(Self.page([], next: "A"))
    _ = try cursor.take(Self.page([], next: "B"))
    #expect(throws: StorageError.self) { _ = try cursor.take(Self.page([], next: "C")) }
    #expect(cursor.emptyPagesInARow == 2)
    var cycling = PageCursor(ListRequest(bucket: "b"))
    _ = try cycling.take(Self.page(["a"], next: "A"))
    _ = try cycling.take(Self.page(["b"], next: "B"))
    let caught = #expect(throws: StorageError.self) {
      _ = try cycling.take(Self.page(["c"], next: "A"))
    }
    #expect(caught?.message.contains("goes round in circles") == true)
    #expect(cycling.nextRequest?.marker == "B")
  }
}
