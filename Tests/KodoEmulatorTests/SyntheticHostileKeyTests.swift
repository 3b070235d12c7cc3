import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// Synthetic buckets hold keys that need URL encoding (issue 12): one object in 50 of each
/// folder has a space, `+`, `%`, `~`, CJK, an emoji, `&<>` or a trailing space in its name.
@Suite struct SyntheticHostileKeyTests {
  /// The names after the object's number, in the order the emulator deals them out; `true` when
  /// the text follows the extension (the trailing space).
  static let hostileNames: [(text: String, afterExtension: Bool)] = [
    (" with space", false), ("+plus+", false), (" 100%41%", false), ("~tilde", false),
    ("-照片", false), ("-😀", false), (" a&b<c>", false), (" ", true),
  ]

  /// The hostile name in `key`, or `nil` for a plain key (`dir-…/sub-…/file-NNNN.ext`).
  static func hostileName(in key: String) -> String? {
    let name =
      key.utf8.split(separator: UInt8(ascii: "/")).last.map { String(decoding: $0, as: UTF8.self) }
      ?? key
    guard name.hasPrefix("file-") else { return nil }
    let rest = String(name.dropFirst(5).drop { $0.isASCII && $0.isNumber })
    for hostile in hostileNames {
      if hostile.afterExtension ? rest.hasSuffix(hostile.text) : rest.hasPrefix(hostile.text) {
        return hostile.text
      }
    }
    return nil
  }

  /// The object's number in its folder (`file-NNNN`).
  static func number(of key: String) -> Int? {
    guard let range = key.range(of: "file-") else { return nil }
    return Int(String(key[range.upperBound...].prefix { $0.isASCII && $0.isNumber }))
  }

