import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

/// A listing entry as the tests compare them.
struct Entry: Equatable, CustomStringConvertible {
  var isPrefix: Bool
  var name: String
  var description: String { (isPrefix ? "prefix " : "item ") + name }
}

/// What Kodo's semantics say a full listing holds: every key under `prefix`, in byte order, with
/// keys that contain `delimiter` after the prefix folded into one common prefix each.
func expectedEntries(keys: [String], prefix: String, delimiter: String) -> [Entry] {
  var entries = [Entry]()
  let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  for key in sorted where key.utf8.starts(with: prefix.utf8) {
    let rest = Array(key.utf8.dropFirst(prefix.utf8.count))
    if !delimiter.isEmpty, let range = firstRange(of: Array(delimiter.utf8), in: rest) {
      let name = prefix + String(decoding: rest[..<range.upperBound], as: UTF8.self)
      if entries.last != Entry(isPrefix: true, name: name) {
        entries.append(Entry(isPrefix: true, name: name))
      }
    } else {
      entries.append(Entry(isPrefix: false, name: key))
    }
  }
  return entries
}

private func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
  guard needle.count <= haystack.count else { return nil }
  for start in 0...(haystack.count - needle.count)
  where Array(haystack[start..<start + needle.count]) == needle {
    return start..<start + needle.count
  }
  return nil
}

