import Foundation
import KodoTestSupport
import Testing

/// The `kodo-emulator` binary's fixed contract: the start-up line, the exit codes.
/// The built `kodo-emulator`, next to the test bundle.
enum EmulatorBinary {
  static let path: String? = {
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
    ]
    for directory in candidates {
      let path = directory.appendingPathComponent("kodo-emulator").path
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }()
}

@Suite(.enabled(if: EmulatorBinary.path != nil, "kodo-emulator has not been built"))
struct ExecutableTests {
  static var binary: String? { EmulatorBinary.path }
}

extension ExecutableTests {
  fileprivate static func run(_ arguments: [String]) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(binary))
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let stdout = output.fileHandleForReading.readDataToEndOfFile()
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: stdout, as: UTF8.self),
      String(decoding: stderr, as: UTF8.self)
    )
  }

  @Test func printsTheListeningLineFirstAndExitsZeroOnSIGTERM() async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(Self.binary))
    process.arguments = ["--synthetic", "big=1000", "--private", "big", "--port", "0"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    let reader = output.fileHandleForReading
    var text = ""
    while !text.contains("secret key:") {
      let data = reader.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    let lines = text.split(separator: "\n").map(String.init)
    let first = try #require(lines.first)
    #expect(first.hasPrefix("kodo-emulator listening on http://127.0.0.1:"))
    let port = try #require(Int(first.split(separator: ":").last ?? ""))
    #expect(
      lines.contains(
        "bucket big: http://127.0.0.1:\(port)/dl/big (1000 objects, synthetic, seed 0, private)"))
    #expect(lines.contains("access key: kodo-emulator-access-key"))
    #expect(lines.contains("secret key: kodo-emulator-secret-key"))
    // It serves at once.
    let result = try await RawHTTPClient.send(
      RawHTTPRequest(target: "/v4/query?bucket=big", headers: [("Host", "127.0.0.1:\(port)")]),
      port: port)
    #expect(result.response?.status == 200)
    process.terminate()
    process.waitUntilExit()
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 0)
  }

  @Test func usageErrorsExit64() throws {
    for arguments in [
      ["--bogus"], ["--bucket", "nodir"], ["--synthetic", "s=many"], ["--private", "ghost"],
      ["--fail-rate", "2"], ["--access-key", "only"], ["--bucket", "bad/name=/tmp"],
    ] {
      let result = try Self.run(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(!result.stderr.isEmpty)
    }
  }

  @Test func aMissingDirectoryExits66() throws {
    let result = try Self.run(["--bucket", "b=/nonexistent/kodo-emulator"])
    #expect(result.status == 66)
    #expect(
      result.stderr == "kodo-emulator: error: no such directory: /nonexistent/kodo-emulator\n")
    #expect(result.stdout.isEmpty)
  }
}
