/// The one place where keys (and `BUCKET/PREFIX` arguments) are cut at `/`.
///
/// An object key is a sequence of bytes, and a `/` byte is a separator wherever it is. Swift's
/// `String` compares `Character`s (grapheme clusters), and a `/` followed by a combining mark, or
/// preceded by a prepended mark, is one `Character` that is not `"/"`: `split(separator: "/")`,
/// `firstIndex(of: "/")` or `hasSuffix("/")` would not see that separator, while the file system and
/// the services do. For `get -r` that difference is a path outside the target directory (the key
/// `../\u{301}x` is one segment to `split` but `..` to `open(2)`). So every cut at `/` goes through
/// here, on the UTF-8 view; `make lint` refuses the grapheme-level forms anywhere else in Sources.
///
/// A `/` is always a scalar boundary, so the indices found here are valid `String` indices; ranges
/// end with `..<` an index on the UTF-8 view, never `...`, which would step a whole `Character`.
public enum KeySegments {
  static let slash = UInt8(ascii: "/")

  /// The index of the first `/`, or `nil`.
  public static func firstSlash<S: StringProtocol>(in text: S) -> S.Index? {
    text.utf8.firstIndex(of: slash)
  }

  /// The index of the last `/`, or `nil`.
  public static func lastSlash<S: StringProtocol>(in text: S) -> S.Index?
  where S.UTF8View: BidirectionalCollection {
    text.utf8.lastIndex(of: slash)
  }

  /// Whether `text` has a `/` byte anywhere.
  public static func containsSlash<S: StringProtocol>(_ text: S) -> Bool {
    text.utf8.contains(slash)
  }

  /// Whether the last byte of `text` is `/` (a folder's prefix, or a folder placeholder object).
  public static func endsWithSlash<S: StringProtocol>(_ text: S) -> Bool
  where S.UTF8View: BidirectionalCollection {
    text.utf8.last == slash
  }

  /// Whether the first byte of `text` is `/`.
  public static func startsWithSlash<S: StringProtocol>(_ text: S) -> Bool {
    text.utf8.first == slash
  }

  /// `text` without its leading `/` bytes.
  public static func droppingLeadingSlashes<S: StringProtocol>(_ text: S) -> S.SubSequence {
    let start = text.utf8.firstIndex { $0 != slash } ?? text.endIndex
    return text[start...]
  }

  /// `text` without its trailing `/` bytes.
  public static func droppingTrailingSlashes<S: StringProtocol>(_ text: S) -> S.SubSequence
  where S.UTF8View: BidirectionalCollection {
    var end = text.utf8.endIndex
    while end > text.utf8.startIndex, text.utf8[text.utf8.index(before: end)] == slash {
      end = text.utf8.index(before: end)
    }
    return text[..<end]
  }

  /// The parts between `/` bytes, empty ones included: `a//b/` is `a`, ``, `b`, ``.
  public static func segments<S: StringProtocol>(of text: S) -> [S.SubSequence] {
    var result: [S.SubSequence] = []
    var start = text.startIndex
    var index = text.startIndex
    let utf8 = text.utf8
    while index < utf8.endIndex {
      if utf8[index] == slash {
        result.append(text[start..<index])
        start = utf8.index(after: index)
      }
      index = utf8.index(after: index)
    }
    result.append(text[start...])
    return result
  }

  /// What follows the last `/` (the whole text when it has none; empty after a trailing `/`).
  public static func lastSegment<S: StringProtocol>(of text: S) -> S.SubSequence
  where S.UTF8View: BidirectionalCollection {
    guard let slash = lastSlash(in: text) else { return text[...] }
    return text[text.utf8.index(after: slash)...]
  }

  /// Everything up to and including the last `/` (empty when there is none): the folder a key is in.
  public static func folder<S: StringProtocol>(of text: S) -> S.SubSequence
  where S.UTF8View: BidirectionalCollection {
    guard let slash = lastSlash(in: text) else { return text[text.startIndex..<text.startIndex] }
    return text[..<text.utf8.index(after: slash)]
  }

  /// The text before the first `/` and the text after it, or `nil` when there is no `/`.
  public static func splitAtFirstSlash<S: StringProtocol>(
    _ text: S
  ) -> (head: S.SubSequence, tail: S.SubSequence)? {
    guard let slash = firstSlash(in: text) else { return nil }
    return (text[..<slash], text[text.utf8.index(after: slash)...])
  }
}
