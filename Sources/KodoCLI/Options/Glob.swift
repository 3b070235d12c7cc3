import StorageCore

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

  let pattern: String
  let tokens: [Token]

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
  }

  /// Whether the whole of `text` matches.
  func matches(_ text: some StringProtocol) -> Bool {
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
    (include.isEmpty || include.contains { $0.matches(key) })
      && !exclude.contains { $0.matches(key) }
  }
}
