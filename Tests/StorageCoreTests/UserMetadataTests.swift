import StorageCore
import Testing

/// User metadata keeps names byte for byte: `caf\u{E9}` and `cafe\u{301}` are two names, as on
/// the services (issue 20).
@Suite("UserMetadata")
struct UserMetadataTests {
  @Test func equivalentNamesAreTwoEntries() {
    var dictionary: [String: String] = [:]
    dictionary["caf\u{E9}"] = "1"
    dictionary["cafe\u{301}"] = "2"
    #expect(dictionary.count == 1, "the dictionary this replaces merges them")
    let meta: UserMetadata = ["caf\u{E9}": "1", "cafe\u{301}": "2"]
    #expect(meta.count == 2)
    #expect(meta["caf\u{E9}"] == "1" && meta["cafe\u{301}"] == "2")
    #expect(meta != ["caf\u{E9}": "1", "caf\u{E9}": "2"])
    #expect(Set([meta, ["caf\u{E9}": "1", "cafe\u{301}": "2"]]).count == 1)
  }

  @Test func entriesAreOrderedByNameBytesAndReplacedByName() {
    var meta: UserMetadata = ["b": "2", "a": "1", "\u{E9}": "3", "e\u{301}": "4"]
    #expect(meta.map(\.key) == ["a", "b", "e\u{301}", "\u{E9}"])
    meta["b"] = "two"
    meta["a"] = nil
    meta["c"] = "3"
    #expect(
      meta.entries == [
        MetadataEntry("b", "two"), MetadataEntry("c", "3"), MetadataEntry("e\u{301}", "4"),
        MetadataEntry("\u{E9}", "3"),
      ])
    #expect(meta == ["c": "3", "b": "two", "\u{E9}": "3", "e\u{301}": "4"])
    #expect(UserMetadata([("k", "1"), ("k", "2")]) == ["k": "2"])
    #expect(UserMetadata().isEmpty)
  }

  @Test func assignmentsAreCutAtTheirFirstEqualsByte() {
    #expect(MetadataEntry(assignment: "a=\u{301}b") == MetadataEntry("a", "\u{301}b"))
    #expect(MetadataEntry(assignment: "k=1 = one") == MetadataEntry("k", "1 = one"))
    #expect(MetadataEntry(assignment: "k=") == MetadataEntry("k", ""))
    #expect(MetadataEntry(assignment: "=v") == nil)
    #expect(MetadataEntry(assignment: "novalue") == nil)
    #expect(MetadataEntry("caf\u{E9}", "1") != MetadataEntry("cafe\u{301}", "1"))
  }
}
