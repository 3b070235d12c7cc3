package import StorageCore

/// The size of the screen in cells.
package struct Size: Sendable, Equatable {
  /// Columns.
  package var width: Int
  /// Rows.
  package var height: Int

  /// A size from its parts.
  package init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }
}

/// Where the browser is: the bucket list, or one folder level of a bucket.
package enum Location: Sendable, Hashable {
  /// The account's buckets.
  case buckets
  /// The level under `prefix` ("" or ending in `/`) of `bucket`.
  case folder(bucket: String, prefix: String)

  // By bytes (see `ExactKey`): the folders `caf\u{E9}/` and `cafe\u{301}/` are two locations.
  package static func == (lhs: Location, rhs: Location) -> Bool {
    switch (lhs, rhs) {
    case (.buckets, .buckets): true
    case (.folder(let a, let p), .folder(let b, let q)): ExactKey.same(a, b) && ExactKey.same(p, q)
    default: false
    }
  }

  package func hash(into hasher: inout Hasher) {
    switch self {
    case .buckets: hasher.combine(0)
    case .folder(let bucket, let prefix):
      hasher.combine(ExactKey(bucket))
      hasher.combine(ExactKey(prefix))
    }
  }
}

/// One row of the list: a bucket, a folder (a common prefix) or an object.
package struct Row: Sendable, Equatable {
  /// What the row is.
  package enum Kind: Sendable, Equatable {
    case bucket(Bucket)
    case folder
    case object(ObjectEntry)
  }

  /// The identity the selection is anchored to: the bucket name, the folder's prefix or the key.
  package var id: String
  /// The name shown (relative to the folder), not yet escaped.
  package var name: String
  /// What the row is.
  package var kind: Kind

  /// The object, when the row is one.
  package var object: ObjectEntry? {
    if case .object(let entry) = kind { return entry }
    return nil
  }
}

/// How the loaded entries are sorted (folders always first): the CLI's `--sort` orders.
package typealias SortKey = ObjectOrder

/// One folder level as loaded so far: kept when the browser leaves it, resumed from `marker`.
package struct Folder: Sendable, Equatable {
  /// The folders' prefixes, each once, in the order they arrived.
  package var folders: [String] = []
  /// The objects in the order they arrived (key order), compactly.
  var objects: [StoredObject] = []
  /// The objects' names as the filter reads them, kept with `objects`.
  var names = FilterNames()
  var shapes = Shapes()
  var seenFolders: Set<ExactKey> = []
  /// Where the next page starts; `nil` with `complete`.
  package var marker: String?
  /// Whether the last page has arrived.
  package var complete = false
  /// The request loading the next page, if any.
  package var loading: Int?
  /// Why the last page failed, if it did.
  package var failure: String?
  /// Pages loaded.
  package var pages = 0
  /// The largest key or prefix a page named: an entry up to it that is not loaded will not
  /// come with a later page (pages are in key order).
  var lastKey: String?
  /// When it was last shown (a counter, for the cache's eviction).
  var lastUsed = 0

  /// An empty folder, for the objects under `prefix`.
  package init(prefix: String = "") {
    names = FilterNames(prefix: prefix)
  }

  /// Entries loaded.
  package var count: Int { folders.count + objects.count }

  /// Objects loaded.
  package var objectCount: Int { objects.count }

  /// How many distinct rests of objects (class, type, status …) the folder keeps: few, however
  /// many objects share them.
  package var shapeCount: Int { shapes.all.count }

  /// The object loaded `index`th.
  package func object(_ index: Int) -> ObjectEntry? {
    objects.indices.contains(index) ? entry(objects[index], shapes: shapes) : nil
  }

  /// Adds a page: what was new (the indices of the prefixes and objects it added), and whether
  /// it was the last (it names no marker). The pages come through the shared paging driver
  /// (`PageCursor`), which refuses a marker given twice, an endless run of empty pages and
  /// entries that do not fit the request or go backwards; so this has no end rule of its own.
  mutating func add(_ page: ListPage) -> (added: Added, last: Bool) {
    let firstPrefix = folders.count
    for prefix in page.commonPrefixes where seenFolders.insert(ExactKey(prefix)).inserted {
      folders.append(prefix)
    }
    let firstObject = objects.count
    for item in page.items {
      let stored = shapes.store(item)
      objects.append(stored)
      names.append(item.key)
    }
    for last in [page.commonPrefixes.last, page.items.last?.key].compactMap({ $0 })
    where lastKey.map({ KeyBytes.compare(last, $0) > 0 }) ?? true {
      lastKey = last
    }
    pages += 1
    failure = nil
    let last: Bool
    if let next = page.nextMarker, !next.isEmpty {
      marker = next
      last = false
    } else {
      marker = nil
      complete = true
      last = true
    }
    return (
      Added(prefixes: firstPrefix..<folders.count, objects: firstObject..<objects.count), last
    )
  }

  /// What a page added to a folder.
  struct Added {
    var prefixes: Range<Int> = 0..<0
    var objects: Range<Int> = 0..<0
  }
}

