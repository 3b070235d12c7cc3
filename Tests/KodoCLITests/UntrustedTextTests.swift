import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

/// Item 4 of "reliability", the server's side: keys and other text with control characters,
/// invalid UTF-8 and broken escapes, served by a scripted server that `kodo` is pointed at
/// through a config file's `hosts`.
///
/// Decided behaviour: text mode never prints a raw control character (C0, DEL, C1, U+2028/9),
/// it shows `\n`, `\t`, `\u{1B}`; `--json` and `-0` give keys exactly (JSON escapes). The JSON
/// reader is strict RFC 8259: raw control bytes inside strings, invalid UTF-8 and unpaired
/// surrogate escapes make the whole answer unreadable, which is exit 76 with one error line and
/// nothing on stdout, never a guessed or replaced key.
@Suite("Untrusted text from the service")
struct UntrustedTextTests {
  static let kodoHeaders: HTTPHeaders = ["X-Reqid": "scripted"]

  /// (JSON text of the key as the server writes it, the key), in the service's order (by
  /// bytes), as a listing must give them.
  static let keys: [(json: String, key: String)] = [
    (#"a\nb"#, "a\nb"), (#"tab\there"#, "tab\there"), (#"esc\u001b[31mred"#, "esc\u{1B}[31mred"),
    (#"bell\u0007"#, "bell\u{7}"), (#"del\u007f"#, "del\u{7F}"),
    (#"c1\u0085\u009b2J"#, "c1\u{85}\u{9B}2J"), (#"ls\u2028ps\u2029"#, "ls\u{2028}ps\u{2029}"),
    (#"cr\rlf"#, "cr\rlf"), (#"bs\b ff\f"#, "bs\u{8} ff\u{C}"), (#"back\\slash"#, "back\\slash"),
    (#"quote\""#, "quote\""), ("emoji 😀 中文", "emoji 😀 中文"), (#"\ud83d\ude00"#, "😀"),
    (#"fold\u001b/"#, "fold\u{1B}/"), (#"gpj.\u202eexe.txt"#, "gpj.\u{202E}exe.txt"),
    (#"iso\u2066late\u2069"#, "iso\u{2066}late\u{2069}"),
    (#"zero\u200bwidth"#, "zero\u{200B}width"),
    (" lead", " lead"), ("trail ", "trail "),
  ].sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }

  static func item(_ json: String) -> String {
    #"{"key":"\#(json)","hash":"Fh","fsize":3,"mimeType":"text/plain","putTime":15000000000000000,"type":0}"#
  }

  /// A list answer with every key; with a delimiter, the one key ending in `/` is a common
  /// prefix, with another.
  static func listAnswer(delimiter: Bool) -> String {
    guard delimiter else {
      return #"{"marker":"","items":["# + keys.map { item($0.json) }.joined(separator: ",") + "]}"
    }
    return #"{"marker":"","commonPrefixes":["dir\u001b[2J/","fold\u001b/"],"#
      + #""items":["#
      + keys.filter { !$0.key.contains("/") }.map { item($0.json) }
      .joined(separator: ",") + "]}"
  }

  static func script() -> ScriptedHTTPServer.Script {
    { request in
      if request.path == "/list" {
        let delimiter = request.query?.contains("delimiter=") == true
        return .respond(.json(listAnswer(delimiter: delimiter), headers: kodoHeaders))
      }
      if request.path.hasPrefix("/stat/") {
        return .respond(
          .json(
            #"{"fsize":1,"hash":"h\u001b[2J","mimeType":"text/\u0007plain","putTime":1,"type":0,"endUser":"u\nser","x-qn-meta":{"k\u001b":"v\r"},"md5":"\u009b"}"#,
            headers: kodoHeaders))
      }
      if request.path == "/v2/buckets" {
        return .respond(
          .json(
            #"[{"tbl":"evil\u001b[2J","region":"z\n0","remark":"r\u0007","ctime":1}]"#,
            headers: kodoHeaders))
      }
      if request.path == "/v2/domains" {
        return .respond(.json(#"["cdn\u001b[2J.example.com"]"#, headers: kodoHeaders))
      }
      return .respond(.json(#"{"error":"no such API"}"#, status: 404, headers: kodoHeaders))
    }
  }

  static func kodo(_ server: ScriptedHTTPServer) throws -> CLIRunner {
    CLIRunner("kodo", environment: ["KODO_CONFIG": try writeTestConfig(baseURL: server.baseURL)])
  }

  @Test func controlCharactersInKeysAreEscapedInTextAndExactInJSONAndNul() async throws {
    try await ScriptedHTTPServer.withServer(script: Self.script()) { server in
      let kodo = try Self.kodo(server)
      for arguments in [["ls", "-r", "b"], ["ls", "b"], ["ls", "-r", "-l", "b"]] {
        let text = try await kodo.run(arguments)
        #expect(text.status == 0, "\(text)")
        #expect(text.lines.count == Self.keys.count + (arguments == ["ls", "b"] ? 1 : 0))
        #expect(unsafeScalars(in: text.stdout, allowing: ["\n"]).isEmpty, "\(text.stdout)")
        for (_, key) in Self.keys {
          #expect(text.stdout.contains(DisplayText.escaped(key)), "\(key.debugDescription)")
        }
        #expect(text.stdout.contains(#"esc\u{1B}[31mred"#) && text.stdout.contains(#"a\nb"#))
        // A right-to-left override cannot reorder what follows it; edge spaces are visible.
        #expect(text.stdout.contains(#"gpj.\u{202E}exe.txt"#), "\(text.stdout)")
        #expect(text.stdout.contains(#"" lead""#) && text.stdout.contains(#""trail ""#))
      }

      let json = try await kodo.run(["ls", "-r", "--json", "b"])
      #expect(json.status == 0, "\(json)")
      let parsed = try jsonKeys(json)
      #expect(
        parsed.map { Array($0.unicodeScalars) } == Self.keys.map { Array($0.key.unicodeScalars) })

      let nul = try await kodo.run(["ls", "-r", "-0", "b"])
      #expect(nul.status == 0, "\(nul)")
      #expect(nul.stdoutBytes == Self.keys.flatMap { Array($0.key.utf8) + [0] })
    }
  }

  @Test func statBucketsAndDomainsEscapeServerTextInTextModeAndKeepItInJSON() async throws {
    try await ScriptedHTTPServer.withServer(script: Self.script()) { server in
      let kodo = try Self.kodo(server)
      for arguments in [["stat", "b", "k"], ["buckets"], ["domains", "b"]] {
        let text = try await kodo.run(arguments)
        #expect(text.status == 0, "\(text)")
        if arguments != ["stat", "b", "k"] {
          #expect(text.lines.count == 1, "a line break from the server forges no line: \(text)")
        }
        #expect(unsafeScalars(in: text.stdout, allowing: ["\n"]).isEmpty, "\(text.stdout)")
        #expect(text.stdout.contains(#"\u{1B}[2J"#), "\(text.stdout)")
        #expect(text.stderr.isEmpty, "\(text.stderr)")
      }
      let stat = try await CLIEnvironment.jsonLines(try kodo.run(["--json", "stat", "b", "k"]))
      #expect(stat.first?["hash"] as? String == "h\u{1B}[2J")
      #expect(stat.first?["endUser"] as? String == "u\nser")
      let buckets = try await CLIEnvironment.jsonLines(try kodo.run(["--json", "buckets"]))
      #expect(buckets.first?["name"] as? String == "evil\u{1B}[2J")
    }
  }

  /// A bound domain that cannot be a host name (here: an escape sequence) is a bad answer, not
  /// something to paste into a URL.
  @Test func aBoundDomainWithControlCharactersIsABadAnswer() async throws {
    try await ScriptedHTTPServer.withServer(script: Self.script()) { server in
      let kodo = try Self.kodo(server)
      for arguments in [["url", "b", "k"], ["cat", "b", "k"]] {
        await expectFailure(try kodo.run(arguments), status: 76, containing: "domain")
      }
    }
  }

  /// Answers that are not valid JSON text: the whole answer is refused.
  static func itemWith(_ key: [UInt8]) -> [UInt8] {
    Array(#"{"marker":"","items":[{"key":""#.utf8) + key + Array(#"","fsize":1}]}"#.utf8)
  }

  static let invalidAnswers: [(what: String, body: [UInt8])] = [
    ("a raw control byte in a string", itemWith([0x61, 0x01, 0x62])),
    ("invalid UTF-8 in a key", itemWith([0x61, 0xFF, 0xFE, 0x62])),
    ("an overlong UTF-8 slash", itemWith([0x61, 0xC0, 0xAF, 0x62])),
    ("an unpaired surrogate escape", itemWith(Array(#"a\ud800b"#.utf8))),
    ("a bad escape", itemWith(Array(#"a\qb"#.utf8))),
  ]

  @Test(arguments: invalidAnswers)
  func anAnswerThatIsNotValidJSONTextIs76(_ what: String, body: [UInt8]) async throws {
    let script: ScriptedHTTPServer.Script = { _ in
      .respond(
        ScriptedHTTPServer.Response(
          headers: ["X-Reqid": "scripted", "Content-Type": "application/json"], body: body))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let kodo = try Self.kodo(server)
      for format in [[], ["--json"], ["-0"]] {
        let result = try await kodo.run(["ls", "-r"] + format + ["b"])
        expectFailure(result, status: 76, containing: "cannot read Kodo's list answer")
      }
    }
  }

  /// Kodo's error text and request id are the server's words: escaped, on the one error line.
  @Test func errorTextAndRequestIDFromTheServerCannotForgeLines() async throws {
    let script: ScriptedHTTPServer.Script = { request in
      if request.path.hasPrefix("/stat/") {
        return .respond(
          .json(
            #"{"error":"no such file\u001b[2J\nkodo: error: forged"}"#, status: 612,
            headers: ["X-Reqid": "id\u{1B}[2J"]))
      }
      return .respond(
        .json(
          #"{"error":"boom\r\nkodo: error: forged\u0085"}"#, status: 503, headers: Self.kodoHeaders)
      )
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let kodo = try Self.kodo(server)
      let stat = try await kodo.run(["stat", "b", "k"])
      expectFailure(stat, status: 66, containing: #"id\u{1B}[2J"#)
      #expect(stat.stderr.contains(#"no such file\u{1B}[2J\nkodo: error: forged"#))
      let list = try await kodo.run(["--retries", "1", "ls", "b"])
      expectFailure(list, status: 75, containing: #"boom\r\nkodo: error: forged\u{85}"#)
    }
  }

  /// A marker with control characters (Kodo's are base64; this one is hostile) is shown escaped
  /// wherever kodo prints it for a person, and exactly in JSON.
  @Test func aMarkerWithControlCharactersIsEscapedOnStderr() async throws {
    let marker = #"m\u001b[2J\nkodo: error: forged"#
    let script: ScriptedHTTPServer.Script = { request in
      guard request.query?.contains("marker=") == true else {
        return .respond(
          .json(#"{"marker":"\#(marker)","items":[\#(Self.item("a"))]}"#, headers: Self.kodoHeaders)
        )
      }
      return .respond(.json(#"{"error":"down"}"#, status: 503, headers: Self.kodoHeaders))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let kodo = try Self.kodo(server)
      let stopped = try await kodo.run(["--retries", "1", "ls", "-r", "b"])
      expectFailure(stopped, status: 75, stdoutEmpty: false)
      #expect(stopped.stderr.contains("resume with"), "\(stopped.stderr)")
      let limited = try await kodo.run(["ls", "-r", "--limit", "1", "b"])
      #expect(limited.status == 0, "\(limited)")
      #expect(limited.stderr.contains("resume with"), "\(limited.stderr)")
      expectNoRawControlCharacters(stderrOf: limited)
      #expect(!limited.stderr.contains("\nkodo: error: forged"))
      let json = try await CLIEnvironment.jsonLines(
        try kodo.run(["--json", "ls", "-r", "--limit", "1", "b"]))
      #expect(json.last?["marker"] as? String == "m\u{1B}[2J\nkodo: error: forged")
    }
  }

  /// `ls -l` shows the hash and content type the service sent: escaped (an OSC 52 clipboard write
  /// or a screen clear from a MIME type is shown, not run).
  @Test func longListingsEscapeHashAndContentType() async throws {
    let script: ScriptedHTTPServer.Script = { _ in
      .respond(
        .json(
          #"{"marker":"","items":[{"key":"k","hash":"\u001b]52;c;aGk=\u0007","fsize":1,"mimeType":"text/\u001b[2Jplain","putTime":1,"type":0}]}"#,
          headers: Self.kodoHeaders))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let text = try await Self.kodo(server).run(["ls", "-r", "-l", "b"])
      #expect(text.status == 0, "\(text)")
      #expect(unsafeScalars(in: text.stdout, allowing: ["\n"]).isEmpty, "\(text.stdout)")
      #expect(
        text.stdout.contains(#"\u{1B}]52;c;aGk=\u{7}"#)
          && text.stdout.contains(#"text/\u{1B}[2Jplain"#))
    }
  }
}
