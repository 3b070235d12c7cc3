import StorageCore

/// A write the service confirmed, applied to every folder the browser keeps, so that the view
/// and the cache say what the service now holds without a reload.
enum Change: Sendable, Equatable {
  /// Objects (by key) and folders (by prefix, ending in `/`: everything under it) deleted.
  case deleted(objects: [String], folders: [String])
  /// An object moved to `to.key` (replacing what was there).
  case moved(from: String, to: ObjectEntry)
  /// Objects uploaded (each replacing what was at its key).
  case added([ObjectEntry])
}

/// Where a folder's entries went when some were removed: the new index of each old one, or -1.
struct Renumbering {
  var prefixes: [Int]
  var objects: [Int]
}

extension Folder {
  /// Whether `key` lies within what is loaded, so that no later page will bring it.
  func covers(_ key: String) -> Bool {
    complete || lastKey.map { KeyBytes.compare(key, $0) <= 0 } ?? false
  }

  /// Removes the prefixes and objects `gone` names; `nil` when none was.
  mutating func remove(where gone: (String) -> Bool) -> Renumbering? {
    var prefixes = [Int](repeating: -1, count: folders.count)
    var keptFolders: [String] = []
    for (index, prefix) in folders.enumerated() {
      if gone(prefix) {
        seenFolders.remove(ExactKey(prefix))
      } else {
        prefixes[index] = keptFolders.count
        keptFolders.append(prefix)
      }
    }
    var objectMap = [Int](repeating: -1, count: objects.count)
    var kept = 0
    for index in objects.indices where !gone(objects[index].key) {
      objectMap[index] = kept
      kept += 1
    }
    guard keptFolders.count < folders.count || kept < objects.count else { return nil }
    folders = keptFolders
    if kept < objects.count {
      var keptObjects: [StoredObject] = []
      keptObjects.reserveCapacity(kept)
      for index in objects.indices where objectMap[index] >= 0 {
        keptObjects.append(objects[index])
      }
      objects = keptObjects
      names.keep(objectMap)
    }
    return Renumbering(prefixes: prefixes, objects: objectMap)
  }

  /// Adds a folder's prefix when it is within what is loaded and not there yet.
  mutating func insert(prefix: String) -> Added {
    guard covers(prefix), seenFolders.insert(ExactKey(prefix)).inserted else { return Added() }
    folders.append(prefix)
    return Added(prefixes: (folders.count - 1)..<folders.count)
  }

  /// Adds an object when it is within what is loaded.
  mutating func insert(_ entry: ObjectEntry) -> Added {
    guard covers(entry.key) else { return Added() }
    objects.append(shapes.store(entry))
    names.append(entry.key)
    return Added(objects: (objects.count - 1)..<objects.count)
  }
}

extension State {
  /// Applies a confirmed write to every kept folder of `bucket`; the current one's rows, marks
  /// and cursor follow (the selected row stays selected on its screen line; when it went, the
  /// next one is selected).
  mutating func apply(_ change: Change, bucket: String) -> [Effect] {
    let places = folders.keys.filter {
      if case .folder(let name, _) = $0 { return ExactKey.same(name, bucket) }
      return false
    }
    for place in places {
      guard case .folder(_, let prefix) = place else { continue }
      let (gone, added) = Self.effect(of: change, on: prefix)
      let current = place == location
      if !current {
        guard var folder = folders[place] else { continue }
        if gone(prefix) {
          // The folder itself was deleted: forget it (it is loaded afresh if entered).
          folders[place] = nil
          continue
        }
        _ = folder.remove(where: gone)
        for entry in added { _ = insert(entry, into: &folder) }
        folders[place] = folder
        continue
      }
      changeCurrent(gone: gone, added: added)
    }
    if case .folder(let name, _) = location, ExactKey.same(name, bucket) {
      let (gone, _) = Self.effect(of: change, on: "")
      details = details.filter { !gone($0.key.text) }
      // A stat of a key that went would only say that it is gone.
      if let pending = statLoading, gone(pending.key) {
        statLoading = nil
        return [.cancel(id: pending.id)]
      }
    }
    return []
  }

