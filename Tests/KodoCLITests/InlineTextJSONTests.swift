import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import KodoCLI

/// Entries whose digests (`hash`, `etag`, `md5`) are kept as `InlineText`: the listing's writer
/// copies inline ones as they are, and writes exactly what the `String` escaper writes for the
/// same text; the sort's records keep them.
@Suite("Listing JSON of inline digests")
struct InlineTextJSONTests {
  static func json(_ body: (inout JSONLine) -> Void) -> String {
    var line = JSONLine()
    body(&line)
    return String(decoding: line.finish(), as: UTF8.self)
  }

  @Test func theListingWriterWritesDigestsAsTheStringEscaperDoes() async throws {
    // Digest-like text, JSON's special characters, control characters and any Unicode.
    let digest = text(from: "0123456789abcdefABCDEF-_=", length: 0...40)
    await seededCheck(count: fuzzCount(500), input: digest, digest, digest) {
      hash, etag, md5 in
      var entry = ObjectFixtures.everyField.object
      entry.hash = hash
      entry.etag = etag
      entry.md5 = md5
      let written = Self.json { entry.appendJSONFields(to: &$0) }
      let table = Self.json { line in
        for field in ObjectField.all where field.source == .entry {
          line.field(field, of: ObjectDetails(object: entry))
        }
      }
      #expect(written == table)
      for (name, value) in [("hash", hash), ("etag", etag), ("md5", md5)] {
        var member: [UInt8] = []
        JSONText.appendString(value, to: &member)
        #expect(written.contains("\"\(name)\":" + String(decoding: member, as: UTF8.self) + ","))
      }
      var record: [UInt8] = []
      EntryRecord.append(entry, to: &record)
      let read = try record.withUnsafeBytes { try EntryRecord.decode($0) }
      #expect(read == entry)
      #expect(read.hash.map { Array($0.utf8) } == Array(hash.utf8))
      #expect(read.hashText?.isInline == entry.hashText?.isInline)
    }
  }

  /// The same line for a Kodo entry as before the digests were kept inline.
  @Test func aKodoLineIsUnchanged() {
    var entry = ObjectFixtures.fewestFields.object
    entry.hash = "FpthfD6d4sFhmiLLNQ35F1BnvbPR"
    entry.md5 = "5d41402abc4b2a76b9719d911017c592"
    entry.etag = "\"quoted\\\u{1}\""
    #expect(
      Self.json { entry.appendJSONFields(to: &$0) }
        == #"{"key":"a.txt","size":0,"hash":"FpthfD6d4sFhmiLLNQ35F1BnvbPR","etag":"\"quoted\\\u0001\"","putTime":"2024-05-12T11:51:00Z","storageClass":"standard","md5":"5d41402abc4b2a76b9719d911017c592"}"#
        + "\n")
  }
}
