import StorageCore
import Synchronization

/// A shell-style pattern over object keys, the one glob of `find`, `--include` and `--exclude`.
///
/// `*` matches any run of characters within one `/` segment, `?` one character other than `/`,
/// `**` any run of characters across segments, and `**/` zero or more whole folders (so
/// `**/*.txt` matches `a.txt` and `x/y/a.txt`). `[abc]`, `[a-z]` and `[!abc]` match one character
/// (never `/`) of a set; `\` takes the next character literally. Everything else matches itself.
/// The whole key must match.
struct Glob: Sendable {
  enum Token: Sendable, Equatable {
    case literal(Unicode.Scalar)
    case one
    case star
    case globStar
    /// `**/`: empty, or anything that ends in `/`.
    case folders
    case set(ranges: [ClosedRange<Unicode.Scalar>], negated: Bool)
  }

  /// The patterns people type most, matched on bytes without the general matcher's arrays: a
  /// literal run matches the same scalars exactly when it matches the same UTF-8 bytes.
  enum Shape: Sendable, Equatable {
    /// `**`: anything.
    case anything
    /// Literals only.
    case exactly([UInt8])
    /// `*` then literals (`*.jpg`, or `*` alone): the end, and no `/` before it.
    case suffix([UInt8])
    /// Literals then `*` (`log-*`): the start, and no `/` after it.
    case prefix([UInt8])
    /// Anything else: the general matcher.
    case general
  }

  let pattern: String
  let tokens: [Token]
  let shape: Shape

  /// Parses `pattern`.
  ///
  /// - Throws: `.invalidInput` for an unclosed `[` or a trailing `\`.
  init(_ pattern: String) throws(StorageError) {
    self.pattern = pattern
    let scalars = Array(pattern.unicodeScalars)
    var tokens: [Token] = []
    var index = 0
    func invalid(_ why: String) -> StorageError {
      StorageError(.invalidInput, "invalid pattern \(DisplayText.quoted(pattern)): \(why)")
    }
    while index < scalars.count {
      let scalar = scalars[index]
      switch scalar {
      case "*":
        if index + 1 < scalars.count, scalars[index + 1] == "*" {
          index += 2
          while index < scalars.count, scalars[index] == "*" { index += 1 }
          if index < scalars.count, scalars[index] == "/" {
            tokens.append(.folders)
            index += 1
          } else {
            tokens.append(.globStar)
          }
          continue
        }
        tokens.append(.star)
      case "?":
        tokens.append(.one)
      case "\\":
        guard index + 1 < scalars.count else { throw invalid("it ends in a lone \\") }
        index += 1
        tokens.append(.literal(scalars[index]))
      case "[":
        var cursor = index + 1
        var negated = false
        if cursor < scalars.count, scalars[cursor] == "!" || scalars[cursor] == "^" {
          negated = true
          cursor += 1
        }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        var first = true
        while cursor < scalars.count, first || scalars[cursor] != "]" {
          first = false
          var low = scalars[cursor]
          if low == "\\", cursor + 1 < scalars.count {
            cursor += 1
            low = scalars[cursor]
          }
          if cursor + 2 < scalars.count, scalars[cursor + 1] == "-", scalars[cursor + 2] != "]" {
            let high = scalars[cursor + 2]
            guard low <= high else { throw invalid("the range \(low)-\(high) is backwards") }
            ranges.append(low...high)
            cursor += 3
          } else {
            ranges.append(low...low)
            cursor += 1
          }
        }
        guard cursor < scalars.count else { throw invalid("a [ is not closed") }
        tokens.append(.set(ranges: ranges, negated: negated))
        index = cursor
      default:
        tokens.append(.literal(scalar))
      }
      index += 1
    }
    self.tokens = tokens
    self.shape = Self.shape(of: tokens)
  }

  private static func shape(of tokens: [Token]) -> Shape {
    func literalBytes(_ run: ArraySlice<Token>) -> [UInt8]? {
      var text = String.UnicodeScalarView()
      for token in run {
        guard case .literal(let scalar) = token else { return nil }
        text.append(scalar)
      }
      return Array(String(text).utf8)
    }
    if tokens == [.globStar] { return .anything }
    if let bytes = literalBytes(tokens[...]) { return .exactly(bytes) }
    if tokens.first == .star, let bytes = literalBytes(tokens.dropFirst()) { return .suffix(bytes) }
    if tokens.last == .star, let bytes = literalBytes(tokens.dropLast()) { return .prefix(bytes) }
    return .general
  }

  /// Whether the whole of `text` matches.
  func matches(_ text: some StringProtocol) -> Bool {
    let slashByte = UInt8(ascii: "/")
    switch shape {
    case .anything: return true
    case .exactly(let bytes): return text.utf8.elementsEqual(bytes)
    case .suffix(let bytes):
      let count = text.utf8.count
      guard count >= bytes.count else { return false }
      let cut = text.utf8.index(text.utf8.startIndex, offsetBy: count - bytes.count)
      return !text.utf8[..<cut].contains(slashByte) && text.utf8[cut...].elementsEqual(bytes)
    case .prefix(let bytes):
      guard text.utf8.starts(with: bytes) else { return false }
      return !text.utf8.dropFirst(bytes.count).contains(slashByte)
    case .general: return generalMatch(text)
    }
  }

  /// The general matcher: the set of positions each token can reach.
  private func generalMatch(_ text: some StringProtocol) -> Bool {
    let scalars = Array(text.unicodeScalars)
    let slash: Unicode.Scalar = "/"
    // reachable[i]: the tokens so far can match exactly scalars[..<i].
    var reachable = [Bool](repeating: false, count: scalars.count + 1)
    reachable[0] = true
    var next = reachable
    for token in tokens {
      for index in next.indices { next[index] = false }
      var any = false
      switch token {
      case .literal, .one, .set:
        for index in 0..<scalars.count where reachable[index] {
          if Self.single(token, matches: scalars[index]) {
            next[index + 1] = true
            any = true
          }
        }
      case .star, .globStar:
        // A run from any reachable place; `*` ends it at a `/`, `**` runs on.
        let withinSegment = token == .star
        var open = false
        for index in 0...scalars.count {
          if reachable[index] { open = true }
          if open {
            next[index] = true
            any = true
          }
          if withinSegment, index < scalars.count, scalars[index] == slash { open = false }
        }
      case .folders:
        var open = false
        for index in 0...scalars.count {
          if reachable[index] {
            open = true
            next[index] = true
            any = true
          }
          if open, index < scalars.count, scalars[index] == slash {
            next[index + 1] = true
            any = true
          }
        }
      }
      guard any else { return false }
      swap(&reachable, &next)
    }
    return reachable[scalars.count]
  }

  private static func single(_ token: Token, matches scalar: Unicode.Scalar) -> Bool {
    switch token {
    case .literal(let literal): scalar == literal
    case .one: scalar != "/"
    case .set(let ranges, let negated):
      scalar != "/" && ranges.contains { $0.contains(scalar) } != negated
    case .star, .globStar, .folders: false
    }
  }
}

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