  /// The entries of the folder `prefix` the change removes, and what it adds there.
  private static func effect(of change: Change, on prefix: String) -> (
    gone: (String) -> Bool, added: [Addition]
  ) {
    switch change {
    case .deleted(let objects, let folders):
      let keys = Set(objects.map(ExactKey.init))
      return (
        { key in
          keys.contains(ExactKey(key)) || folders.contains { key.utf8.starts(with: $0.utf8) }
        }, []
      )
    case .moved(let from, let to):
      let gone: (String) -> Bool = { ExactKey.same($0, from) || ExactKey.same($0, to.key) }
      return (gone, addition(of: to, in: prefix).map { [$0] } ?? [])
    case .added(let entries):
      let keys = Set(entries.map { ExactKey($0.key) })
      return ({ keys.contains(ExactKey($0)) }, entries.compactMap { addition(of: $0, in: prefix) })
    }
  }

  /// What an object at `entry.key` adds to the folder `prefix`: itself, the subfolder it lies
  /// in, or nothing (it is elsewhere).
  private static func addition(of entry: ObjectEntry, in prefix: String) -> Addition? {
    guard entry.key.utf8.starts(with: prefix.utf8), entry.key.utf8.count > prefix.utf8.count
    else { return nil }
    let rest = Rows.name(entry.key, in: prefix)
    guard let slash = KeySegments.firstSlash(in: rest) else { return .object(entry) }
    return .prefix(prefix + String(rest[...slash]))
  }

  /// What a change adds to a folder.
  private enum Addition {
    case prefix(String)
    case object(ObjectEntry)
  }

  private func insert(_ addition: Addition, into folder: inout Folder) -> Folder.Added {
    switch addition {
    case .prefix(let prefix): return folder.insert(prefix: prefix)
    case .object(let entry): return folder.insert(entry)
    }
  }

  /// Removes and adds entries of the current folder, its rows, marks and selection following.
  private mutating func changeCurrent(gone: (String) -> Bool, added: [Addition]) {
    guard case .folder(_, let prefix) = location, var folder = folders[location] else { return }
    // The rows let go of the folder's arrays while it changes, so that changing does not copy
    // them.
    var shown = Rows()
    swap(&shown, &rows)
    shown.source = .none
    let line = cursor - top
    let renumbering = folder.remove(where: gone)
    var all = Folder.Added(
      prefixes: folder.folders.count..<folder.folders.count,
      objects: folder.objects.count..<folder.objects.count)
    for addition in added {
      let one = insert(addition, into: &folder)
      if !one.prefixes.isEmpty { all.prefixes = all.prefixes.lowerBound..<one.prefixes.upperBound }
      if !one.objects.isEmpty { all.objects = all.objects.lowerBound..<one.objects.upperBound }
    }
    folders[location] = folder
    filterBase = nil
    marks = marks.filter { !gone($0.text) }
    if let renumbering {
      var order: [Int] = []
      order.reserveCapacity(shown.order.count)
      var next: Int?
      for (position, entry) in shown.order.enumerated() {
        let moved = entry < 0 ? renumbering.prefixes[~entry] : renumbering.objects[entry]
        guard moved >= 0 else { continue }
        if next == nil && position >= cursor { next = order.count }
        order.append(entry < 0 ? ~moved : moved)
      }
      shown.folderRows = order.prefix { $0 < 0 }.count
      shown.order = order
      shown.source = .folder(
        prefixes: folder.folders, objects: folder.objects, shapes: folder.shapes, prefix: prefix)
      cursor = next ?? max(0, order.count - 1)
      selectedID = order.isEmpty ? nil : shown.id(at: cursor)
      top = cursor - line
    }
    merge(all, into: &shown)
  }
}
