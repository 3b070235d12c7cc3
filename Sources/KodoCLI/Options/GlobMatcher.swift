import StorageCore

/// Matching, on the text's UTF-8 bytes as they are stored: no copy of the text and no heap
/// allocation for a key (a search tests every listed key, a million for a big bucket).
extension Glob {
  /// Whether the whole of `text` matches.
  func matches(_ text: some StringProtocol) -> Bool {
    if case .anything = shape { return true }
    if let matched = text.utf8.withContiguousStorageIfAvailable({ matches(utf8: $0) }) {
      return matched
    }
    return Array(text.utf8).withUnsafeBufferPointer { matches(utf8: $0) }
  }

  /// Whether what follows the last `/` of `key` (all of it when it has none) matches: `--name`.
  func matchesLastSegment(of key: String) -> Bool {
    if matchesEverySegment { return true }
    let matched = key.utf8.withContiguousStorageIfAvailable { bytes in
      var start = bytes.count
      while start > 0, bytes[start - 1] != Self.slash { start -= 1 }
      return matches(utf8: UnsafeBufferPointer(rebasing: bytes[start...]))
    }
    return matched ?? matches(KeySegments.lastSegment(of: key))
  }

  /// Whether the whole of `text`, valid UTF-8, matches.
  func matches(utf8 text: UnsafeBufferPointer<UInt8>) -> Bool {
    switch shape {
    case .anything:
      return true
    case .exactly(let bytes):
      return text.count == bytes.count && Self.same(text, from: 0, as: bytes)
    case .suffix(let bytes):
      let cut = text.count - bytes.count
      return cut >= 0 && !Self.slash(in: text, below: cut) && Self.same(text, from: cut, as: bytes)
    case .prefix(let bytes):
      guard text.count >= bytes.count, Self.same(text, from: 0, as: bytes) else { return false }
      var index = bytes.count
      while index < text.count {
        if text[index] == Self.slash { return false }
        index += 1
      }
      return true
    case .general:
      guard let automaton else { return generalMatch(text) }
      return tokens.withUnsafeBufferPointer { automaton.matches(text, tokens: $0) }
    }
  }

  private static let slash = UInt8(ascii: "/")

  /// Whether `text` holds `bytes` from `start` (which leaves room for them).
  private static func same(
    _ text: UnsafeBufferPointer<UInt8>, from start: Int, as bytes: [UInt8]
  ) -> Bool {
    bytes.withUnsafeBufferPointer { bytes in
      var index = 0
      while index < bytes.count {
        if text[start + index] != bytes[index] { return false }
        index += 1
      }
      return true
    }
  }

  /// Whether `text` has a `/` before `end`.
  private static func slash(in text: UnsafeBufferPointer<UInt8>, below end: Int) -> Bool {
    var index = 0
    while index < end {
      if text[index] == slash { return true }
      index += 1
    }
    return false
  }

  /// The general matcher: the tokens as states of an automaton, run over the text's scalars
  /// once. State `i` is "the tokens before `i` match the text so far"; `**/` has a second state,
  /// "inside its run, which has not ended in `/` yet". The sets of states are bits, on the stack.
  private func generalMatch(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    let words = (tokens.count + 1 + 63) / 64
    return tokens.withUnsafeBufferPointer { tokens in
      withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 4 * words) { storage in
        storage.initialize(repeating: 0)
        let sets = StateSets(storage: storage, words: words)
        sets.insert(0, into: .at)
        Self.close(sets, tokens)
        var index = 0
        while index < text.count {
          let (scalar, length) = Self.scalar(in: text, at: index)
          index += length
          guard Self.step(sets, tokens, on: scalar) else { return false }
        }
        return sets.contains(tokens.count, in: .at)
      }
    }
  }

  /// Moves every state over `scalar`; returns whether any state is left.
  private static func step(
    _ sets: StateSets, _ tokens: UnsafeBufferPointer<Token>, on scalar: Unicode.Scalar
  ) -> Bool {
    let isSlash = scalar == "/"
    sets.clearNext()
    var any = false
    for word in 0..<sets.words {
      let at = sets.storage[word]
      let inside = sets.storage[sets.words + word]
      var bits = at | inside
      while bits != 0 {
        let bit = bits.trailingZeroBitCount
        bits &= bits - 1
        let state = word * 64 + bit
        // The last state (everything matched) has no token to go on with.
        guard state < tokens.count else { continue }
        let mask: UInt64 = 1 << bit
        if inside & mask != 0 {
          sets.insert(state, into: .nextInside)
          if isSlash { sets.insert(state + 1, into: .nextAt) }
          any = true
        }
        guard at & mask != 0 else { continue }
        switch tokens[state] {
        case .literal, .one, .set:
          guard takes(tokens[state], scalar) else { continue }
          sets.insert(state + 1, into: .nextAt)
        case .star:
          guard !isSlash else { continue }
          sets.insert(state, into: .nextAt)
        case .globStar:
          sets.insert(state, into: .nextAt)
        case .folders:
          sets.insert(state, into: .nextInside)
          if isSlash { sets.insert(state + 1, into: .nextAt) }
        }
        any = true
      }
    }
    guard any else { return false }
    sets.advance()
    close(sets, tokens)
    return true
  }

  /// Adds the states reached without reading: past each `*`, `**` and `**/`, which may match
  /// nothing (in order, so that a run of them is passed in one sweep).
  private static func close(_ sets: StateSets, _ tokens: UnsafeBufferPointer<Token>) {
    for word in 0..<sets.words {
      var bits = sets.storage[word]
      while bits != 0 {
        let bit = bits.trailingZeroBitCount
        bits &= bits - 1
        let state = word * 64 + bit
        guard state < tokens.count else { continue }
        switch tokens[state] {
        case .star, .globStar, .folders:
          sets.insert(state + 1, into: .at)
          if bit < 63 { bits |= 1 << (bit + 1) }
        case .literal, .one, .set:
          break
        }
      }
    }
  }

  /// Whether `token`, one that reads a scalar, takes `scalar`: a literal equal to it, `?`, a set
  /// that holds it (neither of the last two takes `/`).
  fileprivate static func takes(_ token: Token, _ scalar: Unicode.Scalar) -> Bool {
    switch token {
    case .literal(let literal): scalar == literal
    case .one: scalar != "/"
    case .set(let ranges, let negated):
      scalar != "/" && ranges.contains(where: { $0.contains(scalar) }) != negated
    case .star, .globStar, .folders: false
    }
  }

  /// The scalar whose UTF-8 starts at `index` of valid UTF-8, and its length in bytes.
  @inline(__always)
  fileprivate static func scalar(
    in text: UnsafeBufferPointer<UInt8>, at index: Int
  ) -> (Unicode.Scalar, Int) {
    let lead = text[index]
    if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
    let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    guard index + length <= text.count else { return ("\u{FFFD}", text.count - index) }
    var value = UInt32(lead) & (0x7F >> length)
    for offset in 1..<length { value = value << 6 | UInt32(text[index + offset] & 0x3F) }
    return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
  }
}

