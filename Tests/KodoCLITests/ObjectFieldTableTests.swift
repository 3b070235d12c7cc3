import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// The one table of object fields (`ObjectField`): complete, and what JSON output, `stat` and the
/// sort's records make of it.
@Suite("Object field table")
struct ObjectFieldTableTests {
  static let full = ObjectFixtures.everyField

  @Test func everyNameHasOneRowAndTheFixtureSetsEveryRow() {
    #expect(ObjectField.all.map(\.name) == ObjectField.Name.allCases)
    for field in ObjectField.all {
      #expect(field.value(Self.full) != nil, "the fixture leaves \(field.name) unset")
      if let json = field.json { #expect(json.description == field.name.rawValue) }
    }
  }

  @Test func statAndDetailOrdersShowEveryRowOnce() {
    #expect(
      ObjectField.statOrder.map(\.name).sorted { $0.rawValue < $1.rawValue }
        == ObjectField.Name.allCases.sorted { $0.rawValue < $1.rawValue })
    let detailed = ObjectField.all.filter { $0.detailLabel != nil }.map(\.name)
    #expect(
      ObjectField.detailOrder.map(\.name).sorted { $0.rawValue < $1.rawValue }
        == detailed.sorted { $0.rawValue < $1.rawValue })
    #expect(!detailed.contains(.key), "the pane shows the key on its own")
  }

  static func json(_ body: (inout JSONLine) -> Void) -> String {
    var line = JSONLine()
    body(&line)
    return String(decoding: line.finish(), as: UTF8.self)
  }

  /// The listing's hand-written writer writes what the table's listing rows write, in order.
  @Test(arguments: [ObjectFixtures.everyField, ObjectFixtures.fewestFields])
  func theListingWriterWritesTheTablesEntryRows(details: ObjectDetails) {
    let table = Self.json { line in
      for field in ObjectField.all where field.source == .entry {
        line.field(field, of: ObjectDetails(object: details.object))
      }
    }
    #expect(Self.json { details.object.appendJSONFields(to: &$0) } == table)
  }

  @Test func statJSONHasEveryRowOfTheContract() {
    let text = Self.json { Self.full.appendJSONFields(to: &$0) }
    #expect(
      text
        == #"{"key":"logs/a b\u001b[2J.txt","size":5242880,"hash":"lt7qJ8bR3m2t7GdQ7mW8b9Q8h1cD","etag":"5D41402ABC4B2A76B9719D911017C592","mimeType":"text/plain","putTime":"2024-05-12T11:51:00.1234567Z","storageClass":"archive","status":"disabled","objectType":"multipart","md5":"5d41402abc4b2a76b9719d911017c592","endUser":"user\u00071","meta":{"Alpha":"first\u001b","zeta":"last"},"restoreStatus":"restoring","lastModified":"2024-05-12T11:51:10Z","crc64":"1234567890123456789","expiration":"2025-01-01T00:00:00Z","transitionToIA":"2024-07-03T09:46:40Z","transitionToArchiveIR":"2024-08-30T06:40:00Z","transitionToArchive":"2024-10-27T03:33:20Z","transitionToDeepArchive":"2024-11-30T20:53:20Z"}"#
        + "\n")
    for field in ObjectField.all {
      guard let name = field.json else { continue }
      #expect(text.contains("\"\(name)\":"))
    }
    #expect(
      Self.json { ObjectFixtures.fewestFields.appendJSONFields(to: &$0) }
        == #"{"key":"a.txt","size":0,"putTime":"2024-05-12T11:51:00Z","storageClass":"standard"}"#
        + "\n")
  }

  @Test func statShowsEveryRowInItsOrder() {
    func row(_ label: String, _ value: String) -> String {
      label + ":" + String(repeating: " ", count: 16 - label.count - 1) + " " + value
    }
    func escaped(_ text: String) -> String { DisplayText(escaping: text).text }
    func time(_ seconds: Int64, _ exact: String) -> String {
      Human.localTimeLong(seconds) + "  (" + exact + ")"
    }
    let lifecycle = { (seconds: Int64, rfc: String) in time(seconds, "\(rfc), \(seconds)") }
    let expected = [
      row("Bucket", "photos"),
      row("Key", escaped("logs/a b\u{1B}[2J.txt")),
      row("Size", "5242880 bytes (\(Human.size(5_242_880)))"),
      row("Hash", "lt7qJ8bR3m2t7GdQ7mW8b9Q8h1cD"),
      row("ETag", "5D41402ABC4B2A76B9719D911017C592"),
      row("CRC-64", "1234567890123456789"),
      row("MIME type", "text/plain"),
      row("Put time", time(1_715_514_660, "2024-05-12T11:51:00.1234567Z, 17155146601234567")),
      row("Storage class", "archive (type 2)"),
      row("Status", "disabled"),
      row("Object type", "multipart"),
      row("Last modified", time(1_715_514_670, "2024-05-12T11:51:10Z")),
      row("Restore status", "restoring"),
      row("MD5", "5d41402abc4b2a76b9719d911017c592"),
      row("End user", escaped("user\u{7}1")),
      row("Expires", lifecycle(1_735_689_600, "2025-01-01T00:00:00Z")),
      row("To IA", lifecycle(1_720_000_000, "2024-07-03T09:46:40Z")),
      row("To archive IR", lifecycle(1_725_000_000, "2024-08-30T06:40:00Z")),
      row("To archive", lifecycle(1_730_000_000, "2024-10-27T03:33:20Z")),
      row("To deep archive", lifecycle(1_733_000_000, "2024-11-30T20:53:20Z")),
      row("Parts", "4194304, 1048576"),
      row("meta Alpha", escaped("first\u{1B}")),
      row("meta zeta", "last"),
    ]
    #expect(StatRenderer.describe(Self.full, bucket: "photos").map(\.text) == expected)
    for field in ObjectField.all {
      #expect(expected.contains { $0.hasPrefix(field.statLabel) }, "stat has no \(field.name)")
    }
  }

  /// The sort's records (`EntryRecord`, written when a sort spills to disk) keep every field
  /// of a listing entry.
  @Test func sortRecordsKeepEveryEntryRow() throws {
    var bytes: [UInt8] = []
    EntryRecord.append(Self.full.object, to: &bytes)
    let (read, length) = try bytes.withUnsafeBytes { all in
      (try EntryRecord.decode(all), EntryRecord.length(all))
    }
    #expect(read == Self.full.object)
    #expect(length == bytes.count)
    let back = ObjectDetails(object: read)
    for field in ObjectField.all where field.source == .entry {
      #expect(field.value(back) == field.value(Self.full), "\(field.name)")
    }
  }
}
