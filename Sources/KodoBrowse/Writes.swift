package import StorageCore

/// A question asked before a write (`y` goes ahead; `n` or Esc does nothing).
package enum Confirmation: Sendable, Equatable {
  /// `d`: delete entries.
  case delete(Deletion)
  /// A rename onto a key that exists: replace it (what `--force` does for `mv`).
  case replace(Rename)
  /// An upload's files refused as existing: upload them again, replacing (`put --force`).
  case replaceUploads(Replacement)
  /// `q` while transfers run: quit, cancelling them.
  case quit(running: Int)

  /// The question, already escaped.
  package var question: String {
    switch self {
    case .delete(let deletion): return deletion.question
    case .replace(let rename):
      return
        "\(Format.name(rename.toName)) exists: replace it with \(Format.name(rename.fromName))?"
        + "  y replaces · n keeps both"
    case .replaceUploads(let replacing):
      return
        "replace \(Format.count(replacing.files.count, "existing object", "existing objects"))? [y/N]"
    case .quit(let running):
      return
        "\(Format.count(running, "transfer", "transfers")) running: quit and cancel them? [y/N]"
    }
  }
}

/// Entries to delete: objects by key, and folders (prefixes ending in `/`) with everything
/// under them, as `rm -r` does.
package struct Deletion: Sendable, Equatable {
  package var bucket: String
  /// The folder shown (names are relative to it).
  package var prefix: String
  package var objects: [String]
  package var folders: [String]
  /// The objects under the folders, once counted (while the question is asked).
  package var counted: Int?
  /// The count's request, while it runs.
  var counting: Int?

  /// What the prompt asks, naming what will go (escaped): the key, or how many objects and
  /// folders, and once counted how many objects in all.
  package var question: String {
    var under = ""
    if !folders.isEmpty {
      under = " and everything under " + (folders.count == 1 ? "it" : "them")
      if let counted {
        under += " (" + Format.count(counted + objects.count, "object", "objects") + " in all)"
      } else if counting != nil {
        under += " (counting …)"
      }
    }
    var text: String
    if objects.count + folders.count == 1, let only = (objects + folders).first {
      let name = Format.name(Rows.name(only, in: prefix))
      text = folders.isEmpty ? "delete \(name)" : "delete the folder \(name)"
    } else {
      var parts: [String] = []
      if !objects.isEmpty { parts.append(Format.count(objects.count, "object", "objects")) }
      if !folders.isEmpty { parts.append(Format.count(folders.count, "folder", "folders")) }
      text = "delete " + parts.joined(separator: " and ")
    }
    return text + under + "?  y deletes · n keeps"
  }
}

/// An object to move within its bucket.
package struct Rename: Sendable, Equatable {
  package var bucket: String
  /// The folder shown when the rename was asked for (names are relative to it).
  package var prefix: String
  package var from: ObjectEntry
  package var to: String

  var fromName: String { Rows.name(from.key, in: prefix) }
  var toName: String { Rows.name(to, in: prefix) }
}

/// How a delete ended: the entries now gone (a folder once nothing under it is left), how many
/// objects were deleted in all, and the failures.
package struct DeleteReport: Sendable, Equatable {
  /// The named objects gone (deleted, or already missing).
  package var objects: [String] = []
  /// The folders gone: every object under them deleted.
  package var folders: [String] = []
  /// Objects deleted, those under the folders included.
  package var deleted = 0
  /// Objects not deleted.
  package var failed = 0
  /// The first failure's message, whole.
  package var firstFailure: String?

  package init() {}
}

/// How a move ended.
package enum MoveResult: Sendable, Equatable {
  case moved
  /// The destination exists and was not replaced.
  case exists
  case failed(Failure)
}

/// A write sent and not yet answered.
enum Write: Sendable, Equatable {
  case delete(Deletion)
  case move(Rename)
}