/// The automaton's four sets of states, as bits in one buffer: where each token stands now and
/// after the next scalar, and the same for the runs inside `**/`.
private struct StateSets {
  enum Kind: Int {
    case at = 0
    case inside = 1
    case nextAt = 2
    case nextInside = 3
  }

  let storage: UnsafeMutableBufferPointer<UInt64>
  let words: Int

  func insert(_ state: Int, into set: Kind) {
    storage[set.rawValue * words + state / 64] |= 1 << UInt64(state % 64)
  }

  func contains(_ state: Int, in set: Kind) -> Bool {
    storage[set.rawValue * words + state / 64] & (1 << UInt64(state % 64)) != 0
  }

  func clearNext() {
    for index in (2 * words)..<(4 * words) { storage[index] = 0 }
  }

  /// The next sets become the current ones.
  func advance() {
    for index in 0..<(2 * words) { storage[index] = storage[2 * words + index] }
  }
}

/// The automaton of a pattern of fewer than 64 tokens: each set of states is one word, moved
/// over a scalar by a few operations on all its states at once (bit `i` is state `i`; a token
/// that reads a scalar moves its state one bit up).
struct GlobAutomaton: Sendable {
  /// Per ASCII byte, the tokens that take it (a literal equal to it, `?`, a set that holds it).
  private let ascii: [UInt64]
  private let stars: UInt64
  private let globStars: UInt64
  private let folders: UInt64
  /// The tokens that may match nothing (`*`, `**`, `**/`).
  private let nullable: UInt64
  private let final: UInt64

  /// The automaton of `tokens`, or `nil` when they are too many for a word of states.
  init?(_ tokens: [Glob.Token]) {
    guard tokens.count < 64 else { return nil }
    var stars: UInt64 = 0
    var globStars: UInt64 = 0
    var folders: UInt64 = 0
    for (index, token) in tokens.enumerated() {
      switch token {
      case .star: stars |= 1 << index
      case .globStar: globStars |= 1 << index
      case .folders: folders |= 1 << index
      case .literal, .one, .set: break
      }
    }
    self.stars = stars
    self.globStars = globStars
    self.folders = folders
    nullable = stars | globStars | folders
    final = 1 << tokens.count
    ascii = (0..<128).map { byte in Self.takers(of: Unicode.Scalar(UInt8(byte)), in: tokens[...]) }
  }

  private static func takers(
    of scalar: Unicode.Scalar, in tokens: some Collection<Glob.Token>
  ) -> UInt64 {
    var mask: UInt64 = 0
    for (index, token) in tokens.enumerated() where Glob.takes(token, scalar) { mask |= 1 << index }
    return mask
  }

  /// Whether all of `text`, valid UTF-8, matches `tokens` (those the automaton was made of).
  func matches(_ text: UnsafeBufferPointer<UInt8>, tokens: UnsafeBufferPointer<Glob.Token>) -> Bool
  {
    ascii.withUnsafeBufferPointer { table in
      var at = close(1)
      var inside: UInt64 = 0
      var index = 0
      while index < text.count {
        let byte = text[index]
        let takers: UInt64
        if byte < 0x80 {
          takers = table[Int(byte)]
          index += 1
        } else {
          let (scalar, length) = Glob.scalar(in: text, at: index)
          takers = Self.takers(of: scalar, in: tokens)
          index += length
        }
        // `**/` runs on over anything, and past each `/` may end.
        let runs = (at | inside) & folders
        var next = (at & takers) << 1 | at & globStars
        if byte == UInt8(ascii: "/") { next |= runs << 1 } else { next |= at & stars }
        inside = runs
        at = close(next)
        guard at | inside != 0 else { return false }
      }
      return at & final != 0
    }
  }

  /// `states` with those reached from them without reading (past tokens that may match nothing).
  private func close(_ states: UInt64) -> UInt64 {
    var states = states
    while true {
      let added = (states & nullable) << 1 & ~states
      guard added != 0 else { return states }
      states |= added
    }
  }
}
