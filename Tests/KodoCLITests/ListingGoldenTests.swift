import Foundation
import KodoTestSupport
import StorageCore
import Testing

/// `ls` writes exactly the bytes it wrote when these goldens were recorded, for answers full of
/// hostile keys and values, on both protocols, in every output form (JSON Lines, text, `-0`),
/// recursive and one level. The listing path is tuned for speed (issue 23); this is what says a
/// faster decoder or writer changed no byte.
///
/// The answers are scripted byte for byte: JSON escapes of every kind (`\u0000`, `\/`, surrogate
/// pairs, an escaped backslash before `u0041`), control characters, quotes, non-ASCII, RTL marks,
/// U+2028, a very long key, unknown and repeated members, numbers in exponent form; XML with
/// entities, character references and CDATA, comments, a processing instruction, unknown
/// elements and `encoding-type=url` keys. Rerun with RECORD_SNAPSHOTS=1 to accept a change.
@Suite("Listing output is byte for byte the golden (hostile keys, both protocols)")
struct ListingGoldenTests {
  static let longKey = "l-" + String(repeating: "long/é\u{1}", count: 400) + "end"

  /// A JSON string literal (quotes included) of `text`, every non-ASCII character as `\uXXXX`.
  static func jsonEscaped(_ text: String) -> String {
    var bytes: [UInt8] = []
    JSONText.appendString(text, to: &bytes, asciiOnly: true)
    return String(decoding: bytes, as: UTF8.self)
  }

  // MARK: - Kodo

  static let kodoFirstPage = #"""
    {"marker":"bWFyaz0y+/=","commonPrefixes":null,"items":[
     {"key":"\u0000nul first","fsize":3,"hash":"FqH","mimeType":"text/plain","putTime":17000000000000000,"type":0,"status":0},
     {"key":"\u0001ctl\u001f\u007f\u0080","fsize":0,"hash":"Fq\u0041\\x","mimeType":"","putTime":0,"type":1,"status":1,"md5":null},
     {"key":" leading and trailing  ","fsize":1.0e3,"hash":"Fh","mimeType":"text/plain; charset=\"utf-8\"","putTime":1.7e16,"type":2,"status":0,"md5":"d41d8cd98f00b204e9800998ecf8427e"},
     {"key":"a\"quoted\" and \\backslash","fsize":9223372036854775807,"hash":"FqX","mimeType":"application/x-\u001b[1m","putTime":16999999999999999,"type":3,"status":2,"endUser":"user\nname\t\"x\""},
     {"key":"b\\u0041 looks escaped \\\\u00","fsize":1,"fsize":2,"hash":"F1","mimeType":"a/b","putTime":17000000000000001,"type":4,"restoreStatus":1,"lastModify":17000000000000002},
     {"key":"c\/solidus\/","fsize":5,"hash":"F2","mimeType":"a\/b","putTime":17100000000000000,"type":5,"restoreStatus":2,"x-qn-meta":{"z":"1","a":"\u0000v","\u00e9":"\"q\"","n":5,"o":{"x":[1,2.5e1,null]},"t":true}},
     {"key":"d\u00e9t\u00E9 caf\u00e9 é","fsize":6,"hash":"F3","mimeType":"","putTime":17200000000000000,"type":9,"status":7,"restoreStatus":9,"parts":[1,2,3]},
     {"key":"e\u202eRTL\u202c mark \u200f","fsize":7,"hash":"F4","putTime":17300000000000000},
     {"key":"f raw ‮RTL‬ ‏","fsize":8,"hash":"F5","mimeType":"x","putTime":17300000000000000,"unknown":{"nested":[1,{"a":null}],"s":"\ud83d\ude00"}},
     {"key":"g\u2028ls\u2029ps","fsize":9,"hash":"F6","mimeType":"y","putTime":17400000000000000,"lastModify":null,"md5":"ABC"},
     {"key":"h\ud83d\ude00 pair 😀 照片","fsize":10,"hash":"F7","mimeType":"z","putTime":17500000000000000},
     {"key":"i\t\n\r\b\f ctl","fsize":11,"hash":"F8","mimeType":"z","putTime":17600000000000000,"endUser":""},
     {"key":"j\u001b[31mred\u001b[0m","fsize":12,"hash":"F9","mimeType":"z","putTime":17700000000000000},
     {"key":"k %41%zz+plus% &amp; <b>","fsize":13,"hash":"F10","mimeType":"z","putTime":17800000000000000}
    ]}
    """#

  static var kodoSecondPage: String {
    #"""
    {"marker":"","items":[
     {"key":\#(jsonEscaped(longKey)),"fsize":14,"hash":"F11","mimeType":"z","putTime":17900000000000000},
     {"key":"m/dir/nested/file.txt","fsize":15,"hash":"F12","mimeType":"image/jpeg","putTime":17900000000000001,"type":0,"status":0},
     {"key":"n\u0000mid nul","fsize":16,"hash":"F13","mimeType":"z","putTime":18000000000000000},
     {"key":"o\uDBFF\uDFFF max \u007f","fsize":17,"hash":"","mimeType":"","putTime":18100000000000000},
     {"key":"p\\","fsize":0,"putTime":18200000000000000}
    ]}
    """#
  }

  static let kodoLevel = #"""
    {"marker":"","commonPrefixes":["dir/ a\"q/","dir/b\u001b[7m/","dir/c é\u202e/"],"items":[
     {"key":"dir/\u0007bell","fsize":1,"hash":"Fa","mimeType":"z","putTime":17000000000000000},
     {"key":"dir/x y ","fsize":2,"hash":"Fb","mimeType":"z","putTime":17000000000000000}
    ]}
    """#

  static func kodoScript(_ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Action {
    let query = request.query ?? ""
    let body: String
    if query.contains("delimiter=") {
      body = kodoLevel
    } else if query.split(separator: "&").contains(where: { $0.hasPrefix("marker=") }) {
      body = kodoSecondPage
    } else {
      body = kodoFirstPage
    }
    return .respond(.json(body, headers: ["X-Reqid": "golden"]))
  }

  // MARK: - OSS

  static func contents(
    _ key: String, size: String = "1", time: String = "2024-01-01T00:00:00.000Z",
    extra: String = ""
  ) -> String {
    "<Contents>\r\n  <Key>\(key)</Key>\n  <LastModified>\(time)</LastModified>\(extra)<Size>\(size)</Size></Contents>\n"
  }

  static func ossAnswer(
    _ body: String, truncated: Bool, token: String? = nil, prefix: String = "",
    delimiter: String = ""
  ) -> ScriptedHTTPServer.Action {
    let next = token.map { "<NextContinuationToken>\($0)</NextContinuationToken>" } ?? ""
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- a comment before the root -->
      <ListBucketResult xmlns="http://doc.oss-cn-hangzhou.aliyuncs.com">
        <Name>bkt</Name><Prefix>\(prefix)</Prefix><MaxKeys>1000</MaxKeys>
        <Delimiter>\(delimiter)</Delimiter>
        <EncodingType>url</EncodingType>
        <IsTruncated>\(truncated)</IsTruncated>\(next)
        <KeyCount>9</KeyCount>
      \(body)</ListBucketResult>
      """
    return .respond(
      ScriptedHTTPServer.Response(
        status: 200, headers: ["x-oss-request-id": "5F00", "Content-Type": "application/xml"],
        body: Array(xml.utf8)))
  }

