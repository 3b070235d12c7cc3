import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

@Suite("kodo against kodo-emulator", .serialized)
struct CommandTests {
  let env: CLIEnvironment

  init() async throws { env = try await CLIEnvironment.get() }

  @Test func bucketsTextAndJSON() async throws {
    let text = try await env.run(["buckets"])
    #expect(text.status == 0, "\(text)")
    #expect(text.lines.map { String($0.split(separator: " ")[0]) } == ["big", "logs", "photos"])
    let json = try await env.run(["buckets", "--json"])
    let names = try CLIEnvironment.jsonLines(json).map { $0["name"] as? String }
    #expect(names == ["big", "logs", "photos"])
    // Global options work before the subcommand too.
    let before = try await env.run(["--json", "buckets"])
    #expect(before.stdout == json.stdout)
  }

  @Test func lsShowsOneLevelFoldersFirst() async throws {
    let result = try await env.run(["ls", "--json", "photos"])
    #expect(result.status == 0, "\(result)")
    let lines = try CLIEnvironment.jsonLines(result)
    let prefixes = lines.filter { $0["type"] as? String == "prefix" }.compactMap {
      $0["key"] as? String
    }
    let objects = lines.filter { $0["type"] as? String == "object" }.compactMap {
      $0["key"] as? String
    }
    #expect(prefixes == ["2024/", "big/", "odd/", "中文/"])
    #expect(objects == ["a.txt", "b.json", "empty.bin"])
    #expect(lines.prefix(4).allSatisfy { $0["type"] as? String == "prefix" })
    let a = try #require(lines.first { $0["key"] as? String == "a.txt" })
    #expect(a["size"] as? Int == 6)
    #expect(a["hash"] as? String == QETag.hash(of: Array("hello\n".utf8)))
    #expect(a["mimeType"] as? String == "text/plain")
    #expect(a["storageClass"] as? String == "standard")
    #expect(a["status"] as? String == "enabled")
    let putTime = try #require(a["putTime"] as? String)
    #expect(
      putTime.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$"#, options: .regularExpression)
        != nil)
    #expect(
      Set(a.keys) == [
        "type", "key", "size", "hash", "mimeType", "putTime", "storageClass", "status",
      ])
  }

  @Test func lsOfAFolderAndTextOutput() async throws {
    let result = try await env.run(["ls", "photos/2024/"])
    #expect(result.status == 0, "\(result)")
    #expect(result.lines.count == 2)
    #expect(result.lines[0].hasSuffix("summer trip/") && result.lines[0].contains("DIR"))
    #expect(result.lines[1].hasSuffix("  x.txt"))
    #expect(!result.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
  }

  @Test func controlCharactersInKeysAreEscapedInTextAndExactInJSONAndNul() async throws {
    let text = try await env.run(["ls", "photos/odd/"])
    #expect(text.stdout.contains(#"new\nline.txt"#))
    #expect(text.stdout.contains(#"tab\there.txt"#))
    #expect(text.lines.count == 3)
    let json = try await CLIEnvironment.jsonLines(env.run(["ls", "--json", "photos/odd/"]))
    #expect(json.compactMap { $0["key"] as? String }.contains("odd/new\nline.txt"))
    let nul = try await env.run(["ls", "-r", "-0", "photos/odd/"])
    #expect(
      nul.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        == CLIEnvironment.keys(CLIEnvironment.photos, prefix: "odd/"))
    #expect(nul.stdoutBytes.last == 0)
  }

  @Test func recursiveListingIsCompleteAndInKeyOrder() async throws {
    let result = try await env.run(["ls", "-r", "-0", "--page-size", "2", "photos"])
    #expect(result.status == 0, "\(result)")
    let keys = result.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(keys == CLIEnvironment.keys(CLIEnvironment.photos))
  }

  @Test func limitAndMarkerCoverAListingExactly() async throws {
    let full = try await env.run(["ls", "-r", "--json", "big"])
    #expect(full.status == 0)
    #expect(full.lines.count == 12_000)
    var collected: [String] = []
    var marker: String?
    var rounds = 0
    repeat {
      var arguments = ["ls", "-r", "--json", "--limit", "2500", "--page-size", "700", "big"]
      if let marker { arguments += ["--marker", marker] }
      let part = try await env.run(arguments)
      #expect(part.status == 0, "\(part)")
      var lines = part.lines
      marker = nil
      if let last = lines.last, last.hasPrefix(#"{"type":"next""#) {
        let object = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        marker = object?["marker"] as? String
        lines.removeLast()
        #expect(lines.count == 2500)
      }
      collected += lines
      rounds += 1
    } while marker != nil && rounds < 10
    #expect(rounds == 5)
    #expect(collected == full.lines)
  }

  @Test func textModeLimitPrintsTheMarkerOnStderr() async throws {
    let result = try await env.run(["ls", "-r", "--limit", "3", "photos"])
    #expect(result.status == 0)
    #expect(result.lines.count == 3)
    let marker = try #require(
      result.stderr.components(separatedBy: "--marker ").last?.trimmingCharacters(
        in: .whitespacesAndNewlines))
    let rest = try await env.run(["ls", "-r", "-0", "--marker", marker, "photos"])
    let restKeys = rest.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(restKeys == Array(CLIEnvironment.keys(CLIEnvironment.photos).dropFirst(3)))
  }

  @Test func parallelOutputIsIdenticalToSequential() async throws {
    let sequential = try await env.run(["ls", "-r", "--json", "big"])
    let parallel = try await env.run([
      "ls", "-r", "--json", "--parallel", "8", "--page-size", "300", "big",
    ])
    #expect(parallel.status == 0, "\(parallel.stderr)")
    #expect(parallel.stdout == sequential.stdout)
    let photos = try await env.run(["ls", "-r", "--parallel", "3", "-0", "photos"])
    let photosSequential = try await env.run(["ls", "-r", "-0", "photos"])
    #expect(photos.stdoutBytes == photosSequential.stdoutBytes)
  }

  @Test func summarizeCountsEverything() async throws {
    let result = try await env.run(["ls", "-r", "--summarize", "--json", "photos"])
    let summary = try #require(try CLIEnvironment.jsonLines(result).last)
    #expect(summary["type"] as? String == "summary")
    #expect(summary["objects"] as? Int == CLIEnvironment.photos.count)
    #expect(summary["size"] as? Int == CLIEnvironment.photos.values.map(\.count).reduce(0, +))
  }

  @Test func statTextAndJSON() async throws {
    let text = try await env.run(["stat", "photos", "中文/文件.txt"])
    #expect(text.status == 0, "\(text)")
    #expect(text.stdout.contains("Key:"))
    #expect(text.stdout.contains("中文/文件.txt"))
    #expect(text.stdout.contains("Size:          7 bytes"))
    let json = try await CLIEnvironment.jsonLines(env.run(["stat", "--json", "a.txt"]))
    #expect(json.count == 1)
    #expect(json[0]["key"] as? String == "a.txt")
    #expect(json[0]["size"] as? Int == 6)
    #expect(json[0]["type"] == nil)
  }

  @Test func urlSignsOrNotAndTheURLsWork() async throws {
    let signed = try await env.run([
      "url", "--deadline", "4102444800", "logs", "2024-06-01/app.log",
    ])
    #expect(signed.status == 0, "\(signed)")
    let url = signed.stdout.trimmingCharacters(in: .newlines)
    #expect(
      url.hasPrefix(
        env.emulator.downloadDomain("logs")
          + "/2024-06-01/app.log?e=4102444800&token=\(env.emulator.accessKey):"))
    let public_ = try await env.run(["url", "--public", "photos", "2024/summer trip/beach day.txt"])
    #expect(
      public_.stdout == env.emulator.downloadDomain("photos")
        + "/2024/summer%20trip/beach%20day.txt\n")
    let domain = try await env.run([
      "url", "--public", "--domain", "https://cdn.example.com/", "photos", "中文/文件.txt",
    ])
    #expect(domain.stdout == "https://cdn.example.com/%E4%B8%AD%E6%96%87/%E6%96%87%E4%BB%B6.txt\n")
    let json = try await CLIEnvironment.jsonLines(
      env.run(["url", "--json", "--expires", "2h", "logs", "2024-06-02/app.log"]))
    let deadline = try #require(json.first?["deadline"] as? Int)
    let now = Int(Date().timeIntervalSince1970)
    #expect(deadline >= now + 7_100 && deadline <= now + 7_300)
  }

  @Test func urlStdinKeepsOrderAndExactKeys() async throws {
    let keys = [
      "a.txt", "2024/summer trip/beach day.txt", " leading space", "trailing space ", "中文/文件.txt",
    ]
    let input = Array((keys.joined(separator: "\n") + "\r\n").utf8)
    let result = try await env.run(
      ["url", "--stdin", "--public", "--json", "photos"], stdin: input)
    #expect(result.status == 0, "\(result)")
    let printed = try CLIEnvironment.jsonLines(result).compactMap { $0["key"] as? String }
    #expect(printed == keys)
  }

  @Test func catStreamsExactBytesFromPublicAndPrivateBuckets() async throws {
    let big = try await env.run(["cat", "photos", "big/five-mib.bin"])
    #expect(big.status == 0, "\(big.stderr)")
    #expect(big.stdoutBytes == CLIEnvironment.photos["big/five-mib.bin"])
    let log = try await env.run(["cat", "logs", "2024-06-01/app.log"])
    #expect(log.stdout == "INFO start\nERROR boom\n")
    let empty = try await env.run(["cat", "photos", "empty.bin"])
    #expect(empty.status == 0 && empty.stdoutBytes.isEmpty)
  }

  @Test func getWritesAtomicallyAndRefusesToOverwrite() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-get-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let target = directory + "/five.bin"
    let first = try await env.run(["get", "photos", "big/five-mib.bin", "-o", target])
    #expect(first.status == 0, "\(first)")
    #expect(
      FileManager.default.contents(atPath: target).map(Array.init)
        == CLIEnvironment.photos["big/five-mib.bin"])
    let again = try await env.run(["get", "photos", "big/five-mib.bin", "-o", target])
    #expect(again.status == 65)
    #expect(again.stderr.hasPrefix("kodo: error: ") && again.stderr.contains("--force"))
    let forced = try await env.run(["get", "--force", "photos", "big/five-mib.bin", "-o", target])
    #expect(forced.status == 0)
    let intoDirectory = try await env.run(["get", "logs", "2024-06-01/app.log", "-o", directory])
    #expect(intoDirectory.status == 0, "\(intoDirectory)")
    #expect(
      FileManager.default.contents(atPath: directory + "/app.log").map(Array.init)
        == CLIEnvironment.logs["2024-06-01/app.log"])
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
      $0.contains(".part")
    }
    #expect(leftovers.isEmpty)
  }

  @Test func domainsListsTheEmulatorsDownloadDomain() async throws {
    let result = try await env.run(["domains", "photos"])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout == env.emulator.downloadDomain("photos") + "\n")
  }
}

