import Foundation
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// Issue 10 §2, at the command line: a service whose listing makes no progress (its markers go
/// round in circles, or its pages stay empty for ever) ends `kodo ls` with 76 and the marker to
/// resume from, never a hang.
@Suite("A listing that makes no progress ends")
struct StuckListingTests {
  static let headers: HTTPHeaders = ["X-Reqid": "scripted"]

  /// The marker a list request was sent with (`nil` for the first page).
  static func marker(of request: ScriptedHTTPServer.Request) -> String? {
    let items = (request.query ?? "").split(separator: "&")
    guard let item = items.first(where: { $0.hasPrefix("marker=") }) else { return nil }
    let value = item.dropFirst("marker=".count)
    return value.isEmpty ? nil : String(value)
  }

  static func run(_ server: ScriptedHTTPServer, _ arguments: [String]) async throws
    -> CLIRunner.Result
  {
    try await InProcess.run(
      arguments, environment: ["KODO_CONFIG": try writeTestConfig(baseURL: server.baseURL)])
  }

  @Test(arguments: [["ls", "-r", "b"], ["ls", "b"]])
  func markersThatGoRoundInCirclesEndWith76AndAResumeMarker(_ arguments: [String]) async throws {
    // First page: one object and marker A; A gives B; B gives A again.
    let script: ScriptedHTTPServer.Script = { request in
      guard request.path == "/list" else {
        return .respond(.json(#"{"error":"no such API"}"#, status: 404, headers: Self.headers))
      }
      switch Self.marker(of: request) {
      case nil:
        return .respond(
          .json(
            #"{"marker":"A","items":[{"key":"k","hash":"h","fsize":1,"putTime":15000000000000000,"type":0}]}"#,
            headers: Self.headers))
      case "A": return .respond(.json(#"{"marker":"B","items":[]}"#, headers: Self.headers))
      default: return .respond(.json(#"{"marker":"A","items":[]}"#, headers: Self.headers))
      }
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let result = try await Self.run(server, arguments)
      #expect(result.status == 76, "\(result)")
      #expect(result.stderr.contains("goes round in circles"), "\(result.stderr)")
      #expect(result.stderr.contains("resume with: kodo ls"), "\(result.stderr)")
      #expect(result.stderr.contains("--marker B"), "\(result.stderr)")
      #expect(result.stdout.contains("k\n"), "the entries before the cycle are written")
    }
  }

  @Test func endlessEmptyPagesEndWith76AfterShowingProgress() async throws {
    // Every page is empty and names a marker never given before.
    let script: ScriptedHTTPServer.Script = { request in
      guard request.path == "/list" else {
        return .respond(.json(#"{"error":"no such API"}"#, status: 404, headers: Self.headers))
      }
      let next = (Int(Self.marker(of: request) ?? "") ?? 0) + 1
      return .respond(.json(#"{"marker":"\#(next)","items":[]}"#, headers: Self.headers))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let result = try await Listing.$maximumEmptyPages.withValue(250) {
        try await Self.run(server, ["ls", "-r", "b"])
      }
      #expect(result.status == 76, "\(result)")
      #expect(result.stderr.contains("100 pages in a row brought no entry; still listing"))
      #expect(result.stderr.contains("200 pages in a row brought no entry; still listing"))
      #expect(result.stderr.contains("is not progressing: 251 pages in a row"), "\(result.stderr)")
      #expect(result.stderr.contains("resume with: kodo ls"), "\(result.stderr)")
      #expect(result.stderr.contains("--marker 250"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }
}