  static let ossFirstPage = [
    contents(
      "%00nul%20first",
      extra:
        "<ETag>&quot;5B3C1A2E053D763E1B002CC607C5A0FE&quot;</ETag><Type>Normal</Type><StorageClass>Standard</StorageClass><Owner><ID>0022</ID><DisplayName>user &amp; co</DisplayName></Owner>"
    ),
    contents(
      "%01ctl%1F%7F%C2%80", size: "0", time: "2024-02-29T23:59:59.999Z",
      extra: "<ETag>\"raw-quotes\"</ETag><Type>Multipart</Type><StorageClass>IA</StorageClass>"),
    contents(
      "%20leading%20and%20trailing%20%20", time: "1970-01-01T00:00:00.000Z",
      extra:
        "<ETag><![CDATA[\"cdata-etag\"]]></ETag><Type>Appendable</Type><StorageClass>Archive</StorageClass><RestoreInfo>ongoing-request=&quot;true&quot;</RestoreInfo>"
    ),
    contents(
      "a%22quoted%22%20and%20%5Cbackslash", size: "9223372036854775807",
      extra:
        "<ETag>W/&quot;weak&quot;</ETag><Type>Symlink</Type><StorageClass>ColdArchive</StorageClass><RestoreInfo>ongoing-request=\"false\", expiry-date=\"Sun, 16 Apr 2017 08:12:33 GMT\"</RestoreInfo>"
    ),
    contents(
      "b%5Cu0041%20looks%20escaped", time: "2024-01-01T00:00:00.123Z",
      extra:
        "<!-- inside --><ETag></ETag><Type>WeirdType</Type><StorageClass>DeepColdArchive</StorageClass><?pi some data?>"
    ),
    contents(
      "c%25zz%2B+plus%25",
      extra: "<StorageClass>Fancy-New Class</StorageClass><Extra a=\"1\"><Nested/></Extra>"),
    contents("d%C3%A9t%C3%A9%20caf%C3%A9%20é", extra: "<ETag>&#x22;&#65;&#x42;&#34;</ETag>"),
    contents(
      "e%E2%80%AERTL%E2%80%AC%20mark%20%E2%80%8F", extra: "<StorageClass>standard</StorageClass>"),
    contents("g%E2%80%A8ls%E2%80%A9ps"),
    contents("h%F0%9F%98%80%20pair%20😀%20照片"),
    contents("i%09%0A%0D%08%0C%20ctl"),
    contents("j%1B%5B31mred%1B%5B0m"),
    contents("k&amp;amp%26%20&lt;b&gt;"),
    contents("k&#x25;41m"),
    contents("k<![CDATA[l%3Ccdata%3E]]>"),
  ].joined()

