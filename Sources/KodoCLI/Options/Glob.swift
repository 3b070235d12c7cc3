import StorageCore

/// A shell-style pattern over object keys, the one glob of `find`, `--include` and `--exclude`.
///
/// `*` matches any run of characters within one `/` segment, `?` one character other than `/`,
/// `**` any run of characters across segments, and `**/` zero or more whole folders (so
/// `**/*.txt` matches `a.txt` and `x/y/a.txt`). `[abc]`, `[a-z]` and `[!abc]` match one character
/// (never `/`) of a set; `\` takes the next character literally. Everything else matches itself.
/// The whole key must match. Matching works on the text's UTF-8 bytes (`GlobMatcher.swift`).
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
  /// Whether every text without a `/` matches (`*`, `**`): within one segment `*` is `**`, so
  /// such a pattern keeps every last segment (`--name '*'`) without reading it.
  let matchesEverySegment: Bool
  /// The general matcher's automaton in words, for patterns of fewer than 64 tokens.
  let automaton: GlobAutomaton?

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
    self.matchesEverySegment =
      !tokens.isEmpty && tokens.allSatisfy { $0 == .star || $0 == .globStar }
    self.automaton = shape == .general ? GlobAutomaton(tokens) : nil
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
}
