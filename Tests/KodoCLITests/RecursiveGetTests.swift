import Foundation
import KodoTestSupport
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
    // A changed file is written again; the others are kept.
    try Data("changed".utf8).write(to: URL(fileURLWithPath: directory + "/a.txt"))
    let again = try await env.run(["get", "-r", "photos", directory])
    #expect(again.status == 0, "\(again)")
    #expect(again.stderr.contains("1 written"), "\(again.stderr)")
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
