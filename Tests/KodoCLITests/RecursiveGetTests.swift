import Foundation
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// `get -r`: every object under a prefix into a directory, resumable, never outside it.
@Suite("get -r against kodo-emulator", .serialized)
struct RecursiveGetTests {
  static func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-get-r-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  @Test func everyObjectLandsUnderTheDirectoryAndARunAgainKeepsThem() async throws {
    let env = try await CLIEnvironment.get()
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = try await env.run(["get", "-r", "--parallel", "3", "photos", directory])
    #expect(first.status == 0, "\(first)")
    for (key, bytes) in CLIEnvironment.photos {
      let data = FileManager.default.contents(atPath: directory + "/" + key)
      #expect(data.map(Array.init) == bytes, "\(key)")
    }
    #expect(first.stderr.contains("\(CLIEnvironment.photos.count) written"), "\(first.stderr)")
    // H-2, M12: a changed file is kept and reported (73), the others are already there;
    // --force replaces it.
    try Data("changed".utf8).write(to: URL(fileURLWithPath: directory + "/a.txt"))
    let again = try await env.run(["get", "-r", "photos", directory])
    #expect(again.status == 73, "\(again)")
    #expect(again.stderr.contains("0 written"), "\(again.stderr)")
    #expect(again.stderr.contains("--force"), "\(again.stderr)")
    #expect(
      FileManager.default.contents(atPath: directory + "/a.txt").map(Array.init)
        == Array("changed".utf8))
    let forced = try await env.run(["get", "-r", "--force", "photos", directory])
    #expect(forced.status == 0, "\(forced)")
    #expect(forced.stderr.contains("1 written"), "\(forced.stderr)")
    #expect(
      FileManager.default.contents(atPath: directory + "/a.txt").map(Array.init)
        == Array("hello\n".utf8))
    // Under a prefix: paths are relative to the prefix's folder.
    let sub = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: sub) }
    let part = try await env.run(["get", "-r", "--json", "photos/2024/", sub])
    #expect(part.status == 0, "\(part)")
    let written = try CLIEnvironment.jsonLines(part).compactMap { $0["key"] as? String }.sorted()
    #expect(written == CLIEnvironment.keys(CLIEnvironment.photos, prefix: "2024/").sorted())
    #expect(FileManager.default.fileExists(atPath: sub + "/summer trip/beach day.txt"))
  }

  /// H7: a missing DIR is made, parents included (as aws, mc and rclone do); M13: so is a
  /// missing parent of `get -o`.
  @Test func aMissingDirectoryIsMade() async throws {
    let env = try await CLIEnvironment.get()
    let parent = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let result = try await env.run(["get", "-r", "photos/2024/", parent + "/new/deeper"])
    #expect(result.status == 0, "\(result)")
    #expect(
      FileManager.default.fileExists(atPath: parent + "/new/deeper/summer trip/beach day.txt"))
    let single = try await env.run(["get", "photos", "a.txt", "-o", parent + "/sub/x/a.txt"])
    #expect(single.status == 0, "\(single)")
    #expect(FileManager.default.contents(atPath: parent + "/sub/x/a.txt") == Data("hello\n".utf8))
    try Data("file".utf8).write(to: URL(fileURLWithPath: parent + "/plain"))
    let blocked = try await env.run(["get", "photos", "a.txt", "-o", parent + "/plain/a.txt"])
    expectFailure(blocked, status: 65, containing: "is not a directory")
    #expect(!blocked.stderr.contains("The operation"), "no Foundation wording: \(blocked.stderr)")
  }

  /// H3: a character device is written into, never refused and never replaced, --force or not.
  /// The device is a node of /dev/null's kind made in a temporary directory (a regression must
  /// not be able to replace the machine's own /dev/null), and a FIFO read by a child is written
  /// into the same way.
  @Test func aCharacterDeviceIsWrittenIntoNeverReplaced() async throws {
    let env = try await CLIEnvironment.get()
    let parent = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let device = parent + "/null"
    #if os(Linux)
      let nullDevice = dev_t(0x103)  // major 1, minor 3, as glibc's makedev encodes them
    #else
      let nullDevice = dev_t(0x0100_0003)
    #endif
    guard mknod(device, S_IFCHR | 0o666, nullDevice) == 0 else {
      Issue.record("cannot make a character device in \(parent) (errno \(errno)); run as root")
      return
    }
    for extra in [[], ["--force"]] {
      let result = try await env.run(["get"] + extra + ["photos", "a.txt", "-o", device])
      #expect(result.status == 0, "\(result)")
      let status = try #require(try? FileManager.default.attributesOfItem(atPath: device))
      #expect(status[.type] as? FileAttributeType == .typeCharacterSpecial)
    }
  }

  /// H1, L-1: one failing object never ends the run: every object is tried, each failure
  /// reported, a summary, and the first failure's exit code. `a` and `a/b` (a file and a
  /// folder of the same name) fail one of the two, not the run.
  @Test func oneFailingObjectDoesNotEndTheRun() async throws {
    let keys = ["a", "a/b", "gone", "z"]
    let items = keys.map {
      #"{"key":"\#($0)","fsize":1,"hash":"FhH2rY7FKimEq6r9fDtRZQN4XCBy","mimeType":"m","putTime":17000000000000000}"#
    }
    let answer = #"{"marker":"","items":[\#(items.joined(separator: ","))]}"#
    let script: ScriptedHTTPServer.Script = { request in
      if request.path == "/list" { return .respond(.json(answer, headers: ["X-Reqid": "hostile"])) }
      if request.path.hasSuffix("/gone") {
        return .respond(.json(#"{"error":"no such file or directory"}"#, status: 404))
      }
      return .respond(.text("x", headers: ["X-Reqid": "scripted"]))
    }
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try writeTestConfig(baseURL: server.baseURL)
      defer { try? FileManager.default.removeItem(atPath: config) }
      let result = try await InProcess.run(
        ["get", "-r", "--parallel", "1", "--domain", server.baseURL, "b", directory],
        environment: ["KODO_CONFIG": config])
      #expect(result.status != 0, "\(result)")
      #expect(result.stderr.contains("gone"), "\(result.stderr)")
      #expect(
        result.stderr.contains("2 written") && result.stderr.contains("2 failed"),
        "\(result.stderr)")
      #expect(FileManager.default.contents(atPath: directory + "/z") == Data("x".utf8))
    }
  }

  /// M-5: a folder swapped for a symbolic link while `get -r` runs must not send a file
  /// outside DIR. The server swaps `sub` (already made for `sub/b.txt`) while `a.txt` downloads.
  @Test func aFolderSwappedForALinkMidRunDoesNotLeadOutside() async throws {
    let keys = ["a.txt", "sub/b.txt"]
    let items = keys.map {
      #"{"key":"\#($0)","fsize":1,"hash":"FhH2rY7FKimEq6r9fDtRZQN4XCBy","mimeType":"m","putTime":17000000000000000}"#
    }
    let answer = #"{"marker":"","items":[\#(items.joined(separator: ","))]}"#
    let directory = try Self.temporaryDirectory()
    let victim = try Self.temporaryDirectory()
    defer {
      try? FileManager.default.removeItem(atPath: directory)
      try? FileManager.default.removeItem(atPath: victim)
    }
    let script: ScriptedHTTPServer.Script = { request in
      if request.path == "/list" { return .respond(.json(answer, headers: ["X-Reqid": "hostile"])) }
      guard request.path.hasSuffix("/a.txt") else {
        return .respond(.text("x", headers: ["X-Reqid": "scripted"]))
      }
      return .deferred {
        let deadline = Patience.deadline
        while !FileManager.default.fileExists(atPath: directory + "/sub"),
          ContinuousClock.now < deadline
        {
          try? await Task.sleep(for: .milliseconds(20))
        }
        _ = rename(directory + "/sub", directory + "/sub.moved")
        _ = symlink(victim, directory + "/sub")
        return .respond(.text("x", headers: ["X-Reqid": "scripted"]))
      }
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try writeTestConfig(baseURL: server.baseURL)
      defer { try? FileManager.default.removeItem(atPath: config) }
      let result = try await InProcess.run(
        ["get", "-r", "--parallel", "1", "--domain", server.baseURL, "b", directory],
        environment: ["KODO_CONFIG": config])
      #expect(result.status == 0, "\(result)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: victim).isEmpty)
    #expect(FileManager.default.contents(atPath: directory + "/sub.moved/b.txt") == Data("x".utf8))
  }

  @Test func aSymbolicLinkInTheDirectoryIsNotFollowed() async throws {
    let env = try await CLIEnvironment.get()
    let directory = try Self.temporaryDirectory()
    let elsewhere = try Self.temporaryDirectory()
    defer {
      try? FileManager.default.removeItem(atPath: directory)
      try? FileManager.default.removeItem(atPath: elsewhere)
    }
    try FileManager.default.createSymbolicLink(
      atPath: directory + "/2024", withDestinationPath: elsewhere)
    let result = try await env.run(["get", "-r", "photos", directory])
    #expect(result.status == 65, "\(result)")
    #expect(result.stderr.contains("2024/x.txt"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    // The others were written.
    #expect(FileManager.default.fileExists(atPath: directory + "/a.txt"))
  }

  @Test func theBucketsDomainIsLookedUpOnceNotPerObject() async throws {
    // Seed 11: none of the 40 is an archived object waiting for a restore (refused to download).
    let emulator = try await EmulatorProcess(["--synthetic", "few=40", "--seed", "11"])
    defer { emulator.stop() }
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": try emulator.configFile()])
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let result = try await kodo.run(["get", "-r", "--parallel", "4", "few", directory])
    #expect(result.status == 0, "\(result)")
    #expect(result.stderr.contains("40 written"), "\(result)")
    let stats = try await emulator.stats()
    #expect(stats["download"] == 40, "\(stats)")
    #expect(stats["domains"] == 1, "\(stats)")
  }

  @Test func keysThatWouldLeaveTheDirectoryHaveNoPath() {
    // `/\u{301}` and `\u{600}/` are single Characters that still hold a `/` byte.
    let hidden = ["../\u{301}x", "a/../\u{301}b", "/\u{301}etc", "..\u{600}/..", "\u{600}/../x"]
    for key in ["../x", "a/../../x", "/etc/passwd", "a//b", "./a", "a/.", "a/", "p/..", "a\0b"]
      + hidden
    {
      #expect(RecursiveGet.relativePath(of: key, prefix: "") == nil, "\(key.debugDescription)")
    }
    #expect(RecursiveGet.relativePath(of: "p/../x", prefix: "p/") == nil)
    #expect(RecursiveGet.relativePath(of: "p/", prefix: "p/") == nil)
    #expect(RecursiveGet.relativePath(of: "a/b c/d..e", prefix: "") == ["a", "b c", "d..e"])
    #expect(RecursiveGet.relativePath(of: "2024/x/y", prefix: "20") == ["2024", "x", "y"])
    #expect(RecursiveGet.relativePath(of: "p/q/r", prefix: "p/q") == ["q", "r"])
    #expect(RecursiveGet.relativePath(of: "a/\u{301}b", prefix: "") == ["a", "\u{301}b"])
  }

  @Test func theDefaultFileNameIsTheLastSegmentByBytes() {
    #expect(DownloadFile.defaultName(for: "../\u{301}") == "\u{301}")
    #expect(DownloadFile.defaultName(for: "a/..\u{600}/x") == "x")
    #expect(DownloadFile.defaultName(for: "x/\u{600}/") == nil)
    #expect(DownloadFile.defaultName(for: "a/b.txt") == "b.txt")
  }
}