extension State {
  /// `d`: asks whether to delete the marked entries, or the selected one; the objects under
  /// folders are counted meanwhile.
  mutating func askDelete() -> [Effect] {
    guard case .folder(let bucket, let prefix) = location, let folder else { return [] }
    let chosen =
      marks.isEmpty
      ? (selected.map { [$0.id] } ?? [])
      : marks.map(\.text).sorted { KeyBytes.precede($0, $1) }
    guard !chosen.isEmpty else {
      message = "nothing to delete"
      return []
    }
    let isFolder = { (id: String) in folder.seenFolders.contains(ExactKey(id)) }
    var deletion = Deletion(
      bucket: bucket, prefix: prefix, objects: chosen.filter { !isFolder($0) },
      folders: chosen.filter(isFolder))
    var effects: [Effect] = []
    if !deletion.folders.isEmpty {
      let id = newID()
      deletion.counting = id
      effects.append(.countObjects(id: id, bucket: bucket, folders: deletion.folders))
    }
    message = nil
    mode = .confirm(.delete(deletion))
    return effects
  }

  /// The objects under the folders of the delete asked about, counted.
  mutating func objectsCounted(id: Int, _ result: Result<Int, Failure>) {
    guard case .confirm(.delete(var deletion)) = mode, deletion.counting == id else { return }
    deletion.counting = nil
    if case .success(let count) = result { deletion.counted = count }
    mode = .confirm(.delete(deletion))
  }

  /// `r`: the line editor holding the selected entry's name, the cursor at its end. A folder
  /// is held as an entry whose key is its prefix (ending in `/`), and moves as `mv -r` does.
  mutating func askRename() {
    guard case .folder = location, let row = selected else { return }
    message = nil
    guard let object = row.object else {
      let name = KeySegments.endsWithSlash(row.name) ? String(row.name.dropLast()) : row.name
      let folder = ObjectEntry(
        key: row.id, size: 0, putTime: Timestamp(unixSeconds: 0),
        storageClass: StorageClass(name: "", serviceName: ""))
      mode = .rename(LineEditor(name), folder)
      return
    }
    mode = .rename(LineEditor(row.name), object)
  }

  /// Enter in the rename prompt: moves the object to `text` relative to the folder shown (a
  /// name ending in `/` is a folder it goes into, keeping its name).
  mutating func rename(_ object: ObjectEntry, to text: String) -> [Effect] {
    guard case .folder(let bucket, let prefix) = location else { return [] }
    guard !text.isEmpty else {
      message = "not renamed: no name given"
      return []
    }
    var name = text
    if KeySegments.endsWithSlash(object.key) {
      // A folder: the text is its new path below the folder shown.
      if !KeySegments.endsWithSlash(name) { name += "/" }
    } else if KeySegments.endsWithSlash(name) {
      name += KeySegments.lastSegment(of: object.key)
    }
    let destination = prefix + name
    if ExactKey.same(destination, object.key) {
      message = "not renamed: the name is the same"
      return []
    }
    return send(.move(Rename(bucket: bucket, prefix: prefix, from: object, to: destination)))
  }

  /// A key while a question is asked.
  mutating func answer(_ key: Key, to confirmation: Confirmation) -> [Effect] {
    switch key {
    case .character("y"), .character("Y"):
      mode = .normal
      switch confirmation {
      case .delete(let deletion): return stopCounting(deletion) + send(.delete(deletion))
      case .replace(let rename): return send(.move(rename), replace: true)
      case .replaceUploads(let replacing): return replaceUploads(replacing)
      case .quit: return [.quit(0)]
      }
    case .character("n"), .character("N"), .escape, .character("q"):
      mode = .normal
      switch confirmation {
      case .delete(let deletion):
        message = "nothing deleted"
        return stopCounting(deletion)
      case .replace(let rename):
        message =
          "not renamed: \(Format.name(rename.fromName)) and \(Format.name(rename.toName)) kept"
      case .replaceUploads(let replacing):
        message =
          "not replaced: \(Format.count(replacing.files.count, "existing object", "existing objects")) kept"
      case .quit: break
      }
    default: break
    }
    return []
  }

  private func stopCounting(_ deletion: Deletion) -> [Effect] {
    deletion.counting.map { [.cancel(id: $0)] } ?? []
  }

