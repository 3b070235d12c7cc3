import StorageCore

extension State {
  /// What Esc during `A` says, until the folder is complete.
  static let stoppedLoading = "stopped loading all pages"

  /// The one place the state changes: applies `message` and returns what to do.
  package mutating func update(_ message: Message) -> [Effect] {
    var effects: [Effect] = []
    switch message {
    case .start:
      effects += enter(location, select: wanted)
    case .key(let key):
      effects += handle(key)
    case .resize(let newSize):
      size = newSize
      clampTop()
    case .bucketsLoaded(let id, let result):
      guard id == bucketsLoading else { return [] }
      bucketsLoading = nil
      switch result {
      case .success(let list):
        buckets = list
        bucketsLoaded = true
        bucketsFailure = nil
      case .failure(let failure):
        bucketsFailure = failure.message
      }
      if location == .buckets { rebuildRows() }
    case .pageLoaded(let id, let result):
      guard let place = folders.first(where: { $0.value.loading == id })?.key else { return [] }
      // The rows let go of the folder's arrays while the page is added, so that adding does not
      // copy them; then the page's entries are merged into the rows.
      var shown = Rows()
      if place == location { swap(&shown, &rows) }
      shown.source = .none
      let added = received(result, at: place)
      if place == location { merge(added, into: &shown) }
    case .statLoaded(let id, let result):
      guard let pending = statLoading, pending.id == id else { return [] }
      statLoading = nil
      switch result {
      case .success(let found): details[ExactKey(pending.key)] = found
      case .failure(let failure): self.message = "stat failed: " + failure.message
      }
    case .copied(let what, let result):
      switch result {
      case .success(let text):
        // Whether the terminal lets OSC 52 reach the clipboard is not known here: say what
        // was done, and under tmux what it takes.
        let how = insideTmux ? "OSC 52 (tmux needs set-clipboard on)" : "OSC 52"
        self.message = "\(what) sent by \(how): " + text
      case .failure(let failure): self.message = "copy failed: " + failure.message
      }
    case .rangeLoaded(let id, let result):
      effects += pagerLoaded(id: id, result)
    case .localListed(let id, let result):
      completed(id: id, result)
    case .note(let text):
      self.message = text
    case .objectsCounted(let id, let result):
      objectsCounted(id: id, result)
    case .deleteFinished(let id, let report):
      effects += deleteFinished(id: id, report)
    case .moveFinished(let id, let result):
      effects += moveFinished(id: id, result)
    case .uploadProgress(let id, let progress):
      effects += uploadProgress(id: id, progress)
    case .uploadFinished(let id, let summary):
      uploadFinished(id: id, summary)
    case .downloadProgress(let id, let name, let bytes, let total, let seconds):
      guard !cancelled(id) else { return [] }
      download = (name, bytes, total)
      transfer(id) {
        $0.bytes = bytes
        $0.total = total
        $0.seconds = seconds
      }
    case .treeProgress(let id, let progress):
      treeDownloadChanged(id: id, progress: progress, end: nil)
    case .treeFinished(let id, let result):
      treeDownloadChanged(id: id, progress: nil, end: result)
    case .downloadFinished(let id, let name, let result):
      guard !cancelled(id) else { return [] }
      download = nil
      switch result {
      case .success(let path):
        self.message = "saved \(name) to \(path)"
        transfer(id) {
          $0.bytes = $0.total
          $0.status = .done("saved to " + path)
        }
      case .failure(let failure):
        self.message = "download of \(name) failed: " + failure.message
        transfer(id) { $0.status = .failed(failure.message) }
      }
    }
    effects += continueLoading()
    effects += wantDetails()
    return effects
  }

  private mutating func received(_ result: Result<ListPage, Failure>, at place: Location)
    -> Folder.Added
  {
    guard folders[place] != nil else { return Folder.Added() }
    folders[place]?.loading = nil
    switch result {
    case .success(let page):
      guard let (added, last) = folders[place]?.add(page) else { return Folder.Added() }
      if last && place == location {
        loadAll = false
        if message == Self.stoppedLoading { message = nil }
      }
      return added
    case .failure(let failure):
      folders[place]?.failure = failure.message
      loadAll = false
      return Folder.Added()
    }
  }

  /// Asks for the next page of the current folder while it is needed: fewer than three screens
  /// below the cursor, or everything (`A`).
  private mutating func continueLoading() -> [Effect] {
    guard case .folder(let bucket, let prefix) = location, var folder = folders[location],
      !folder.complete, folder.loading == nil, folder.failure == nil
    else { return [] }
    let needed = loadAll || rows.count - cursor < listHeight * 3 || folder.pages == 0
    guard needed else { return [] }
    let id = newID()
    folder.loading = id
    folders[location] = folder
    return [.listPage(id: id, bucket: bucket, prefix: prefix, marker: folder.marker)]
  }

  /// Asks for the selected object's details when the pane shows and they are not known.
  private mutating func wantDetails() -> [Effect] {
    guard showDetail, case .folder(let bucket, _) = location, let object = selected?.object,
      details[ExactKey(object.key)] == nil
    else { return [] }
    if let pending = statLoading {
      if ExactKey.same(pending.key, object.key) { return [] }
      statLoading = nil
      let id = newID()
      statLoading = (id, object.key)
      return [.cancel(id: pending.id), .stat(id: id, bucket: bucket, key: object.key)]
    }
    let id = newID()
    statLoading = (id, object.key)
    return [.stat(id: id, bucket: bucket, key: object.key)]
  }

