import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

/// Answers the emulator never gives, from a scripted server: kodo must not crash on them.
@Suite("kodo against hostile answers")
struct HostileAnswerTests {
  /// A config file whose hosts all point at `server`.
  static func config(_ server: ScriptedHTTPServer) throws -> String {
    try writeTestConfig(baseURL: server.baseURL)
  }

  // `ls` summed `fsize` unchecked: three items of 9223372036854775807 bytes crashed it.
  @Test func lsOfObjectsWhoseSizesOverflowTheTotal() async throws {
    func item(_ key: String) -> String {
      #"{"key":"\#(key)","fsize":9223372036854775807,"hash":"h","mimeType":"m","putTime":-9223372036854775808}"#
    }
    let answer = #"{"marker":"","items":[\#(item("1k")),\#(item("2k")),\#(item("3k"))]}"#
    let script: ScriptedHTTPServer.Script = { _ in
      .respond(.json(answer, headers: ["X-Reqid": "hostile"]))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try Self.config(server)
      defer { try? FileManager.default.removeItem(atPath: config) }
      let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
      for arguments in [["ls", "b"], ["ls", "-l", "--summarize", "b"]] {
        let result = try await kodo.run(arguments)
        #expect(result.status == 0, "\(result)")
        #expect(result.lines.filter { $0.hasSuffix("k") }.count == 3, "\(result)")
      }
      let json = try await kodo.run(["ls", "--json", "--summarize", "b"])
      #expect(json.status == 0, "\(json)")
      #expect(json.lines.last?.contains(#""size":9223372036854775807"#) == true, "\(json)")
    }
  }

  // A `/` followed by a combining mark is one `Character`: `get -r` cut keys by `Character`, so
  // `../\u{301}x` was one harmless-looking segment to it and `..` to open(2).
  @Test func getRecursiveSkipsKeysWhoseSlashesHideInACombiningMark() async throws {
    let keys = ["../\u{301}x", "/\u{301}etc", "a/../\u{301}b"]
    let items = keys.map {
      #"{"key":"\#($0)","fsize":1,"hash":"FqH","mimeType":"m","putTime":17000000000000000}"#
    }
    let answer = #"{"marker":"","items":[\#(items.joined(separator: ","))]}"#
    let downloads = Mutex<[String]>([])
    let script: ScriptedHTTPServer.Script = { request in
      if request.path == "/list" { return .respond(.json(answer, headers: ["X-Reqid": "hostile"])) }
      downloads.withLock { $0.append(request.target) }
      return .respond(.text("x", headers: ["X-Reqid": "hostile"]))
    }
    let parent = try RecursiveGetTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let directory = parent + "/into"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try Self.config(server)
      defer { try? FileManager.default.removeItem(atPath: config) }
      let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
      let result = try await kodo.run(["get", "-r", "--domain", server.baseURL, "b", directory])
      #expect(result.status == 65, "\(result)")
      for key in keys {
        #expect(result.stderr.contains(DisplayText.quoted(key)), "\(result.stderr)")
      }
    }
    #expect(downloads.withLock { $0 }.isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["into"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  // du --depth cut the folder name with `...` (a whole Character: `a/\u{301}`) and compared
  // folders as Strings: `cafe\u{301}/` and `caf\u{E9}/` (two folders, next to each other in byte
  // order) were added up as one.
  @Test func duDepthKeepsFoldersApartByTheirBytes() async throws {
    let keys = ["a/\u{301}b/x", "cafe\u{301}/x", "caf\u{E9}/y", "caf\u{E9}/z"]
    let items = keys.map {
      #"{"key":"\#($0)","fsize":2,"hash":"h","mimeType":"m","putTime":17000000000000000}"#
    }
    let answer = #"{"marker":"","items":[\#(items.joined(separator: ","))]}"#
    let script: ScriptedHTTPServer.Script = { _ in
      .respond(.json(answer, headers: ["X-Reqid": "hostile"]))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try Self.config(server)
      defer { try? FileManager.default.removeItem(atPath: config) }
      let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
      let result = try await kodo.run(["du", "--json", "--depth", "1", "b"])
      #expect(result.status == 0, "\(result)")
      let folders = result.lines.dropLast().compactMap { line -> [UInt8]? in
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return (object?["prefix"] as? String).map { Array($0.utf8) }
      }
      #expect(folders == [Array("a/".utf8), Array("cafe\u{301}/".utf8), Array("caf\u{E9}/".utf8)])
      #expect(result.lines.dropLast().map { $0.contains(#""objects":2"#) } == [false, false, true])
    }
  }
}