  static var ossSecondPage: String {
    [
      contents(PercentEncoding.encodeQueryValue(longKey)),
      contents("m/dir/nested/file.txt", extra: "<ETag>&quot;00&quot;</ETag>"),
      contents("n%00mid%20nul"),
      contents("o%F4%8F%BF%BF%20max%20%7F"),
      contents("p%5C", size: "0"),
    ].joined()
  }

  static let ossLevel =
    "<CommonPrefixes><Prefix>dir%2F%20a%22q%2F</Prefix></CommonPrefixes>"
    + "<CommonPrefixes><Prefix>dir/b%1B%5B7m/</Prefix></CommonPrefixes>"
    + "<CommonPrefixes><Prefix><![CDATA[dir/c%20é%E2%80%AE/]]></Prefix></CommonPrefixes>"
    + contents("dir%2F%07bell") + contents("dir%2Fx%20y%20", size: "2")

  static func ossScript(_ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Action {
    let query = request.query ?? ""
    if query.contains("delimiter=") {
      return ossAnswer(ossLevel, truncated: false, prefix: "dir%2F", delimiter: "%2F")
    }
    if query.contains("continuation-token=") {
      return ossAnswer(ossSecondPage, truncated: false)
    }
    return ossAnswer(ossFirstPage, truncated: true, token: "CgJ0b2tlbg--")
  }

  // MARK: - The runs

  /// The commands compared, by the name of their golden file.
  static let commands: [(name: String, arguments: [String])] = [
    ("ls-r-json", ["ls", "-r", "--json", "bkt"]),
    ("ls-r-json-summarize", ["ls", "-r", "--json", "--summarize", "bkt"]),
    ("ls-r-nul", ["ls", "-r", "-0", "bkt"]),
    ("ls-r-text", ["ls", "-r", "bkt"]),
    ("ls-r-long-summarize", ["ls", "-r", "-l", "--summarize", "bkt"]),
    ("ls-level-json", ["ls", "--json", "bkt/dir/"]),
    ("ls-level-nul", ["ls", "-0", "bkt/dir/"]),
    ("ls-level-text", ["ls", "-l", "--summarize", "bkt/dir/"]),
  ]

  static let protocols = ["kodo", "oss"]

  /// One run's status, stderr and stdout, as the golden file holds them.
  static func record(_ result: CLIRunner.Result) -> [UInt8] {
    Array("exit \(result.status)\n--- stderr ---\n\(result.stderr)--- stdout ---\n".utf8)
      + result.stdoutBytes
  }

  @Test(arguments: protocols)
  func outputMatchesTheGolden(_ provider: String) async throws {
    let script: ScriptedHTTPServer.Script = provider == "kodo" ? Self.kodoScript : Self.ossScript
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let environment =
        provider == "kodo"
        ? ["KODO_CONFIG": try writeTestConfig(baseURL: server.baseURL)]
        : [
          "KODO_PROVIDER": "oss", "OSS_ENDPOINT": server.baseURL, "OSS_REGION": "cn-hangzhou",
          "OSS_ACCESS_KEY_ID": "AK-test", "OSS_ACCESS_KEY_SECRET": "SK-test",
        ]
      // Text shows local times: a process of its own, with `TZ=UTC` (CLIRunner's).
      let spawned = CLIRunner("kodo", environment: environment)
      for (name, arguments) in Self.commands {
        let text = !arguments.contains("--json") && !arguments.contains("-0")
        let result =
          text
          ? try await spawned.run(arguments)
          : try await InProcess.run(arguments, environment: environment)
        let golden = Fixtures.url("listing/\(provider)-\(name).out")
        let recorded = Self.record(result)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
          try FileManager.default.createDirectory(
            at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
          try Data(recorded).write(to: golden)
        }
        let expected = try Array(Data(contentsOf: golden))
        #expect(
          recorded == expected,
          "\(provider) \(arguments) changed; rerun with RECORD_SNAPSHOTS=1 to accept:\n\(result)")
      }
    }
  }
}
