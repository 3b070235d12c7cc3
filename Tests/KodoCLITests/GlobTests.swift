import Foundation
import KodoTestSupport
import PropertyBased
import Testing

@testable import KodoCLI

/// The one glob matcher (`find --name/--path/--mime`, `--include`/`--exclude`), checked against a
/// plain backtracking reference on random patterns and keys.
@Suite("Globs")
struct GlobTests {
  /// The reference: backtracking over characters, as the help describes the syntax (without
  /// sets).
  static func reference(_ pattern: [Character], _ text: [Character]) -> Bool {
    guard let first = pattern.first else { return text.isEmpty }
    if first == "*" {
      if pattern.count > 1 && pattern[1] == "*" {
        var rest = Array(pattern.dropFirst(2))
        while rest.first == "*" { rest.removeFirst() }
        if rest.first == "/" {
          // `**/`: nothing, or anything that ends with `/`.
          let after = Array(rest.dropFirst())
          if reference(after, text) { return true }
          for index in text.indices where text[index] == "/" {
            if reference(after, Array(text[(index + 1)...])) { return true }
          }
          return false
        }
        for start in 0...text.count where reference(rest, Array(text[start...])) { return true }
        return false
      }
      let rest = Array(pattern.dropFirst())
      for start in 0...text.count {
        if reference(rest, Array(text[start...])) { return true }
        if start < text.count && text[start] == "/" { return false }
      }
      return false
    }
    guard let head = text.first else { return false }
    if first == "?" {
      return head != "/" && reference(Array(pattern.dropFirst()), Array(text.dropFirst()))
    }
    return head == first && reference(Array(pattern.dropFirst()), Array(text.dropFirst()))
  }

  @Test func agreesWithTheReference() async throws {
    let patterns = Gen<Character?>.element(of: Array("ab/*?")).map { $0 ?? "a" }.string(of: 0...8)
    let keys = Gen<Character?>.element(of: Array("ab/")).map { $0 ?? "a" }.string(of: 0...10)
    await seededCheck(count: fuzzCount(3000), input: patterns, keys) { pattern, key in
      #expect(
        (try? Glob(pattern))?.matches(key) == Self.reference(Array(pattern), Array(key)),
        "\(pattern.debugDescription) against \(key.debugDescription)")
    }
  }

  @Test func aKeyMatchesItselfEscapedAndStarsKeepToOneSegment() async throws {
    await seededCheck(count: fuzzCount(500), input: anyKey) { key in
      // Per scalar, as Glob reads patterns: `[` followed by a combining mark is one Character
      // but still a `[` to the matcher.
      var escaped = String.UnicodeScalarView()
      for scalar in key.unicodeScalars {
        if "*?[\\".unicodeScalars.contains(scalar) { escaped.append("\\") }
        escaped.append(scalar)
      }
      #expect((try? Glob(String(escaped)))?.matches(key) == true, "\(key.debugDescription)")
      #expect((try? Glob("**"))?.matches(key) == true)
      #expect(
        (try? Glob("*"))?.matches(key) == !key.unicodeScalars.contains("/"),
        "\(key.debugDescription)")
    }
  }

  @Test func theCommonShapesMatchOnBytesAsTheGeneralMatcherDoes() throws {
    #expect(try Glob("*.jpg").shape == .suffix(Array(".jpg".utf8)))
    #expect(try Glob("*.jpg").matches("照片.jpg"))
    #expect(try !Glob("*.jpg").matches("a/b.jpg"))
    #expect(try Glob("*/x").matches("a/x") && !Glob("*/x").matches("a/b/x"))
    #expect(try Glob("log-*").shape == .prefix(Array("log-".utf8)))
    #expect(try Glob("log-*").matches("log-é") && !Glob("log-*").matches("log-a/b"))
    #expect(try Glob("**").shape == .anything && Glob("**").matches("a/b"))
    #expect(try Glob("a\\*").shape == .exactly(Array("a*".utf8)) && Glob("a\\*").matches("a*"))
    #expect(try !Glob("a\\*").matches("ab"))
    #expect(try Glob("*").matches("") && !Glob("*").matches("/"))
    #expect(try Glob("a*b").shape == .general)
  }

  @Test func examplesFromTheHelp() throws {
    #expect(try Glob("**/*.txt").matches("a.txt"))
    #expect(try Glob("**/*.txt").matches("x/y/a.txt"))
    #expect(try !Glob("*.txt").matches("x/a.txt"))
    #expect(try Glob("x/*/a.txt").matches("x/y/a.txt"))
    #expect(try !Glob("x/*/a.txt").matches("x/y/z/a.txt"))
    #expect(try Glob("[a-c]?.jpg").matches("b1.jpg"))
    #expect(try !Glob("[!a-c]?.jpg").matches("b1.jpg"))
    #expect(try Glob("image/*").matches("image/jpeg"))
    #expect(throws: (any Error).self) { try Glob("[ab") }
    #expect(throws: (any Error).self) { try Glob("ab\\") }
  }

  @Test func includeAndExclude() throws {
    let none = try KeyPatterns(include: [], exclude: [])
    #expect(none.keeps("anything/at/all"))
    let some = try KeyPatterns(include: ["*.txt", "logs/**"], exclude: ["**/secret*"])
    #expect(some.keeps("a.txt"))
    #expect(some.keeps("logs/2024/app.log"))
    #expect(!some.keeps("photos/a.jpg"))
    #expect(!some.keeps("logs/secret.log"))
    #expect(!some.keeps("secret.txt"))
  }

  @Test func sizesAndTimes() throws {
    #expect(try SizeText.bytes("10k", option: "--larger") == 10 * 1024)
    #expect(try SizeText.bytes("5M", option: "--larger") == 5 * 1024 * 1024)
    #expect(try SizeText.bytes("2GiB", option: "--larger") == 2 << 30)
    #expect(try SizeText.bytes("17", option: "--larger") == 17)
    for bad in ["", "k", "10x", "-1", "99999999999P", "1.5M"] {
      #expect(throws: (any Error).self, "\(bad)") { try SizeText.bytes(bad, option: "--larger") }
    }
    let now: Int64 = 1_700_000_000
    #expect(
      try WhenText.timestamp("7d", option: "--newer", now: now).unixSeconds == now - 7 * 86400)
    #expect(
      try WhenText.timestamp("2024-06-01T00:00:00Z", option: "--newer", now: now).unixSeconds
        == 1_717_200_000)
    for bad in ["", "yesterday", "2024-13-01T00:00:00Z", "0"] {
      #expect(throws: (any Error).self, "\(bad)") {
        try WhenText.timestamp(bad, option: "--newer", now: now)
      }
    }
  }
}