/// Lists every page, checking each page's shape, and returns the entries in order.
func listAll(
  _ emulator: EmulatorHarness, bucket: String, prefix: String = "", delimiter: String = "",
  limit: Int
) async throws -> (entries: [Entry], pages: Int) {
  var entries = [Entry]()
  var marker: String?
  var pages = 0
  repeat {
    let target = EmulatorHarness.listTarget(
      bucket: bucket, prefix: prefix, delimiter: delimiter, marker: marker, limit: limit)
    let response = try await emulator.get(target)
    #expect(response.status == 200, "\(target): \(response.text)")
    let page = try response.json()
    let prefixes = page["commonPrefixes"]?.strings ?? []
    let items = page["items"]?.arrayValue ?? []
    #expect(prefixes.count + items.count <= limit)
    // Each page's prefixes and items, merged back into key order.
    var pageEntries = prefixes.map { Entry(isPrefix: true, name: $0) }
    pageEntries += items.compactMap { $0["key"]?.stringValue }.map {
      Entry(isPrefix: false, name: $0)
    }
    pageEntries.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    entries += pageEntries
    marker = try #require(page["marker"]?.stringValue)
    pages += 1
    if marker != "" { #expect(prefixes.count + items.count == limit) }
  } while marker != "" && pages < 10_000
  return (entries, pages)
}

@Suite struct ListingTests {
  @Test(
    arguments: [
      ("", ""), ("", "/"), ("b/", "/"), ("b/", ""), ("b", "/"), ("b/c/", "/"), ("中文/", "/"),
      ("d e/", "/"), ("nothing/", "/"), ("b/c", "c/"), ("", "."),
    ] as [(String, String)])
  func pagingWithASmallLimitVisitsEveryEntryOnceInOrder(prefix: String, delimiter: String)
    async throws
  {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let keys = SampleObjects.richObjects.map(\.key)
      let expected = expectedEntries(keys: keys, prefix: prefix, delimiter: delimiter)
      for limit in [1, 3, 1_000] {
        let (entries, pages) = try await listAll(
          emulator, bucket: "public", prefix: prefix, delimiter: delimiter, limit: limit)
        #expect(entries == expected, "limit \(limit)")
        #expect(pages == max(1, (expected.count + limit - 1) / limit), "limit \(limit)")
      }
    }
  }

  @Test func rootLevelWithDelimiterShowsFoldersAndFiles() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let page = try await emulator.get(
        EmulatorHarness.listTarget(bucket: "public", delimiter: "/")
      ).json()
      #expect(page["marker"]?.stringValue == "")
      #expect(
        page["commonPrefixes"]?.strings == ["b/", "d e/", "emoji/", "x/", "z/", "中文/"])
      #expect(
        page["items"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
          == [
            "a.txt", "b0.txt", "c+plus.txt", "percent%41.txt", "q?x#y&z=1.txt",
            "\u{301}starts-with-a-combining-mark",
          ])
    }
  }

  @Test func itemsCarryTheirFields() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let page = try await emulator.get(EmulatorHarness.listTarget(bucket: "public", prefix: "x/"))
        .json()
      let items = try #require(page["items"]?.arrayValue)
      #expect(items.count == 2)
      let disabled = items[0]
      #expect(disabled["key"]?.stringValue == "x/disabled.bin")
      #expect(disabled["status"]?.int64Value == 1)
      #expect(disabled["fsize"]?.int64Value == 3)
      #expect(disabled["hash"]?.stringValue == QETag.hash(of: [1, 2, 3]))
      #expect(disabled["mimeType"]?.stringValue == "application/octet-stream")
      #expect(disabled["type"]?.int64Value == 0)
      #expect(disabled["md5"] == nil)
      let full = items[1]
      #expect(full["status"]?.int64Value == 0)
      #expect(full["type"]?.int64Value == 2)
      #expect(full["putTime"]?.int64Value == 13_603_956_734_587_420)
      #expect(full["md5"]?.stringValue == "0123456789abcdef0123456789abcdef")
      #expect(full["endUser"]?.stringValue == "alice")
      #expect(full["x-qn-meta"]?["a-key"]?.stringValue == "一")
      #expect(full["restoreStatus"]?.int64Value == 2)
      #expect(full["lastModify"]?.int64Value == 13_603_956_744_587_420)
      #expect(full["expiration"] == nil)  // lifecycle dates are stat-only
    }
  }

  @Test func oddKeysSurviveBothQueryEncodings() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let cases: [(prefix: String, rfc3986: String, form: String, key: String)] = [
        ("d e/", "d%20e%2F", "d+e%2F", "d e/space file.txt"),
        ("c+", "c%2B", "c%2B", "c+plus.txt"),
        ("percent%", "percent%25", "percent%25", "percent%41.txt"),
        ("中文/", "%E4%B8%AD%E6%96%87%2F", "%E4%B8%AD%E6%96%87%2F", "中文/文件.txt"),
        ("emoji/😀", "emoji%2F%F0%9F%98%80", "emoji/%F0%9F%98%80", "emoji/😀.txt"),
        ("q?x#y&z=", "q%3Fx%23y%26z%3D", "q%3Fx%23y%26z%3D", "q?x#y&z=1.txt"),
      ]
      for test in cases {
        for encoded in [test.rfc3986, test.form] {
          let page = try await emulator.get("/list?bucket=public&prefix=" + encoded).json()
          let keys = page["items"]?.arrayValue?.compactMap { $0["key"]?.stringValue }
          #expect(keys == [test.key], "prefix \(encoded)")
        }
      }
      // `+` in a query value is a space (form decoding), so an unescaped `c+` means "c ".
      let plus = try await emulator.get("/list?bucket=public&prefix=c+").json()
      #expect(plus["items"]?.arrayValue?.isEmpty == true)
    }
  }

  @Test func markersAreKodoShapedAndPageEndsExactly() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let first = try await emulator.get(
        EmulatorHarness.listTarget(bucket: "public", delimiter: "/", limit: 2)
      ).json()
      let marker = try #require(first["marker"]?.stringValue)
      let decoded = try #require(URLSafeBase64.decode(marker))
      #expect(String(decoding: decoded, as: UTF8.self) == "{\"c\":0,\"k\":\"b/\"}")
      // Exactly the number of entries left: the last page has an empty marker.
      let total = expectedEntries(
        keys: SampleObjects.richObjects.map(\.key), prefix: "", delimiter: "/"
      ).count
      let exact = try await emulator.get(
        EmulatorHarness.listTarget(bucket: "public", delimiter: "/", limit: total)
      ).json()
      #expect(exact["marker"]?.stringValue == "")
      // A marker written by hand in Kodo's shape is accepted, and so is one naming a key that
      // does not exist: the listing continues after it.
      for (key, expected) in [
        ("z/last.txt", "\u{301}starts-with-a-combining-mark"), ("z/a", "z/last.txt"),
      ] {
        let marker = URLSafeBase64.encode("{\"c\":0,\"k\":\"\(key)\"}")
        let rest = try await emulator.get(
          EmulatorHarness.listTarget(bucket: "public", marker: marker, limit: 1)
        ).json()
        #expect(rest["items"]?.arrayValue?.first?["key"]?.stringValue == expected)
      }
      let afterChinese = URLSafeBase64.encode("{\"c\":0,\"k\":\"中文/文件.txt\"}")
      let end = try await emulator.get(
        EmulatorHarness.listTarget(bucket: "public", marker: afterChinese)
      ).json()
      #expect(end["items"]?.arrayValue?.isEmpty == true)
      #expect(end["marker"]?.stringValue == "")
    }
  }

  @Test func listErrors() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      for limit in ["0", "1001", "-1", "ten", "1.5"] {
        let response = try await emulator.get("/list?bucket=public&limit=" + limit)
        #expect(response.status == 400, "limit \(limit)")
        #expect(response.text == "{\"error\":\"invalid list limit\"}")
      }
      for limit in ["1", "1000"] {
        #expect(try await emulator.get("/list?bucket=public&limit=" + limit).status == 200)
      }
      let notJSON = URLSafeBase64.encode("not json")
      let noKey = URLSafeBase64.encode("{\"c\":0}")
      for marker in ["!!!", notJSON, noKey, URLSafeBase64.encode("[1]")] {
        let response = try await emulator.get(
          EmulatorHarness.listTarget(bucket: "public", marker: marker))
        #expect(response.status == 640, "marker \(marker)")
        #expect(response.text == "{\"error\":\"invalid marker\"}")
      }
      let noBucket = try await emulator.get("/list?bucket=nope")
      #expect(noBucket.status == 631)
      #expect(noBucket.text == "{\"error\":\"no such bucket\"}")
      #expect(try await emulator.get("/list").status == 631)
      let badEscape = try await emulator.get("/list?bucket=public&prefix=%zz")
      #expect(badEscape.status == 400)
      #expect(badEscape.errorMessage == "invalid argument")
      let notUTF8 = try await emulator.get("/list?bucket=public&prefix=%FF")
      #expect(notUTF8.status == 400)
    }
  }

  @Test func defaultLimitIsAThousand() async throws {
    let objects = (0..<1_500).map { EmulatorObject(key: String(format: "k%05d", $0)) }
    try await EmulatorHarness.with(EmulatorConfiguration(buckets: [.objects("many", objects)])) {
      emulator in
      let page = try await emulator.get("/list?bucket=many").json()
      #expect(page["items"]?.arrayValue?.count == 1_000)
      #expect(page["marker"]?.stringValue != "")
      let (entries, pages) = try await listAll(emulator, bucket: "many", limit: 1_000)
      #expect(entries.count == 1_500)
      #expect(pages == 2)
    }
  }

  @Test func oneConnectionServesManyPages() async throws {
    let objects = (0..<300).map {
      EmulatorObject(key: String(format: "dir%02d/file%03d", $0 % 7, $0))
    }
    try await EmulatorHarness.with(EmulatorConfiguration(buckets: [.objects("b", objects)])) {
      emulator in
      let before = emulator.server.stats.connections
      let count = try await RawHTTPClient.withConnection(port: emulator.port) { connection in
        var marker: String?
        var seen = 0
        repeat {
          try await connection.send(
            emulator.request(
              "GET", EmulatorHarness.listTarget(bucket: "b", marker: marker, limit: 2)))
          let response = try #require(try await connection.readResponse().response)
          let page = try response.json()
          seen += page["items"]?.arrayValue?.count ?? 0
          marker = page["marker"]?.stringValue
        } while marker != "" && marker != nil
        return seen
      }
      #expect(count == 300)
      #expect(emulator.server.stats.connections == before + 1)
      #expect(emulator.server.stats.list == 150)
    }
  }
}
