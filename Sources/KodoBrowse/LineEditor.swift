import StorageCore

/// A one-line text editor for the browser's prompts (go to, save as, and later upload and
/// rename): the readline keys a terminal user expects, on a text held as characters with a
/// cursor between them. Pure: Tab only says that completion was asked for (`Outcome.complete`);
/// what completes is the caller's.
///
/// Keys: `←`/`→` move, `Home`/`Ctrl-A` and `End`/`Ctrl-E` go to either end, `Backspace` and
/// `Delete` remove a character, `Ctrl-U` what is before the cursor, `Ctrl-K` what is after it,
/// `Ctrl-W` the path segment or word before it. A text put in "selected" (`selectAll`) is
/// replaced by the first character typed, as in a GUI's address bar; a move keeps it.
package struct LineEditor: Sendable, Equatable {
  /// The text, one element per character typed or per cluster of the initial text.
  package private(set) var characters: [Character]
  /// Where the cursor is: before `characters[cursor]`, or at the end.
  package private(set) var cursor: Int
  /// Whether the whole text is selected (typing replaces it, deleting clears it).
  package private(set) var selected: Bool

  /// What a key did.
  package enum Outcome: Sendable, Equatable {
    /// The text or the cursor changed (or could not, at an end).
    case edited
    /// `Enter`.
    case submit
    /// `Esc`.
    case cancel
    /// `Tab`: complete the text before the cursor.
    case complete
    /// A key the editor has no use for.
    case ignored
  }

  /// An editor holding `text`, the cursor at its end; with `selectAll` the text is selected.
  package init(_ text: String = "", selectAll: Bool = false) {
    characters = Array(text)
    cursor = characters.count
    selected = selectAll && !characters.isEmpty
  }

  /// The text.
  package var text: String { String(characters) }

  /// The text before the cursor.
  package var beforeCursor: String { String(characters[..<cursor]) }

  /// Applies a key.
  package mutating func apply(_ key: Key) -> Outcome {
    switch key {
    case .enter: return .submit
    case .escape: return .cancel
    case .tab:
      selected = false
      return .complete
    case .character(let character):
      if selected { clear() }
      characters.insert(character, at: cursor)
      cursor += 1
    case .left:
      if selected {
        selected = false
      } else {
        cursor = max(0, cursor - 1)
      }
    case .right:
      if selected {
        selected = false
      } else {
        cursor = min(characters.count, cursor + 1)
      }
    case .home, .control("a"):
      selected = false
      cursor = 0
    case .end, .control("e"):
      selected = false
      cursor = characters.count
    case .backspace:
      if selected {
        clear()
      } else if cursor > 0 {
        characters.remove(at: cursor - 1)
        cursor -= 1
      }
    case .delete, .control("d"):
      if selected {
        clear()
      } else if cursor < characters.count {
        characters.remove(at: cursor)
      }
    case .control("u"):
      if selected { clear() } else { remove(0..<cursor) }
    case .control("k"):
      if selected { clear() } else { remove(cursor..<characters.count) }
    case .control("w"):
      if selected { clear() } else { remove(wordStart()..<cursor) }
    default:
      return .ignored
    }
    return .edited
  }

  /// Replaces the last `count` characters before the cursor with `text` (a completion), the
  /// cursor after it.
  package mutating func replaceBeforeCursor(last count: Int, with text: String) {
    let start = max(0, cursor - count)
    let new = Array(text)
    characters.replaceSubrange(start..<cursor, with: new)
    cursor = start + new.count
    selected = false
  }

  private mutating func clear() {
    characters = []
    cursor = 0
    selected = false
  }

  private mutating func remove(_ range: Range<Int>) {
    characters.removeSubrange(range)
    cursor = range.lowerBound
  }

  /// Where `Ctrl-W` deletes from: back over separators (`/`, spaces) just before the cursor,
  /// then back to just after the previous separator — one path segment (`photos/2024/` →
  /// `photos/`) or one word.
  private func wordStart() -> Int {
    var start = cursor
    while start > 0 && Self.isSeparator(characters[start - 1]) { start -= 1 }
    while start > 0 && !Self.isSeparator(characters[start - 1]) { start -= 1 }
    return start
  }

  /// A `/`, space or tab (by its first byte: `/` then a mark is still a folder's end).
  private static func isSeparator(_ character: Character) -> Bool {
    guard let byte = character.utf8.first else { return false }
    return byte == UInt8(ascii: "/") || byte == UInt8(ascii: " ") || byte == 0x09
  }
}

/// `~` and `~/…` at the start of a local path, as a shell expands them, with `home` ($HOME);
/// anything else (and everything when there is no home) unchanged. Cut on bytes: `~/\u{301}`
/// is `~` then a folder named by the mark.
package func expandingHome(_ path: String, home: String?) -> String {
  guard let home, !home.isEmpty, path.utf8.first == UInt8(ascii: "~") else { return path }
  let rest = path.utf8.dropFirst()
  if rest.isEmpty { return home }
  guard KeySegments.startsWithSlash(Substring(rest)) else { return path }
  return String(KeySegments.droppingTrailingSlashes(home)) + String(Substring(rest))
}
