import Foundation
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import KodoCLI

/// The text listing's rows are written at a raw pointer (`TerminalRow`) into room reserved once
/// a row (issue 23). These tests hold that writer to what the rows were before it: the escaper's
/// text (`DisplayText`) piece by piece, padded by characters, for hostile names, sizes and
/// widths; local times as `LocalTime` gives them; `-0` records exactly the keys.
@Suite("Text rows written raw are the escaper's rows")
struct TextRowTests {
  // MARK: - The reference: a row as it was built before, piece by piece

  static func referenceRow(
    _ object: ObjectEntry, long: Bool, humanSizes: Bool, columns: ListRenderer.LongColumns,
    hiddenPrefix: String = ""
  ) -> String {
    var text = TerminalText()
    let sizeWidth = humanSizes ? 10 : 14
    if humanSizes {
      Human.appendRightAligned(Human.size(object.size), width: sizeWidth, to: &text)
    } else {
      text.appendSpaces(sizeWidth - String(object.size).count)
      text.append(decimal: object.size)
    }
    text.appendLiteral("  ")
    LocalTime.appendDateAndMinute(object.putTime.unixSeconds, to: &text)
    text.appendLiteral("  ")
    if long {
      var storage = DisplayText(escaping: object.storageClass.name)
      if object.status == .disabled { storage += ",disabled" }
      Human.appendPadded(storage, width: 12, to: &text)
      text.appendLiteral("  ")
      Human.appendPadded(
        DisplayText(escaping: object.hash ?? object.etag ?? "-"), width: columns.hashWidth,
        to: &text)
      text.appendLiteral("  ")
      if columns.mimeTypes {
        Human.appendPadded(DisplayText(escaping: object.mimeType ?? "-"), width: 20, to: &text)
        text.appendLiteral("  ")
      }
    }
    var name = Substring(object.key)
    if !hiddenPrefix.isEmpty, object.key.utf8.count > hiddenPrefix.utf8.count,
      object.key.utf8.starts(with: hiddenPrefix.utf8)
    {
      name =
        object.key[
          object.key.utf8.index(object.key.startIndex, offsetBy: hiddenPrefix.utf8.count)...]
    }
    text.append(DisplayText(name: name))
    text.appendNewline()
    return String(decoding: text.bytes, as: UTF8.self)
  }

  /// What `renderer` writes for `objects`.
  static func render(_ objects: [ObjectEntry], _ renderer: inout ListRenderer) throws -> String {
    String(decoding: try written { try renderer.objects(objects, to: $0) }, as: UTF8.self)
  }

  /// The bytes `body` writes to an `OutputStream` on a file, flushed.
  static func written(_ body: (KodoCLI.OutputStream) throws -> Void) throws -> [UInt8] {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/out"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { close(descriptor) }
    let output = OutputStream(fileDescriptor: descriptor)
    try body(output)
    try output.flush()
    return Array(FileManager.default.contents(atPath: path) ?? Data())
  }

  static func renderer(
    long: Bool, humanSizes: Bool, columns: ListRenderer.LongColumns, prefix: String? = nil
  )
    -> ListRenderer
  {
    ListRenderer(
      mode: .text, long: long, humanSizes: humanSizes, relativeTo: prefix,
      palette: Palette(terminal: false, environment: [:]), columns: columns)
  }

  /// Names no fast path may copy as they are: controls, DEL, C1, bidi and format characters,
  /// separators, private use, unassigned, soft hyphen, emoji joins, quotes and spaces at the
  /// ends, a 5,000-byte name, and plain ones.
  static let hostileNames: [String] = [
    "", " ", "  ", " lead", "trail ", "\u{0}nul", "\u{1B}[2Jclear", "tab\there", "new\nline",
    "cr\r", "del\u{7F}", "c1\u{85}\u{9B}", "soft\u{AD}hyphen", "rtl\u{202E}txt\u{202C}",
    "zw\u{200B}sp\u{200D}j", "ls\u{2028}ps\u{2029}", "pua\u{E000}", "bom\u{FEFF}",
    "tag\u{E0041}", "unassigned\u{378}", "family 👨‍👩‍👧 ok", "keycap 1️⃣", "flag 🏴󠁧󠁢󠁳󠁣󠁴󠁿",
    "latin éàü ɐ ʃ", "cjk 照片", "combining e\u{301}", "hangul \u{1160}filler",
    "a\"quoted\" and \\backslash", "\\u{1B} looks escaped",
    String(repeating: "long/é\u{1}", count: 700), String(repeating: "x", count: 5_000),
    "dir/sub/plain.txt",
  ]

