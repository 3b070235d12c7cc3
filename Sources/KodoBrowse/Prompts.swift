import StorageCore

/// An entry of a local directory, as Tab completion of a local path needs it.
package struct LocalEntry: Sendable, Equatable {
  /// The entry's name (no directory part).
  package var name: String
  /// Whether it is a directory (or a link to one): completed with a `/`.
  package var isDirectory: Bool

  /// An entry from its parts.
  package init(name: String, isDirectory: Bool) {
    self.name = name
    self.isDirectory = isDirectory
  }
}

extension Mode {
  /// The line editor of a prompt mode, if this is one.
  package var editor: LineEditor? {
    get {
      switch self {
      case .goTo(let editor), .saveAs(let editor), .rename(let editor, _), .upload(let editor):
        return editor
      default: return nil
      }
    }
    set {
      guard let newValue else { return }
      switch self {
      case .goTo: self = .goTo(newValue)
      case .saveAs: self = .saveAs(newValue)
      case .rename(_, let object): self = .rename(newValue, object)
      case .upload: self = .upload(newValue)
      default: break
      }
    }
  }
}

extension State {
  /// A key in a prompt: edits its line; `Enter` runs `done` with the text, `Esc` leaves, `Tab`
  /// completes local paths when `local`.
  mutating func prompt(_ key: Key, local: Bool, done: (inout State, String) -> [Effect])
    -> [Effect]
  {
    guard var editor = mode.editor else { return [] }
    let outcome = editor.apply(key)
    mode.editor = editor
    switch outcome {
    case .submit:
      mode = .normal
      completion = nil
      return done(&self, editor.text)
    case .cancel:
      mode = .normal
      completion = nil
    case .complete:
      return local ? completeLocalPath() : []
    case .edited, .ignored:
      break
    }
    return []
  }

  /// Tab in a prompt for a local path: `~` is expanded in place, then the directory the text
  /// before the cursor names is listed (by the runner) to complete its last segment.
  private mutating func completeLocalPath() -> [Effect] {
    guard var editor = mode.editor else { return [] }
    let typed = expandingHome(editor.beforeCursor, home: home)
    if typed != editor.beforeCursor {
      editor.replaceBeforeCursor(last: editor.cursor, with: typed)
      mode.editor = editor
    }
    let directory = String(KeySegments.folder(of: typed))
    let id = newID()
    completion = (id, typed)
    return [.listLocal(id: id, directory: directory.isEmpty ? "." : directory)]
  }

  /// A listing for Tab arrived: one match completes (a directory with its `/`); several extend
  /// the text to what they share and are named on the status line; none says so. Dropped when
  /// the prompt or its text changed meanwhile.
  mutating func completed(id: Int, _ result: Result<[LocalEntry], Failure>) {
    guard let pending = completion, pending.id == id else { return }
    completion = nil
    guard var editor = mode.editor, editor.beforeCursor.utf8.elementsEqual(pending.typed.utf8)
    else { return }
    let entries: [LocalEntry]
    switch result {
    case .failure(let failure):
      message = "cannot complete: " + failure.message
      return
    case .success(let listed): entries = listed
    }
    let directory = String(KeySegments.folder(of: pending.typed))
    let partial = KeySegments.lastSegment(of: pending.typed)
    let hidden = partial.utf8.first == UInt8(ascii: ".")
    let matches = entries.filter {
      $0.name.utf8.starts(with: partial.utf8) && (hidden || $0.name.utf8.first != UInt8(ascii: "."))
    }.sorted { KeyBytes.precede($0.name, $1.name) }
    guard let first = matches.first else {
      message = "no local path starts with " + pending.typed
      return
    }
    if matches.count == 1 {
      editor.replaceBeforeCursor(
        last: editor.cursor, with: directory + first.name + (first.isDirectory ? "/" : ""))
      message = nil
    } else {
      var shared = Array(first.name.unicodeScalars)
      for match in matches.dropFirst() {
        let scalars = Array(match.name.unicodeScalars)
        var count = 0
        while count < min(shared.count, scalars.count) && shared[count] == scalars[count] {
          count += 1
        }
        shared.removeSubrange(count...)
      }
      var common = ""
      common.unicodeScalars.append(contentsOf: shared)
      editor.replaceBeforeCursor(last: editor.cursor, with: directory + common)
      let names = matches.prefix(20).map { $0.name + ($0.isDirectory ? "/" : "") }
      message = "\(Format.count(matches.count)) matches: " + names.joined(separator: "  ")
    }
    mode.editor = editor
  }
}
