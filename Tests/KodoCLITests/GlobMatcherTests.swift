import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import KodoCLI

/// The byte-level matcher (`GlobMatcher.swift`) against a plain matcher over the parsed tokens,
/// on patterns with sets, escapes, `**/` and scalars of every UTF-8 length; and `find`'s filter
/// built on it.
@Suite("Glob matching on bytes")
struct GlobMatcherTests {
  /// The reference: for each token in turn, the set of scalar positions the tokens so far can
  /// end at.
  static func reference(_ glob: Glob, _ text: some StringProtocol) -> Bool {
    let scalars = Array(text.unicodeScalars)
    var reachable = Set([0])
    for token in glob.tokens {
      var next = Set<Int>()
      for start in reachable {
        switch token {
        case .literal(let literal):
          if start < scalars.count, scalars[start] == literal { next.insert(start + 1) }
        case .one:
          if start < scalars.count, scalars[start] != "/" { next.insert(start + 1) }
        case .set(let ranges, let negated):
          if start < scalars.count, scalars[start] != "/",
            ranges.contains(where: { $0.contains(scalars[start]) }) != negated
          {
            next.insert(start + 1)
          }
        case .star:
          var end = start
          next.insert(end)
          while end < scalars.count, scalars[end] != "/" {
            end += 1
            next.insert(end)
          }
        case .globStar:
          for end in start...scalars.count { next.insert(end) }
        case .folders:
          next.insert(start)
          for index in start..<scalars.count where scalars[index] == "/" { next.insert(index + 1) }
        }
      }
      reachable = next
    }
    return reachable.contains(scalars.count)
  }

  static let pieces = [
    "a", "b", "/", "é", "照", "𝄞", "*", "**", "**/", "?", "[ab]", "[!a]", "[a-é]", "[照𝄞]",
    "\\*", "\\[", "a/", "*/",
  ]
  static let patterns = Gen<String?>.element(of: pieces).map { $0 ?? "a" }.array(of: 0...10)
    .map { $0.joined() }
  static let keys = Gen<Character?>.element(of: Array("ab/é照𝄞*[")).map { $0 ?? "a" }
    .string(of: 0...14)

  @Test func theByteMatcherAgreesWithTheReference() async throws {
    await seededCheck(count: fuzzCount(4000), input: Self.patterns, Self.keys) { pattern, key in
      guard let glob = try? Glob(pattern) else { return }
      let expected = Self.reference(glob, key)
      #expect(
        glob.matches(key) == expected, "\(pattern.debugDescription) on \(key.debugDescription)")
      // A slice of a longer string: the bytes start inside its storage.
      let longer = "é/" + key
      #expect(
        glob.matches(longer.dropFirst(2)) == expected, "\(pattern.debugDescription) on a slice")
      let segment = KeySegments.lastSegment(of: key)
      #expect(
        glob.matchesLastSegment(of: key) == Self.reference(glob, segment),
        "--name \(pattern.debugDescription) on \(key.debugDescription)")
    }
  }

  /// Patterns of more tokens than one word of states holds.
  @Test func longPatternsAgreeWithTheReference() async throws {
    let long = Gen<String?>.element(of: Self.pieces).map { $0 ?? "a" }.array(of: 50...90)
      .map { $0.joined() }
    let keys = Gen<Character?>.element(of: Array("ab/é*")).map { $0 ?? "a" }.string(of: 40...120)
    await seededCheck(count: fuzzCount(300), input: long, keys) { pattern, key in
      guard let glob = try? Glob(pattern) else { return }
      #expect(glob.matches(key) == Self.reference(glob, key), "\(pattern.debugDescription)")
    }
    let seventy = String(repeating: "a", count: 70)
    let glob = try Glob("*" + String(repeating: "?", count: 69) + "**/a")
    // Past 63 tokens the states take more than a word: the automaton over buffers.
    #expect(glob.tokens.count > 64 && glob.automaton == nil)
    #expect(try Glob("**/a*b").automaton != nil)
    #expect(glob.matches(seventy + "/x/a") && glob.matches("b" + seventy))
    #expect(!glob.matches(String(seventy.dropFirst())) && !glob.matches("b/" + seventy))
  }

  @Test func onlyStarsMatchEverySegment() async throws {
    for pattern in ["*", "**", "***"] {
      #expect(try Glob(pattern).matchesEverySegment, "\(pattern)")
    }
    for pattern in ["", "*a", "?", "**/", "*?", "a", "[!/]"] {
      #expect(try !Glob(pattern).matchesEverySegment, "\(pattern.debugDescription)")
    }
    let star = try Glob("*")
    await seededCheck(count: fuzzCount(300), input: anyKey) { key in
      #expect(star.matches(KeySegments.lastSegment(of: key)))
      #expect(star.matchesLastSegment(of: key))
    }
  }

  static func entry(_ key: String, size: Int64 = 1) -> ObjectEntry {
    ObjectEntry(
      key: key, size: size, putTime: Timestamp(unixSeconds: 0),
      storageClass: StorageClass(name: "standard", serviceName: "0"))
  }

  @Test func theFilterKeepsMatchesInOrderAndThePageItselfWhenAllPass() throws {
    let page = ["a/x.jpg", "a/y.png", "b/z.jpg", "c.jpg/d", "e.jpg"].map { Self.entry($0) }
    var filter = ObjectFilter()
    filter.name = try Glob("*.jpg")
    #expect(!filter.keepsEverything)
    #expect(filter.kept(page).map(\.key) == ["a/x.jpg", "b/z.jpg", "e.jpg"])
    filter.name = try Glob("*")
    #expect(filter.keepsEverything)
    let all = filter.kept(page)
    let same = all.withUnsafeBufferPointer { kept in
      page.withUnsafeBufferPointer { kept.baseAddress == $0.baseAddress }
    }
    #expect(same)
    filter.larger = 1
    #expect(!filter.keepsEverything && filter.kept(page).isEmpty)
    filter.larger = nil
    filter.path = try Glob("**")
    filter.mime = try Glob("**")
    #expect(filter.keepsEverything)
    // --include and --exclude always run: they note whether an include met any key.
    filter.patterns = try KeyPatterns(include: ["**"], exclude: [])
    #expect(!filter.keepsEverything && filter.kept(page).count == page.count)
  }

  /// `--newer` and `--older` compare instants: an object put at the very moment given (written
  /// with Kodo's 7 digits, the date typed with none) is neither newer nor older than it.
  @Test func timeBoundsCompareInstantsWhateverTheirDigits() {
    var entry = Self.entry("k")
    entry.putTime = Timestamp(hundredNanoseconds: 17_000_000_000_000_000, fractionDigits: 7)
    let moment = Timestamp(unixSeconds: 1_700_000_000)
    var filter = ObjectFilter()
    filter.newer = moment
    #expect(!filter.keeps(entry))
    filter.newer = nil
    filter.older = moment
    #expect(!filter.keeps(entry))
    filter.older = Timestamp(unixSeconds: 1_700_000_001)
    #expect(filter.keeps(entry))
  }
}
