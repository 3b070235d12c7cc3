import StorageCore

extension State {
  /// The rows once a page of the current folder added `added`: its entries that pass the filter,
  /// sorted, are merged into `shown` (the rows before, their folder arrays let go of), O(n + k)
  /// at worst and an append for pages in key order under the name sort. The selected row stays
  /// selected, on its screen line; a `wanted` key among the new entries is selected.
  mutating func merge(_ added: Folder.Added, into shown: inout Rows) {
    guard case .folder(_, let prefix) = location, let folder = folders[location] else {
      rebuildRows()
      return
    }
    shown.source = .folder(
      prefixes: folder.folders, objects: folder.objects, shapes: folder.shapes, prefix: prefix)
    let line = cursor - top
    // Entries keep their indices as pages arrive: the selection is anchored to its entry.
    var selectedEntry: Int?
    if let selectedID, shown.indices.contains(cursor),
      ExactKey.same(shown.id(at: cursor), selectedID)
    {
      selectedEntry = shown.order[cursor]
    }
    let ordering = order(folder)
    let (newFolders, newObjects) = filteredAndSorted(
      folders: added.prefixes.map { ~$0 }, objects: Array(added.objects), of: folder,
      prefix: prefix, ordering: ordering)
    ordering.merge(newFolders, into: &shown.order, range: 0..<shown.folderRows)
    shown.folderRows += newFolders.count
    ordering.merge(newObjects, into: &shown.order, range: shown.folderRows..<shown.order.count)
    rows = shown

    if let wanted {
      let entry =
        newFolders.first { ExactKey.same(folder.folders[~$0], wanted) }
        ?? newObjects.first { ExactKey.same(folder.objects[$0].key, wanted) }
      if let entry, let index = rows.order.firstIndex(of: entry) {
        selectWanted(at: index)
        return
      }
    }
    guard let selectedEntry else { return followSelection(line: line) }
    cursor +=
      ordering.countBefore(selectedEntry, in: newFolders)
      + ordering.countBefore(selectedEntry, in: newObjects)
    keepCursor(onLine: line)
  }
}
