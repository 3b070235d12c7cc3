import Foundation
import KodoTestSupport
import Testing

/// `du`, `find`, several keys for `stat` and `url`, and `--json` errors, end to end against the
/// emulator; every expected answer is computed from the files the emulator serves.
@Suite("More verbs against kodo-emulator", .serialized)
struct VerbTests {
  let env: CLIEnvironment

  init() async throws { env = try await CLIEnvironment.get() }

  static let photos = CLIEnvironment.photos

  /// The JSON lines of stderr.
  static func errorLines(_ result: CLIRunner.Result) throws -> [[String: Any]] {
    try result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  // MARK: --json errors

  @Test(arguments: [
    (["ls", "--json", "--page-size", "0", "photos"], 64),
    (["buckets", "--json", "--config", "/nonexistent/kodo.json"], 78),
    (["cat", "--json", "photos", "nope.txt"], 66),
    (["ls", "--json", "no-such-bucket"], 66),
    (["find", "--json", "photos", "--larger", "ten"], 65),
    (["du", "--json", "--depth", "0", "photos"], 64),
    (["url", "--json", "photos", ""], 65),
  ])
  func everyErrorIsAlsoOneJSONLine(_ arguments: [String], _ status: Int) async throws {
    let result = try await env.run(arguments)
    #expect(result.status == Int32(status), "\(result)")
    let lines = try Self.errorLines(result)
    #expect(lines.count == 1, "\(result.stderr)")
    let line = try #require(lines.first)
    #expect(line["type"] as? String == "error")
    #expect(line["exit"] as? Int == status)
    #expect((line["message"] as? String)?.isEmpty == false)
    #expect(result.stderr.contains("kodo: error: "), "the text line is still there")
    // Without --json, no JSON line.
    let plain = try await env.run(arguments.filter { $0 != "--json" })
    #expect(try Self.errorLines(plain).isEmpty, "\(plain.stderr)")
  }

  // MARK: several keys

  @Test func statOfSeveralKeysPrintsEachInOrderAndReportsTheMissingOne() async throws {
    let result = try await env.run(["stat", "--json", "photos", "b.json", "nope.txt", "a.txt"])
    #expect(result.status == 66, "\(result)")
    let lines = try CLIEnvironment.jsonLines(result)
    #expect(lines.compactMap { $0["key"] as? String } == ["b.json", "a.txt"])
    #expect(lines.compactMap { $0["size"] as? Int } == [Self.photos["b.json"]?.count, 6])
    #expect(result.stderr.contains("nope.txt"))
    let errors = try Self.errorLines(result)
    #expect(errors.count == 1)
    #expect(errors.first?["exit"] as? Int == 66)

    let text = try await env.run(["stat", "photos", "a.txt", "b.json"])
    #expect(text.status == 0, "\(text)")
    #expect(text.stdout.contains("a.txt") && text.stdout.contains("b.json"))
    // The one-key forms still work.
    let single = try await env.run(["stat", "--json", "a.txt"])
    #expect(single.status == 0, "\(single)")
    #expect(try CLIEnvironment.jsonLines(single).first?["key"] as? String == "a.txt")
  }

  @Test func urlOfSeveralKeysPrintsOneURLPerKeyInOrder() async throws {
    let keys = ["b.json", "2024/x.txt", "a.txt"]
    let result = try await env.run(["url", "--json", "--public", "photos"] + keys)
    #expect(result.status == 0, "\(result)")
    let lines = try CLIEnvironment.jsonLines(result)
    #expect(lines.compactMap { $0["key"] as? String } == keys)
    for (line, key) in zip(lines, keys) {
      #expect((line["url"] as? String)?.hasSuffix("/" + key) == true)
    }
  }

  // MARK: du

  @Test func duCountsEveryObjectAndByte() async throws {
    for extra in [[], ["--parallel", "3"], ["--page-size", "2"]] {
      let result = try await env.run(["du", "--json", "photos"] + extra)
      #expect(result.status == 0, "\(result)")
      let lines = try CLIEnvironment.jsonLines(result)
      #expect(lines.count == 1)
      let total = try #require(lines.first)
      #expect(total["type"] as? String == "usage")
      #expect(total["prefix"] as? String == "")
      #expect(total["objects"] as? Int == Self.photos.count)
      let bytes = Self.photos.values.reduce(0) { $0 + $1.count }
      #expect(total["size"] as? Int == bytes)
      #expect((total["storageClasses"] as? [String: Int]) == ["standard": bytes])
    }
  }

  @Test func duWithDepthGivesOneLinePerFolder() async throws {
    let result = try await env.run(["du", "--json", "--depth", "1", "photos"])
    #expect(result.status == 0, "\(result)")
    let lines = try CLIEnvironment.jsonLines(result)
    var expected: [String: (objects: Int, size: Int)] = [:]
    for (key, bytes) in Self.photos {
      guard let slash = key.firstIndex(of: "/") else { continue }
      let folder = String(key[...slash])
      expected[folder, default: (0, 0)].objects += 1
      expected[folder, default: (0, 0)].size += bytes.count
    }
    let folders = lines.dropLast()
    #expect(
      folders.compactMap { $0["prefix"] as? String }
        == expected.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    for line in folders {
      let prefix = try #require(line["prefix"] as? String)
      #expect(line["objects"] as? Int == expected[prefix]?.objects, "\(prefix)")
      #expect(line["size"] as? Int == expected[prefix]?.size, "\(prefix)")
    }
    #expect(lines.last?["total"] as? Bool == true)
    #expect(lines.last?["objects"] as? Int == Self.photos.count)

    // Under a prefix that is not a whole folder, and in text.
    let text = try await env.run(["du", "--depth", "1", "photos/2024/"])
    #expect(text.status == 0, "\(text)")
    #expect(text.lines.count == 2, "\(text.stdout)")
    #expect(text.lines.first?.hasSuffix("photos/2024/summer trip/") == true)
    #expect(text.lines.last?.contains("2 objects") == true)
  }

  // MARK: find

  static func keys(where keep: (String, [UInt8]) -> Bool) -> [String] {
    photos.filter { keep($0.key, $0.value) }.map(\.key).sorted {
      $0.utf8.lexicographicallyPrecedes($1.utf8)
    }
  }

  static func lastSegment(_ key: String) -> Substring {
    key.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(key)
  }

  @Test func findAppliesEveryFilter() async throws {
    let cases: [([String], [String])] = [
      (["--name", "*.txt"], Self.keys { key, _ in Self.lastSegment(key).hasSuffix(".txt") }),
      (["--larger", "1k"], Self.keys { _, bytes in bytes.count > 1024 }),
      (["--smaller", "2"], Self.keys { _, bytes in bytes.count < 2 }),
      (["--path", "*"], Self.keys { key, _ in !key.contains("/") }),
      (
        ["--name", "*.txt", "--exclude", "odd/**", "--exclude", "中文/**"],
        Self.keys { key, _ in
          Self.lastSegment(key).hasSuffix(".txt") && !key.hasPrefix("odd/")
            && !key.hasPrefix("中文/")
        }
      ),
      (
        ["--include", "**/*.txt", "--include", "*.bin"],
        Self.keys { key, _ in key.hasSuffix(".txt") || (!key.contains("/") && key.hasSuffix(".bin"))
        }
      ),
      (["--regex", "^[0-9]+/"], Self.keys { key, _ in key.first?.isNumber == true }),
      (
        ["--mime", "text/*", "--newer", "30d"],
        Self.keys { key, _ in key.hasSuffix(".txt") }
      ),
      (["--older", "30d"], []),
      (["--storage-class", "ia"], []),
      (["--storage-class", "standard", "--larger", "0"], Self.keys { _, bytes in !bytes.isEmpty }),
    ]
    for (filters, expected) in cases {
      let result = try await env.run(["find", "-0", "photos"] + filters)
      #expect(result.status == 0, "\(filters): \(result)")
      let keys = result.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      #expect(keys == expected, "\(filters)")
    }
  }

  @Test func findUnderAPrefixInParallelAndSummarized() async throws {
    let expected = Self.keys { key, _ in key.hasPrefix("2024/") && key.hasSuffix(".txt") }
    let result = try await env.run(
      ["find", "--json", "--parallel", "2", "--summarize", "photos/2024/", "--name", "*.txt"])
    #expect(result.status == 0, "\(result)")
    let lines = try CLIEnvironment.jsonLines(result)
    #expect(lines.dropLast().compactMap { $0["key"] as? String } == expected)
    #expect(lines.last?["type"] as? String == "summary")
    #expect(lines.last?["objects"] as? Int == expected.count)
  }

  @Test func findWithALimitResumesExactlyAfterTheLastMatch() async throws {
    let expected = Self.keys { key, _ in Self.lastSegment(key).hasSuffix(".txt") }
    #expect(expected.count >= 4)
    for pageSize in ["1000", "3"] {
      var found: [String] = []
      var marker: String?
      var rounds = 0
      repeat {
        rounds += 1
        var arguments = ["find", "--json", "--limit", "2", "--page-size", pageSize, "photos"]
        arguments += ["--name", "*.txt"]
        if let marker { arguments += ["--marker", marker] }
        let result = try await env.run(arguments)
        #expect(result.status == 0, "\(result)")
        let lines = try CLIEnvironment.jsonLines(result)
        found += lines.filter { $0["type"] as? String == "object" }.compactMap {
          $0["key"] as? String
        }
        marker = lines.last.flatMap {
          $0["type"] as? String == "next" ? $0["marker"] as? String : nil
        }
      } while marker != nil && rounds < 20
      #expect(found == expected, "page size \(pageSize)")
    }
  }

  // MARK: cat --range, get -o -

  @Test func catWritesTheBytesOfARange() async throws {
    let big = try #require(Self.photos["big/five-mib.bin"])
    let size = big.count
    let cases: [(String, ArraySlice<UInt8>)] = [
      ("0-0", big[0...0]),
      ("100-4099", big[100...4099]),
      ("\(size - 10)-", big[(size - 10)...]),
      ("-17", big[(size - 17)...]),
      ("5-\(size * 2)", big[5...]),
      ("-\(size + 5)", big[...]),
    ]
    for (range, expected) in cases {
      // `--range=-17`: with a space, ArgumentParser takes -17 for an option.
      let result = try await env.run(["cat", "--range=" + range, "photos", "big/five-mib.bin"])
      #expect(result.status == 0, "\(range): \(result.stderr)")
      // Compared as a Bool: a failed comparison of two 5 MiB arrays takes ages to describe.
      let same = result.stdoutBytes == Array(expected)
      #expect(same, "\(range): \(result.stdoutBytes.count) bytes, expected \(expected.count)")
    }
    for bad in ["", "-", "5", "9-3", "a-b", "-0", "\(size)-"] {
      let result = try await env.run(["cat", "--range=" + bad, "photos", "big/five-mib.bin"])
      #expect(result.status == 65, "\(bad): \(result)")
      #expect(result.stdoutBytes.isEmpty)
    }
    let empty = try await env.run(["cat", "--range", "0-", "photos", "empty.bin"])
    #expect(empty.status == 65, "\(empty)")
    let whole = try await env.run(["get", "-o", "-", "photos", "a.txt"])
    #expect(whole.status == 0)
    #expect(whole.stdoutBytes == Self.photos["a.txt"])
  }

  // MARK: ls --include/--exclude

  @Test func lsShowsTheObjectsThePatternsKeep() async throws {
    for extra in [[], ["--parallel", "2"]] {
      let result = try await env.run(
        ["ls", "-r", "-0", "photos", "--include", "**/*.txt", "--include", "*.json"]
          + ["--exclude", "odd/**"] + extra)
      #expect(result.status == 0, "\(result)")
      let keys = result.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      #expect(
        keys
          == Self.keys { key, _ in
            (key.hasSuffix(".txt") || (!key.contains("/") && key.hasSuffix(".json")))
              && !key.hasPrefix("odd/")
          }, "\(extra)")
    }
    // One level: folders stay, objects are filtered.
    let level = try await env.run(["ls", "--json", "photos", "--exclude", "*.txt"])
    let lines = try CLIEnvironment.jsonLines(level)
    #expect(lines.filter { $0["type"] as? String == "prefix" }.count == 4)
    #expect(
      lines.filter { $0["type"] as? String == "object" }.compactMap { $0["key"] as? String }
        == ["b.json", "empty.bin"])
  }
}