  /// RFC 3986's unreserved set kept, every other byte `%XX` upper-case: what oss-protocol.md
  /// (§3, §6) says `encoding-type=url` answers carry. Written here, apart from the code it checks.
  static func ossEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
        UInt8(ascii: "."), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default: out += String(format: "%%%02X", byte)
      }
    }
    return out
  }

  /// Every key of a Kodo listing of `bucket` (one page of up to 1,000).
  static func kodoKeys(_ emulator: EmulatorHarness, bucket: String, prefix: String? = nil)
    async throws -> (keys: [String], prefixes: [String])
  {
    let page = try await emulator.get(
      EmulatorHarness.listTarget(bucket: bucket, prefix: prefix, delimiter: "/", limit: 1_000)
    ).json()
    #expect(page["marker"]?.stringValue == "")
    return (
      page["items"]?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? [],
      page["commonPrefixes"]?.strings ?? []
    )
  }

  @Test func countsOrderAndStatsHoldWithHostileKeys() async throws {
    let configuration = EmulatorConfiguration(
      buckets: [.synthetic("tree", count: 400), .synthetic("flat", count: 400, flat: true)],
      seed: 4)
    try await EmulatorHarness.with(configuration) { emulator in
      // 400 objects: 3 folders × 4 subfolders of 34; number 7 of each is hostile.
      var tree: [String] = []
      for dir in 0..<3 {
        for sub in 0..<4 {
          let folder = try await Self.kodoKeys(
            emulator, bucket: "tree", prefix: "dir-00\(dir)/sub-0\(sub)/")
          #expect(folder.prefixes.isEmpty)
          tree += folder.keys
        }
      }
      #expect(tree.count == 400)
      let flat = try await Self.kodoKeys(emulator, bucket: "flat", prefix: "dir-000/sub-00/")
      #expect(flat.keys.count == 400)
      #expect(flat.prefixes.isEmpty)

      for keys in [tree, flat.keys] {
        #expect(
          zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        let hostile = keys.filter { Self.hostileName(in: $0) != nil }
        #expect(hostile.allSatisfy { Self.number(of: $0).map { $0 % 50 == 7 } == true })
        #expect(keys.filter { Self.number(of: $0).map { $0 % 50 == 7 } == true } == hostile)
        #expect(hostile.count >= 8)
        #expect(Set(hostile.compactMap(Self.hostileName)) == Set(Self.hostileNames.map(\.text)))
        #expect(keys.contains { $0.hasSuffix(" ") && $0.utf8.last == UInt8(ascii: " ") })
        // Every other key is plain ASCII.
        for key in keys where Self.hostileName(in: key) == nil {
          #expect(key.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: " ") }, "\(key)")
        }
      }

      // Each hostile key stats as itself and downloads.
      for key in tree where Self.hostileName(in: key) != nil {
        let stat = try await emulator.get(EmulatorHarness.statTarget(bucket: "tree", key: key))
        #expect(stat.status == 200, "\(key)")
        let body = try await emulator.download(
          emulator.publicDownloadTarget(bucket: "tree", key: key))
        // Archived objects not restored are read only after a restore (403), as on Kodo.
        let fields = try stat.json()
        let type = fields["type"]?.int64Value ?? 0
        if (type == 2 || type == 3) && fields["restoreStatus"]?.int64Value != 2 {
          #expect(body.status == 403, "\(key)")
          continue
        }
        #expect(body.status == 200, "\(key)")
        #expect(fields["fsize"]?.int64Value == Int64(body.body.count), "\(key)")
      }
    }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func ossListingEncodesHostileKeysExactly(_ version: OSSSigner.Version) async throws {
    let configuration = OSSTestClient.configuration([.synthetic("keys", count: 400)], seed: 4)
    try await EmulatorHarness.with(configuration) { emulator in
      let client = try OSSTestClient(emulator, version: version)
      let response = try await client.send(
        OSSRequest(
          bucket: "keys",
          query: [
            OSSQueryItem("list-type", "2"), OSSQueryItem("max-keys", "1000"),
            OSSQueryItem("encoding-type", "url"),
          ]))
      #expect(response.status == 200)
      let page = try OSSAnswers.listObjects(response.body, encodingType: "url")
      let keys = page.objects.map(\.key)
      #expect(keys.count == 400)
      let hostile = keys.filter { Self.hostileName(in: $0) != nil }
      #expect(Set(hostile.compactMap(Self.hostileName)) == Set(Self.hostileNames.map(\.text)))

      // The raw <Key> texts, in order, are the keys encoded as OSS encodes them.
      let raw = response.text.components(separatedBy: "<Key>").dropFirst().map {
        String($0.prefix { $0 != "<" })
      }
      #expect(raw == keys.map(Self.ossEncoded))
      let text = response.text
      #expect(text.contains("file-0007%20with%20space."))
      #expect(text.contains("%2Bplus%2B."))
      #expect(text.contains("%20100%2541%25."))
      #expect(text.contains("~tilde."))
      #expect(text.contains("-%E7%85%A7%E7%89%87."))
      #expect(text.contains("-%F0%9F%98%80."))
      #expect(text.contains("%20a%26b%3Cc%3E."))
      #expect(raw.contains { $0.hasSuffix("%20") })
      #expect(raw.allSatisfy { !$0.contains("/") && !$0.contains(" ") && !$0.contains("+") })

      // Without encoding-type, the same keys in XML text: & < > escaped, the rest as they are.
      let plain = try await client.send(
        OSSRequest(
          bucket: "keys",
          query: [OSSQueryItem("list-type", "2"), OSSQueryItem("max-keys", "1000")]))
      #expect(plain.text.contains(" a&amp;b&lt;c&gt;."))
      #expect(try OSSAnswers.listObjects(plain.body, encodingType: nil).objects.map(\.key) == keys)

      // Small pages and a delimiter list the same keys.
      let paged = try await client.listAll(bucket: "keys", pageSize: 7, v2: true)
      #expect(paged.entries == keys)
      let v1 = try await client.listAll(
        bucket: "keys", prefix: "dir-001/", delimiter: "/", pageSize: 1, v2: false)
      #expect(
        v1.entries == ["dir-001/sub-00/", "dir-001/sub-01/", "dir-001/sub-02/", "dir-001/sub-03/"])
    }
  }
}