  private mutating func send(_ write: Write, replace: Bool = false) -> [Effect] {
    let id = newID()
    writes[id] = write
    message = nil
    switch write {
    case .delete(let deletion):
      let count = deletion.objects.count + deletion.folders.count
      let only = (deletion.objects + deletion.folders).first.map {
        Rows.name($0, in: deletion.prefix)
      }
      began(id, .delete, count == 1 ? only ?? "" : Format.count(count, "entry", "entries"))
      return [
        .delete(
          id: id, bucket: deletion.bucket, objects: deletion.objects, folders: deletion.folders)
      ]
    case .move(let rename):
      began(id, .move, rename.fromName + " → " + rename.toName)
      return [
        .move(id: id, bucket: rename.bucket, from: rename.from.key, to: rename.to, replace: replace)
      ]
    }
  }

  /// A delete's end: what went leaves the view (and the cache); a failure is said whole.
  mutating func deleteFinished(id: Int, _ report: DeleteReport) -> [Effect] {
    guard case .delete(let deletion) = writes.removeValue(forKey: id) else { return [] }
    defer {
      let text = message ?? ""
      transfer(id) { $0.status = report.failed > 0 ? .failed(text) : .done(text) }
    }
    let effects = apply(
      .deleted(objects: report.objects, folders: report.folders), bucket: deletion.bucket)
    var text = "deleted " + Format.count(report.deleted, "object", "objects")
    if report.failed > 0 { text += "; \(Format.count(report.failed)) not deleted" }
    // A listing of a folder that stopped fails no object, yet the folder stays: said too.
    if let first = report.firstFailure { text += (report.failed > 0 ? ": " : "; ") + first }
    message = text
    return effects
  }

  /// A move's end: the row is renamed (or moved into a subfolder) in the view; a destination
  /// that exists asks whether to replace it.
  mutating func moveFinished(id: Int, _ result: MoveResult) -> [Effect] {
    guard case .move(let rename) = writes.removeValue(forKey: id) else { return [] }
    transfer(id) {
      switch result {
      case .moved: $0.status = .done("moved")
      case .exists: $0.status = .failed(Format.name(rename.toName) + " exists")
      case .failed(let failure): $0.status = .failed(failure.message)
      }
    }
    var effects: [Effect] = []
    switch result {
    case .moved:
      var entry = rename.from
      entry.key = rename.to
      if KeySegments.endsWithSlash(rename.from.key) {
        // A folder: what was cached under either name goes, and the new name is a folder row
        // (an entry whose key is a prefix adds its folder).
        effects =
          apply(
            .deleted(objects: [], folders: [rename.from.key, rename.to]), bucket: rename.bucket)
          + apply(.added([entry]), bucket: rename.bucket)
      } else {
        effects = apply(.moved(from: rename.from.key, to: entry), bucket: rename.bucket)
      }
      // The renamed row stays selected when it is still in the folder shown.
      if location == .folder(bucket: rename.bucket, prefix: rename.prefix),
        let index = rows.position(of: rename.to)
      {
        let line = cursor - top
        cursor = index
        selectedID = rename.to
        keepCursor(onLine: line)
      }
      message = "renamed \(Format.name(rename.fromName)) to \(Format.name(rename.toName))"
    case .exists:
      if mode == .normal && pager == nil {
        mode = .confirm(.replace(rename))
      } else {
        message = "not renamed: \(Format.name(rename.toName)) exists"
      }
    case .failed(let failure):
      message = "rename of \(Format.name(rename.fromName)) failed: " + failure.message
    }
    return effects
  }

  /// The status line's part for the writes running.
  var writeStatus: String? {
    guard let first = writes.min(by: { $0.key < $1.key })?.value else { return nil }
    let more = writes.count > 1 ? " (+\(writes.count - 1))" : ""
    switch first {
    case .delete(let deletion):
      let count = deletion.objects.count + deletion.folders.count
      return "deleting " + Format.count(count, "entry", "entries") + more
    case .move(let rename):
      return "renaming \(Format.name(rename.fromName))" + more
    }
  }
}
