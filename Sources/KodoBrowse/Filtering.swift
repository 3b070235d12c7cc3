import StorageCore

/// The unfiltered rows of a folder as they were when a filter began to be typed, so that a
/// shorter or other filter (Backspace, Esc) is one pass over them rather than a sort of every
/// entry again. Good while the folder, what it has loaded and the sort are what they were.
struct FilterBase {
  var order: [Int]
  var folderRows: Int
  var location: Location
  var loaded: Int
  var pages: Int
  var sortKey: SortKey
  var reversed: Bool
  /// The rows of each filter typed since, while each one narrowed the one before: Backspace
  /// goes back to them without a pass over the entries. `order` `nil`: every row passed (the
  /// base's own), so that the widest ones cost nothing to keep.
  var levels: [(filter: String, order: [Int]?, folderRows: Int)] = []

  func holds(for state: State, _ folder: Folder) -> Bool {
    location == state.location && loaded == folder.count && pages == folder.pages
      && sortKey == state.sortKey && reversed == state.reversed
  }
}

extension State {
  /// Sets the filter and the rows to match, with the least work: a filter that grows (each key
  /// typed) narrows the rows shown, in place, in one pass and without a sort; any other filter
  /// filters the unfiltered rows kept when typing began; only when those are stale (pages came
  /// meanwhile) are all entries filtered and sorted again. The selection follows its row.
  mutating func setFilter(_ new: String) {
    let old = filter
    guard case .folder(_, let prefix) = location, let folder = folders[location] else {
      filter = new
      rebuildRows()
      return
    }
    if old.isEmpty {
      filterBase = FilterBase(
        order: rows.order, folderRows: rows.folderRows, location: location, loaded: folder.count,
        pages: folder.pages, sortKey: sortKey, reversed: reversed)
    }
    filter = new
    let line = cursor - top
    // The selected entry, found again by its index rather than by comparing keys.
    var selectedEntry: Int?
    if let selectedID, rows.indices.contains(cursor), ExactKey.same(rows.id(at: cursor), selectedID)
    {
      selectedEntry = rows.order[cursor]
    }
    let names = NameFilter(new, prefix: prefix)
    var found: Int?
    let holds = filterBase?.holds(for: self, folder) == true
    let bytes = folder.names.isFor(prefix: prefix) ? folder.names : nil
    if !new.isEmpty && (old.isEmpty || new.lowercased().contains(old.lowercased())) {
      var order: [Int] = []
      swap(&order, &rows.order)
      found = keep(names, bytes, in: &order, of: folder, finding: selectedEntry)
      if holds { rememberLevel(new) } else { filterBase?.levels = [] }
    } else if holds, var base = filterBase {
      if new.isEmpty {
        rows.order = base.order
        rows.folderRows = base.folderRows
        base.levels = []
      } else if let level = base.levels.lastIndex(where: { $0.filter == new }) {
        // Back to a filter typed before (Backspace): its rows as they were.
        rows.order = base.levels[level].order ?? base.order
        rows.folderRows = base.levels[level].folderRows
        base.levels.removeSubrange((level + 1)...)
      } else {
        var order = base.order
        found = keep(names, bytes, in: &order, of: folder, finding: selectedEntry)
        base.levels = []
      }
      filterBase = base
      if found == nil { found = selectedEntry.flatMap { rows.order.firstIndex(of: $0) } }
      if !new.isEmpty && base.levels.isEmpty { rememberLevel(new) }
    } else {
      rebuildRows()
      return
    }
    if let found {
      cursor = found
    } else {
      // The selected row is filtered out: the nearest row is selected.
      cursor = min(cursor, max(0, rows.count - 1))
      selectedID = rows.isEmpty ? nil : rows.id(at: cursor)
    }
    keepCursor(onLine: line)
  }

  /// Adds the rows shown for `filter` to the levels of the filter base (see `FilterBase`).
  private mutating func rememberLevel(_ filter: String) {
    guard var base = filterBase else { return }
    filterBase = nil
    let all = rows.order.count == base.order.count
    base.levels.append((filter, all ? nil : rows.order, rows.folderRows))
    filterBase = base
  }

  /// Keeps the entries of `order` whose names pass `names`, in their order, as the rows;
  /// returns the row `entry` is now on, if it is kept.
  private mutating func keep(
    _ names: NameFilter, _ bytes: FilterNames?, in order: inout [Int], of folder: Folder,
    finding entry: Int?
  ) -> Int? {
    var kept = 0
    var folderRows = 0
    var found: Int?
    let needle = bytes == nil ? nil : FilterNames.needle(names.needle)
    let arena = (needle == nil ? nil : bytes) ?? FilterNames()
    (needle ?? []).withUnsafeBufferPointer { needleBytes in
      arena.withBuffers { nameBytes, ends in
        folder.folders.withUnsafeBufferPointer { prefixes in
          folder.objects.withUnsafeBufferPointer { objects in
            let wanted = entry
            let fast = needle != nil && ends.count == objects.count
            order.withUnsafeMutableBufferPointer { order in
              for index in order.indices {
                let entry = order[index]
                let passes: Bool
                if entry < 0 {
                  passes = names.matches(prefixes[~entry])
                } else if fast,
                  let quick = arena.holds(entry, needleBytes, in: nameBytes, ends: ends)
                {
                  passes = quick
                } else {
                  passes = names.matches(objects[entry].key)
                }
                guard passes else { continue }
                if entry == wanted { found = kept }
                order[kept] = entry
                kept += 1
                if entry < 0 { folderRows += 1 }
              }
            }
          }
        }
      }
    }
    order.removeSubrange(kept...)
    rows.order = order
    rows.folderRows = folderRows
    return found
  }
}
