import KodoTestSupport
import StorageCore
import Testing

@testable import KodoBrowse

/// The detail pane shows every row of the field table (`ObjectField.detailOrder`).
@Suite("Detail pane fields")
struct DetailFieldsTests {
  @Test func thePaneShowsEveryRowOfAStatInItsOrder() {
    let details = ObjectFixtures.everyField
    var state = State.showing(
      ListPage(items: [details.object]), bucket: "photos", prefix: "logs/",
      size: Size(width: 200, height: 60))
    state.details[ExactKey(details.object.key)] = details
    func row(_ label: String, _ value: String) -> String {
      Fit.pad(label, to: 11) + Fit.visible(value)
    }
    let expected = [
      row("size", "5242880 (\(Format.size(5_242_880)))"),
      row("type", "text/plain"),
      row("put time", "2024-05-12T11:51:00.1234567Z"),
      row("modified", "2024-05-12T11:51:10Z"),
      row("class", "archive"),
      row("status", "disabled"),
      row("hash", "lt7qJ8bR3m2t7GdQ7mW8b9Q8h1cD"),
      row("etag", "5D41402ABC4B2A76B9719D911017C592"),
      row("md5", "5d41402abc4b2a76b9719d911017c592"),
      row("crc64", "1234567890123456789"),
      row("object", "multipart"),
      row("end user", "user\u{7}1"),
      row("restore", "restoring"),
      row("parts", "2"),
      row("expires", "2025-01-01T00:00:00Z"),
      row("to IA", "2024-07-03T09:46:40Z"),
      row("to arch IR", "2024-08-30T06:40:00Z"),
      row("to archive", "2024-10-27T03:33:20Z"),
      row("to deep", "2024-11-30T20:53:20Z"),
      row("meta", "Alpha: first\u{1B}"),
      row("meta", "zeta: last"),
    ]
    let lines = detailLines(state, width: 200).map(\.text)
    #expect(lines.first == Format.name("a b\u{1B}[2J.txt"))
    #expect(Array(lines.dropFirst(2).prefix(expected.count)) == expected)
    #expect(lines.suffix(3) == ["", "key", Format.name(details.object.key)])
    for field in ObjectField.all {
      guard let label = field.detailLabel else { continue }
      #expect(expected.contains { $0.hasPrefix(label) }, "the pane has no \(field.name)")
    }
  }

  /// While the stat loads, the pane shows the listing entry's fields: none of a stat's own.
  @Test func beforeTheStatOnlyTheEntrysRowsShow() {
    let entry = ObjectFixtures.everyField.object
    let state = State.showing(
      ListPage(items: [entry]), bucket: "photos", prefix: "logs/",
      size: Size(width: 200, height: 60))
    let lines = detailLines(state, width: 200).map(\.text)
    #expect(lines.contains(Fit.pad("class", to: 11) + "archive"))
    #expect(!lines.contains { $0.hasPrefix(Fit.pad("crc64", to: 11)) })
    #expect(!lines.contains { $0.hasPrefix(Fit.pad("expires", to: 11)) })
  }
}