  static let storageClasses = [
    StorageClass(name: "standard", serviceName: "0"),
    StorageClass(name: "intelligent_tiering", serviceName: "5"),
    StorageClass(name: "type_\u{1B}[1m", serviceName: "9"),
    StorageClass(name: "déjà\u{202E}", serviceName: "x"),
  ]

  static let sizes: [Int64] = [
    0, 1, 9, 10, 1023, 1024, 99_999, 12_345_678_901_234, 123_456_789_012_345, .max, -1, -1024,
    .min,
  ]

  static func object(_ random: inout some RandomNumberGenerator, key: String) -> ObjectEntry {
    let hashes: [String?] = [
      nil, "FqH", String(repeating: "F", count: 28), String(repeating: "é", count: 40), "h\u{7}x",
    ]
    let mimeTypes: [String?] = [
      nil, "", "image/jpeg", "application/vnd.openxmlformats-x", "a/\u{9B}b",
    ]
    let statuses: [ObjectStatus?] = [nil, .enabled, .disabled, .unknown(7)]
    return ObjectEntry(
      key: key,
      size: sizes[random.int(0...sizes.count - 1)],
      putTime: Timestamp(
        hundredNanoseconds: random.chance(10)
          ? Int64.random(in: .min ... .max, using: &random)
          : Int64.random(in: 0...40_000_000_000_000_000, using: &random)),
      storageClass: storageClasses[random.int(0...storageClasses.count - 1)],
      mimeType: mimeTypes[random.int(0...mimeTypes.count - 1)],
      hash: hashes[random.int(0...hashes.count - 1)],
      etag: random.chance(50) ? nil : "0123456789ABCDEF0123456789ABCDEF",
      status: statuses[random.int(0...statuses.count - 1)])
  }

  // MARK: - Rows

  @Test(arguments: [false, true], [false, true])
  func everyHostileNameIsTheEscapersRow(long: Bool, humanSizes: Bool) throws {
    var random = SplitMix64(seed: 23)
    for columns in [
      ListRenderer.LongColumns(hashWidth: 28, mimeTypes: true),
      ListRenderer.LongColumns(hashWidth: 32, mimeTypes: false),
    ] {
      let objects = Self.hostileNames.map { Self.object(&random, key: $0) }
      var renderer = Self.renderer(long: long, humanSizes: humanSizes, columns: columns)
      let rows = try Self.render(objects, &renderer)
      let expected = objects.map {
        Self.referenceRow($0, long: long, humanSizes: humanSizes, columns: columns)
      }
      #expect(rows == expected.joined(), "long \(long), human \(humanSizes)")
      #expect(renderer.objectCount == Int64(objects.count))
    }
  }

  @Test func generatedRowsAreTheEscapersRows() async throws {
    let seeds = Gen<UInt64>.value(in: 0...UInt64.max)
    await seededCheck(count: fuzzCount(60), input: anyKey.array(of: 1...20), seeds) { keys, seed in
      var random = SplitMix64(seed: seed)
      let objects = keys.map { Self.object(&random, key: $0) }
      let long = random.chance(50)
      let humanSizes = random.chance(30)
      let columns = ListRenderer.LongColumns(
        hashWidth: random.int(0...40), mimeTypes: random.chance(50))
      var renderer = Self.renderer(long: long, humanSizes: humanSizes, columns: columns)
      let rows = try Self.render(objects, &renderer)
      let expected = objects.map {
        Self.referenceRow($0, long: long, humanSizes: humanSizes, columns: columns)
      }
      #expect(rows == expected.joined(), "\(keys.debugDescription)")
    }
  }

  @Test func namesAfterTheHiddenPrefixAreTheEscapersToo() throws {
    var random = SplitMix64(seed: 7)
    let keys = ["dir/sub/", "dir/sub/ a", "dir/sub/\u{1B}x", "dir/sub/ok", "dir/su", "other/x "]
    let objects = keys.map { Self.object(&random, key: $0) }
    var renderer = Self.renderer(
      long: false, humanSizes: false, columns: .init(), prefix: "dir/sub/o")
    let rows = try Self.render(objects, &renderer)
    let expected = objects.map {
      Self.referenceRow(
        $0, long: false, humanSizes: false, columns: .init(), hiddenPrefix: "dir/sub/")
    }
    #expect(rows == expected.joined())
  }