@Suite("Terminal output", .serialized)
struct TerminalOutputTests {
  /// Runs kodo under a pseudo-terminal with util-linux `script`.
  func runInTerminal(_ arguments: [String], environment extra: [String: String] = [:]) async throws
    -> CLIRunner.Result
  {
    let env = try await CLIEnvironment.get()
    let command = ([env.kodo.executable] + arguments).map {
      "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
    .joined(separator: " ")
    var runner = CLIRunner("kodo", environment: ["KODO_CONFIG": env.config, "TERM": "xterm"])
    for (name, value) in extra { runner.environment[name] = value }
    return try await runner.runShell("script -qec \(ShellWords.quote(command)) /dev/null")
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func aTerminalGetsHumanSizesAndColouredFolders() async throws {
    let result = try await runInTerminal(["ls", "photos/big/"])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.contains("5.0 MiB"), "\(result.stdout)")
    let root = try await runInTerminal(["ls", "photos"])
    #expect(root.stdout.contains("\u{1B}[1;34m2024/\u{1B}[0m"), "\(root.stdout)")
    let plain = try await runInTerminal(["ls", "photos"], environment: ["NO_COLOR": "1"])
    #expect(!plain.stdout.contains("\u{1B}["))
  }
}

enum ShellWords {
  static func quote(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
