import StorageCore
import Testing

@testable import KodoEmulator

/// The emulator reads request targets, headers and tokens at bytes, as the services do (issue
/// 20): a delimiter followed by U+0301 is still a delimiter.
@Suite("Emulator protocol text at bytes")
struct EmulatorWireBytesTests {
  @Test func queryParametersAreCutAtBytes() throws {
    let parameters = try #require(QueryParameters("a=1&\u{301}b=2&c&d=x+y%2B"))
    #expect(
      parameters.pairs.map { Array($0.name.utf8) }
        == ["a", "\u{301}b", "c", "d"].map { Array($0.utf8) })
    #expect(parameters.pairs.map(\.value) == ["1", "2", "", "x y+"])
    #expect(parameters.first("d") == "x y+")
    #expect(parameters.first("\u{301}b") == "2")
  }

  @Test func routesAreReadAtBytes() {
    #expect(Route(path: "/stat/\u{301}x") == .stat(entry: "\u{301}x"))
    #expect(Route(path: "/dl/b/\u{301}k") == .download(bucket: "b", key: "\u{301}k"))
    #expect(Route(path: "/mkblk/4") == .upload("/mkblk/4"))
  }

  @Test func rangesAreReadAtBytes() {
    #expect(ByteRange.parse("bytes=0-\u{301}9", length: 100) == .whole)
    #expect(ByteRange.parse(" bytes= 1 - 9 ", length: 100) == .range(1, 9))
    #expect(ByteRange.parse("bytes=-10", length: 100) == .range(90, 99))
    #expect(OSSFront.exceedsLength("bytes=100-", length: 100))
    #expect(!OSSFront.exceedsLength("bytes=0-\u{301}", length: 100))
  }

  @Test func etagListsAreCutAtBytes() {
    #expect(OSSFront.etagList("\"A\", \"B\"", matches: "\"b\"", unquoting: false))
    #expect(OSSFront.etagList("x,\u{301}\"AB\"", matches: "ab", unquoting: true) == false)
    #expect(OSSFront.etagList("x, \"AB\"", matches: "ab", unquoting: true))
    #expect(OSSFront.etagList("*", matches: "ab", unquoting: true))
  }

  @Test func loopbackHostsAreReadAtBytes() {
    let target = RequestTarget("/")
    #expect(LoopbackHost.accepts(host: "LocalHost:9000", target: target))
    #expect(LoopbackHost.accepts(host: "[::1]:9000", target: target))
    #expect(LoopbackHost.accepts(host: "127.0.0.1", target: target))
    #expect(!LoopbackHost.accepts(host: "127.0.0.1:\u{301}80", target: target))
    #expect(!LoopbackHost.accepts(host: "[::1]\u{301}", target: target))
    #expect(LoopbackHost.isLoopback("[::1]"))
  }

  @Test func kodoMetadataFieldsAreCutAtBytes() {
    #expect(
      MetaMember(kodoField: "x-qn-meta-\u{301}a", value: "v")
        == MetaMember(name: "\u{301}a", value: "v"))
    #expect(MetaMember(kodoField: "x-qn-meta\u{301}-a", value: "v") == nil)
    #expect(MetaMember(ossHeader: "X-OSS-Meta-\u{301}A", value: "v")?.name == "\u{301}a")
    #expect(MetaMember(ossHeader: "x-oss-meta-", value: "v") == nil)
  }

  @Test func returnBodyVariablesAreNamedAndCutAtBytes() throws {
    let credentials = Credentials(accessKey: "ak", secretKey: "sk")
    let policy =
      #"{"scope":"b","deadline":4102444800,"returnBody":"$(x:caf\u00e9)|$(x:cafe\u0301)|$(key)\u0301"}"#
    let encoded = URLSafeBase64.encode(policy)
    let parsed = try UploadPolicy(
      token: credentials.sign(encoded) + ":" + encoded, credentials: credentials, now: 0)
    let body = parsed.answer(
      key: "k", hash: "h", fsize: 1, mimeType: "m", fileName: nil,
      variables: [("x:caf\u{E9}", "1"), ("x:cafe\u{301}", "2")])
    #expect(body == Array("1|2|k\u{301}".utf8))
  }
}
