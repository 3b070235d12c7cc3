import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
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
    let item =
      #"{"key":"k","fsize":9223372036854775807,"hash":"h","mimeType":"m","putTime":-9223372036854775808}"#
    let answer = #"{"marker":"","items":[\#(item),\#(item),\#(item)]}"#
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
}
