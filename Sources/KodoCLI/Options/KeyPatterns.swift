import StorageCore
import Synchronization

/// `--include` and `--exclude`: a key is kept when it matches any include (or none is given)
/// and no exclude.
struct KeyPatterns: Sendable {
  let include: [Glob]
  let exclude: [Glob]
  /// Whether any key was tested, and whether any matched an `--include`.
  private let seen = IncludeWatch()

  init(include: [String], exclude: [String]) throws(StorageError) {
    var included: [Glob] = []
    for pattern in include { included.append(try Glob(pattern)) }
    var excluded: [Glob] = []
    for pattern in exclude { excluded.append(try Glob(pattern)) }
    self.include = included
    self.exclude = excluded
  }

  var isEmpty: Bool { include.isEmpty && exclude.isEmpty }

  func keeps(_ key: String) -> Bool {
    guard !include.isEmpty else { return !exclude.contains { $0.matches(key) } }
    seen.tested()
    guard include.contains(where: { $0.matches(key) }) else { return false }
    seen.included()
    return !exclude.contains { $0.matches(key) }
  }

  /// After a listing: when keys were tested and no `--include` matched any, what to say about
  /// the patterns that have no `/` (`*` stays within one folder level, and patterns match
  /// whole keys), with the pattern that matches at any depth.
  var nothingIncludedHint: DisplayText? {
    guard seen.anyTested, !seen.anyIncluded else { return nil }
    let shallow = include.map(\.pattern).filter { KeySegments.splitAtFirstSlash($0) == nil }
    guard !shallow.isEmpty else { return nil }
    let quoted = shallow.map { ShellQuote.quote($0) }
    let deep = shallow.map { ShellQuote.quote("**/" + $0) }
    return
      "--include \(DisplayText.joined(quoted, separator: ", ")) matched no key: patterns match whole keys and * stays within one folder level; to match at any depth, use --include \(DisplayText.joined(deep, separator: ", "))"
  }
}

/// Whether a listing's keys met an `--include` (written once each, read after the listing).
final class IncludeWatch: Sendable {
  private let testedAny = Atomic<Bool>(false)
  private let includedAny = Atomic<Bool>(false)

  var anyTested: Bool { testedAny.load(ordering: .relaxed) }
  var anyIncluded: Bool { includedAny.load(ordering: .relaxed) }

  func tested() {
    if !testedAny.load(ordering: .relaxed) { testedAny.store(true, ordering: .relaxed) }
  }

  func included() {
    if !includedAny.load(ordering: .relaxed) { includedAny.store(true, ordering: .relaxed) }
  }
}