  /// Goes to `target`: cancels the current folder's request (keeping what it loaded and its
  /// marker), and starts or resumes the target's.
  mutating func enter(_ target: Location, select: String?) -> [Effect] {
    var effects = leave()
    switch (target, location) {
    case (.folder(let bucket, _), .folder(let before, _)) where ExactKey.same(bucket, before): break
    default: details = [:]  // known by key within one bucket: another's `a.txt` is another object
    }
    location = target
    // A message was about the view left (a failed download, "stopped loading"): not this one.
    message = nil
    filter = ""
    filterBase = nil
    marks = []
    loadAll = false
    detailFullScreen = false
    cursor = 0
    top = 0
    selectedID = nil
    wanted = select
    clock += 1
    switch target {
    case .buckets:
      if !bucketsLoaded && bucketsLoading == nil {
        let id = newID()
        bucketsLoading = id
        effects.append(.listBuckets(id: id))
      }
    case .folder(_, let prefix):
      var folder = folders[target] ?? Folder(prefix: prefix)
      folder.lastUsed = clock
      folder.failure = nil
      folders[target] = folder
      evict()
    }
    rebuildRows()
    return effects
  }

  private mutating func leave() -> [Effect] {
    var effects: [Effect] = []
    if var folder = folders[location], let id = folder.loading {
      folder.loading = nil
      folders[location] = folder
      effects.append(.cancel(id: id))
    }
    if let pending = statLoading {
      statLoading = nil
      effects.append(.cancel(id: pending.id))
    }
    return effects
  }

  /// Drops the least recently shown folders while the cache holds more than `cacheLimit`
  /// entries outside the current folder.
  private mutating func evict() {
    var total = folders.reduce(0) { $0 + ($1.key == location ? 0 : $1.value.count) }
    while total > cacheLimit {
      guard
        let oldest = folders.filter({ $0.key != location }).min(by: {
          $0.value.lastUsed < $1.value.lastUsed
        })
      else { return }
      total -= oldest.value.count
      folders[oldest.key] = nil
    }
  }

  /// Moves the cursor to `index` (clamped).
  mutating func move(to index: Int) {
    guard !rows.isEmpty else { return }
    cursor = max(0, min(index, rows.count - 1))
    selectedID = rows.id(at: cursor)
    wanted = nil
    clampTop()
  }

  /// Up one level: the parent folder, or the bucket list from a bucket's root.
  mutating func up() -> [Effect] {
    guard case .folder(let bucket, let prefix) = location else { return [] }
    if prefix.isEmpty { return enter(.buckets, select: bucket) }
    let parent = String(
      KeySegments.folder(of: prefix[..<(KeySegments.lastSlash(in: prefix) ?? prefix.startIndex)]))
    return enter(.folder(bucket: bucket, prefix: parent), select: prefix)
  }

  /// Opens the selected row: a bucket or folder is entered; an object is previewed (or, with
  /// `--pick`, chosen).
  mutating func open() -> [Effect] {
    guard let row = selected else { return [] }
    switch row.kind {
    case .bucket(let bucket):
      return enter(.folder(bucket: bucket.name, prefix: ""), select: nil)
    case .folder:
      guard case .folder(let bucket, _) = location else { return [] }
      return enter(.folder(bucket: bucket, prefix: row.id), select: nil)
    case .object(let object):
      guard case .folder(let bucket, _) = location else { return [] }
      if pick { return [.pick(bucket: bucket, key: object.key)] }
      return openPager(bucket: bucket, key: object.key, size: object.size)
    }
  }

  /// `R`: forgets the folder (or the bucket list) and loads it again.
  mutating func reload() -> [Effect] {
    var effects = leave()
    switch location {
    case .buckets:
      bucketsLoaded = false
      buckets = []
      if let id = bucketsLoading { effects.append(.cancel(id: id)) }
      bucketsLoading = nil
    case .folder:
      folders[location] = nil
      details = [:]
    }
    let select = selectedID
    effects += enter(location, select: select)
    message = "reloading"
    return effects
  }

  /// `:` path: `BUCKET`, `BUCKET/PREFIX/` or `BUCKET/KEY` (its folder, the key selected);
  /// empty for the bucket list.
  mutating func goTo(_ path: String) -> [Effect] {
    let path = KeySegments.droppingLeadingSlashes(path)
    if path.isEmpty { return enter(.buckets, select: nil) }
    guard let (head, tail) = KeySegments.splitAtFirstSlash(path) else {
      return enter(.folder(bucket: String(path), prefix: ""), select: nil)
    }
    let bucket = String(head)
    let rest = String(tail)
    if rest.isEmpty || KeySegments.endsWithSlash(rest) {
      return enter(.folder(bucket: bucket, prefix: rest), select: nil)
    }
    let folder = String(KeySegments.folder(of: rest))
    return enter(.folder(bucket: bucket, prefix: folder), select: rest)
  }
}