/// What the bottom line asks for.
package enum Mode: Sendable, Equatable {
  case normal
  /// `/`: typing a filter.
  case filter
  /// `o`: waiting for n, s, t or r.
  case sort
  /// `y`: waiting for k, p or u.
  case copy
  /// `:`: typing a path (`BUCKET/PREFIX`).
  case goTo(LineEditor)
  /// `S`: typing where to save (a local path; Tab completes it).
  case saveAs(LineEditor)
  /// `r`: typing the object's new name (relative to the folder shown).
  case rename(LineEditor, ObjectEntry)
  /// `d`, or a rename onto an existing key: `y` goes ahead, `n` or Esc does nothing.
  case confirm(Confirmation)
  /// `u`: typing a local path (a file or a folder) to upload into the folder shown.
  case upload(LineEditor)
  /// `t`: the transfer queue.
  case transfers
  /// `?`.
  case help
}

/// The whole state of the browser. Changed only by `update`.
package struct State: Sendable {
  package var size: Size
  package var location: Location
  package var mode: Mode = .normal
  /// Whether `--pick` chooses an object with Enter.
  package var pick: Bool
  /// Whether colours may be used (not with `NO_COLOR`).
  package var color: Bool

  package var buckets: [Bucket] = []
  package var bucketsLoading: Int?
  package var bucketsLoaded = false
  package var bucketsFailure: String?
  /// Loaded folders by location (a bounded cache).
  package var folders: [Location: Folder] = [:]
  /// The most entries the cache keeps across folders other than the current one.
  package var cacheLimit = 300_000

  /// The rows shown, filtered and sorted (recomputed when the filter or sort changes, merged
  /// with each page that arrives, not touched by a key that only moves).
  package internal(set) var rows = Rows()
  /// The selected row's index in `rows`, and the first row on screen.
  package var cursor = 0
  package var top = 0
  /// The selected row's id, kept across pages, filters and sorts.
  package var selectedID: String?

  package var filter = ""
  /// The unfiltered rows, kept while a filter is typed (see `setFilter`).
  var filterBase: FilterBase?
  package var sortKey: SortKey = .name
  package var reversed = false
  package var showDetail = true
  /// Below 80 columns the detail takes the whole screen.
  package var detailFullScreen = false
  /// Load every page (`A`); Esc stops.
  package var loadAll = false

  /// Details from stat, by key, and the current stat request.
  package var details: [ExactKey: ObjectDetails] = [:]
  package var statLoading: (id: Int, key: String)?
  /// A line for the status bar (copied, saved, errors).
  package var message: String?
  /// A download in progress: name, bytes, total.
  package var download: (name: String, bytes: Int64, total: Int64)?
  /// A folder (or the marked entries) downloading (`s`, as `get -r`).
  package var treeDownload: TreeDownload?

  /// The marked entries of the current folder, by key (or prefix): kept across filters, sorts
  /// and pages, dropped when the browser leaves the folder.
  package var marks: Set<ExactKey> = []
  /// The deletes and renames sent and not yet answered, by request id.
  var writes: [Int: Write] = [:]
  /// The uploads running, by request id: their bucket.
  var uploads: [Int: String] = [:]
  /// Every upload, download, delete and move started in this session, oldest first (`t`).
  package var transfers: [Transfer] = []
  /// The selected transfer in the queue.
  package var transferCursor = 0
  /// The preview shown over everything, if one is open.
  package var pager: Pager?
  /// Whether the browser runs inside tmux (`$TMUX`), whose default settings stop OSC 52.
  package var insideTmux = false
  /// The user's home directory (`$HOME`), for `~` in local paths.
  package var home: String?
  /// The Tab completion awaited: its request and the text it completes.
  var completion: (id: Int, typed: String)?

  /// A key to select once it is loaded (`BUCKET/KEY` at start-up, `:` to a key, back from a
  /// folder).
  package var wanted: String?

  var nextID = 1
  var clock = 0

  /// A browser starting at `location`, with `select` (a key) selected once it arrives.
  package init(
    location: Location, size: Size, pick: Bool = false, color: Bool = true, select: String? = nil
  ) {
    self.location = location
    self.size = size
    self.pick = pick
    self.color = color
    self.wanted = select
  }

  /// The selected row.
  package var selected: Row? { rows.indices.contains(cursor) ? rows[cursor] : nil }

  /// The current folder.
  package var folder: Folder? { folders[location] }

  /// Rows of the list area (below the title and the column header, above the status and
  /// hint lines).
  package var listHeight: Int { max(1, size.height - 4) }

  mutating func newID() -> Int {
    defer { nextID += 1 }
    return nextID
  }

  /// Rebuilds `rows` for the current location, filter and sort, keeping the selected row on the
  /// same screen line when it is still there.
  mutating func rebuildRows() {
    let line = cursor - top
    var next = Rows()
    let needle = filter.lowercased()
    switch location {
    case .buckets:
      next.source = .buckets(buckets)
      next.order = buckets.indices.filter {
        needle.isEmpty || buckets[$0].name.lowercased().contains(needle)
      }
    case .folder(_, let prefix):
      let folder = folders[location] ?? Folder()
      next.source = .folder(
        prefixes: folder.folders, objects: folder.objects, shapes: folder.shapes,
        prefix: prefix)
      let (folderOrder, objectOrder) = filteredAndSorted(
        folders: folder.folders.indices.map { ~$0 }, objects: Array(folder.objects.indices),
        of: folder, prefix: prefix, ordering: order(folder))
      next.folderRows = folderOrder.count
      next.order = folderOrder + objectOrder
    }
    rows = next
    if let wanted, let index = rows.position(of: wanted) {
      selectWanted(at: index)
      return
    }
    followSelection(line: line)
  }

  /// Selects the `wanted` key, found at row `index`, in the middle of the screen.
  mutating func selectWanted(at index: Int) {
    cursor = index
    selectedID = wanted
    wanted = nil
    top = max(0, cursor - listHeight / 2)
    clampTop()
  }

  /// Puts the cursor on the selected row (or, when it is gone, the nearest row, now selected),
  /// and that row on screen line `line`.
  mutating func followSelection(line: Int) {
    if let selectedID, let index = rows.position(of: selectedID) {
      cursor = index
    } else {
      cursor = min(cursor, max(0, rows.count - 1))
      selectedID = rows.isEmpty ? nil : rows.id(at: cursor)
    }
    keepCursor(onLine: line)
  }

  /// Scrolls so that the cursor is on screen line `line`.
  mutating func keepCursor(onLine line: Int) {
    top = cursor - min(max(0, line), listHeight - 1)
    clampTop()
  }

  /// Of `folders` (as `~index`) and `objects` (indices) of `folder`, those the filter passes,
  /// each sorted by `ordering`.
  func filteredAndSorted(
    folders: [Int], objects: [Int], of folder: Folder, prefix: String, ordering: EntryOrder
  ) -> (folders: [Int], objects: [Int]) {
    var folders = folders
    var objects = objects
    let names = NameFilter(filter, prefix: prefix)
    if !names.isEmpty {
      folders = folders.filter { names.matches(folder.folders[~$0]) }
      objects = objects.filter { names.matches(folder.objects[$0].key) }
    }
    folders.sort(by: ordering.precedes)
    objects.sort(by: ordering.precedes)
    return (folders, objects)
  }

  /// The order of the folder's entries under the current sort.
  func order(_ folder: Folder) -> EntryOrder {
    EntryOrder(prefixes: folder.folders, objects: folder.objects, key: sortKey, reversed: reversed)
  }

  /// Keeps the cursor on screen and the screen within the rows.
  mutating func clampTop() {
    let height = listHeight
    if cursor < top { top = cursor }
    if cursor >= top + height { top = cursor - height + 1 }
    top = max(0, min(top, max(0, rows.count - height)))
  }
}