  @Test func escapedPiecesAreTheEscapersText() async throws {
    await seededCheck(count: fuzzCount(2000), input: anyKey) { key in
      let escaped = TerminalText.withEscaped(Substring(key)) {
        String(decoding: $0.bytes, as: UTF8.self)
      }
      #expect(escaped == DisplayText(escaping: key).text, "\(key.debugDescription)")
      let name = TerminalText.withName(Substring(key)) { String(decoding: $0.bytes, as: UTF8.self) }
      #expect(name == DisplayText(name: key).text, "\(key.debugDescription)")
      let count = TerminalText.withEscaped(Substring(key)) { $0.characterCount }
      #expect(count == DisplayText(escaping: key).text.count, "\(key.debugDescription)")
    }
  }

  @Test func rowPiecesWriteWhatTheirTextFormsWrite() {
    var text = TerminalText()
    text.row(room: 64) { row in
      row.append(decimal: -42, rightAlignedIn: 6)
      row.appendSpaces(2)
      row.append(decimal: .min, rightAlignedIn: 3)
      row.append(twoDigits: 7)
      row.append(twoDigits: 123)
    }
    #expect(String(decoding: text.bytes, as: UTF8.self) == "   -42  -922337203685477580807123")
  }

  // MARK: - Local times

  /// A zone whose offset changes at `transitions` (quarter hours), to `offsets[i + 1]`.
  struct Zone {
    var transitions: [Int64]
    var offsets: [Int64]

    func offset(_ unixSeconds: Int64) -> Int64 {
      offsets[transitions.firstIndex { $0 > unixSeconds } ?? transitions.count]
    }
  }

  static func referenceTime(_ unixSeconds: Int64, _ zone: Zone) -> String {
    let (local, overflow) = unixSeconds.addingReportingOverflow(zone.offset(unixSeconds))
    let time = CivilTime(unixSeconds: overflow ? unixSeconds : local)
    return pad(time.year, 4) + "-" + pad(Int64(time.month), 2) + "-" + pad(Int64(time.day), 2)
      + " " + pad(Int64(time.hour), 2) + ":" + pad(Int64(time.minute), 2)
  }

  @Test func localTimesFollowTheZoneAcrossItsChanges() async throws {
    let seeds = Gen<UInt64>.value(in: 0...UInt64.max)
    await seededCheck(count: fuzzCount(40), input: seeds) { seed in
      var random = SplitMix64(seed: seed)
      // Changes more than a day apart, a few of them two in one day (to a third offset), on
      // quarter hours, in the years a listing shows and far from them.
      var transitions: [Int64] = []
      var at = Int64(random.int(-3_000_000_000...1_600_000_000)) / 900 * 900
      for _ in 0..<random.int(1...30) {
        at += Int64(random.int(97...20_000)) * 900
        transitions.append(at)
        if random.chance(20) {
          at += Int64(random.int(1...90)) * 900
          transitions.append(at)
        }
      }
      // Each offset differs from the two before it: a day's two changes never come back.
      var offsets: [Int64] = []
      while offsets.count <= transitions.count {
        let offset = Int64(random.int(-56...56)) * 900
        if !offsets.suffix(2).contains(offset) { offsets.append(offset) }
      }
      let zone = Zone(transitions: transitions, offsets: offsets)
      var clock = LocalClock(zoneOffset: { zone.offset($0) })
      var times: [Int64] = []
      for transition in transitions {
        for delta: Int64 in [-86_400, -901, -900, -1, 0, 1, 899, 900, 86_399, 86_400] {
          times.append(transition + delta)
        }
      }
      for _ in 0..<200 { times.append(Int64(random.int(-4_000_000_000...4_000_000_000))) }
      times += [.min, .max, -(1 << 50) - 1, 1 << 50, 0, -1]
      times.shuffle(using: &random)
      for time in times {
        var text = TerminalText()
        text.row(room: LocalClock.maximumLength) { clock.append(time, to: &$0) }
        #expect(
          String(decoding: text.bytes, as: UTF8.self) == Self.referenceTime(time, zone),
          "\(time) in \(zone)")
      }
    }
  }

  // MARK: - -0

  @Test func nulRecordsAreTheKeysExactlyAndRefuseAKeyWithANul() throws {
    let keys = Self.hostileNames + ["mid\u{0}nul", "\u{0}", "end\u{0}", "é\u{1}"]
    var refused: [String] = []
    let bytes = try Self.written { output in
      try output.nulSeparated { records in
        for key in keys where !records.append(key) { refused.append(key) }
      }
    }
    let expected = keys.filter { !$0.utf8.contains(0) }.flatMap { key -> [UInt8] in
      Array(key.utf8) + [UInt8(0)]
    }
    #expect(bytes == expected)
    #expect(refused == keys.filter { $0.utf8.contains(0) })
  }
}
