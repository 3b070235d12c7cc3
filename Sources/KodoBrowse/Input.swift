import StorageCore

extension State {
  /// What a key does in the current mode (the contract's key table).
  mutating func handle(_ key: Key) -> [Effect] {
    if key == .controlC { return [.quit(130)] }
    if pager != nil { return pagerKey(key) }
    // A message too long for the status line is shown over the list until the next key.
    if mode == .normal, message != nil, CellWidth.of(statusLine(self)) > size.width {
      message = nil
    }
    switch mode {
    case .normal: return normal(key)
    case .filter: return editFilter(key)
    case .sort:
      mode = .normal
      // A key sorts ascending (the CLI's `--sort`); only `r` reverses, until the next key.
      switch key {
      case .character("n"): (sortKey, reversed) = (.name, false)
      case .character("s"): (sortKey, reversed) = (.size, false)
      case .character("t"): (sortKey, reversed) = (.time, false)
      case .character("r"): reversed.toggle()
      default: return []
      }
      rebuildRows()
      return []
    case .copy:
      mode = .normal
      return copy(key)
    case .goTo:
      return prompt(key, local: false) { state, path in state.goTo(path) }
    case .saveAs:
      return prompt(key, local: true) { state, path in
        let path = expandingHome(path, home: state.home)
        return state.save(to: path.isEmpty ? nil : path)
      }
    case .rename(_, let object):
      return prompt(key, local: false) { state, name in state.rename(object, to: name) }
    case .confirm(let confirmation):
      return answer(key, to: confirmation)
    case .upload:
      return prompt(key, local: true) { state, path in
        state.upload(expandingHome(path, home: state.home))
      }
    case .transfers:
      return transfersKey(key)
    case .help:
      mode = .normal
      return []
    }
  }

  private mutating func normal(_ key: Key) -> [Effect] {
    if detailFullScreen {
      switch key {
      case .character("q"): return quit()
      case .character("i"), .escape, .left, .character("h"), .backspace, .enter:
        detailFullScreen = false
        return []
      default: break
      }
    }
    let page = max(1, listHeight - 1)
    switch key {
    case .down, .character("j"): move(to: cursor + 1)
    case .up, .character("k"): move(to: cursor - 1)
    case .pageDown: move(to: cursor + page)
    case .pageUp: move(to: cursor - page)
    case .home, .character("g"): move(to: 0)
    case .end, .character("G"): move(to: rows.count - 1)
    case .right, .character("l"), .enter: return open()
    case .left, .character("h"), .backspace: return up()
    case .character("/"):
      mode = .filter
      message = nil
    case .character("o"): mode = .sort
    case .character("y"):
      guard selected != nil else { return [] }
      mode = .copy
    case .character(":"): mode = .goTo(LineEditor(currentPath, selectAll: true))
    case .character("s"): return saveTree() ?? save(to: nil)
    case .character("S"):
      guard let object = selected?.object else { return [] }
      mode = .saveAs(
        LineEditor(
          String(KeySegments.lastSegment(of: KeySegments.droppingTrailingSlashes(object.key)))))
    case .character("i"):
      if size.width < 80 {
        detailFullScreen = selected?.object != nil
        showDetail = true
      } else {
        showDetail.toggle()
      }
    case .character("R"): return reload()
    case .character("A"):
      if case .folder = location, folder?.complete == false {
        loadAll = true
        message = nil
        if var current = folders[location], current.failure != nil {
          current.failure = nil
          folders[location] = current
        }
      }
    case .escape:
      if loadAll {
        loadAll = false
        message = Self.stoppedLoading
      } else if !filter.isEmpty {
        setFilter("")
      }
    case .character("d"): return askDelete()
    case .character("r"): askRename()
    case .character(" "): toggleMark()
    case .character("*"): markAllShown()
    case .character("?"): mode = .help
    case .character("u"): askUpload()
    case .character("t"):
      transferCursor = max(0, transfers.count - 1)
      mode = .transfers
    case .character("q"): return quit()
    default: break
    }
    return []
  }

  private mutating func editFilter(_ key: Key) -> [Effect] {
    switch key {
    case .enter:
      mode = .normal
    case .escape:
      mode = .normal
      setFilter("")
    case .backspace:
      if filter.isEmpty { mode = .normal } else { setFilter(String(filter.dropLast())) }
    case .character(let character):
      setFilter(filter + String(character))
    case .down, .up, .pageDown, .pageUp:
      return normal(key)
    default:
      break
    }
    return []
  }

  private mutating func copy(_ key: Key) -> [Effect] {
    guard let row = selected else { return [] }
    let bucket: String
    switch location {
    case .buckets:
      return key == .character("k") || key == .character("p")
        ? copyText("bucket name", row.id) : []
    case .folder(let name, _): bucket = name
    }
    switch key {
    case .character("k"): return copyText("key", row.id)
    case .character("p"): return copyText("path", bucket + "/" + row.id)
    case .character("u"):
      guard row.object != nil else {
        message = "a folder has no download URL"
        return []
      }
      return [.copyURL(bucket: bucket, key: row.id)]
    default: return []
    }
  }

  /// Copies text that holds no character the escaper would escape: a key with a line break,
  /// ESC or another control (or a bidi or invisible character) is not put in the clipboard,
  /// where a paste into a shell could run it or end a bracketed paste; the status line says
  /// why.
  private mutating func copyText(_ what: String, _ text: String) -> [Effect] {
    guard DisplayText.escaped(text).utf8.elementsEqual(text.utf8) else {
      message =
        "not copied: the \(what) holds control or invisible characters (shown escaped), which a"
        + " paste would run or hide"
      return []
    }
    return [.copy(what: what, text: text)]
  }

  mutating func save(to path: String?) -> [Effect] {
    guard case .folder(let bucket, _) = location, let object = selected?.object else {
      message = "select an object to download"
      return []
    }
    let id = newID()
    began(id, .download, selected?.name ?? object.key)
    return [.download(id: id, bucket: bucket, key: object.key, size: object.size, path: path)]
  }

  /// `BUCKET/PREFIX` of the current location, for `:`.
  package var currentPath: String {
    switch location {
    case .buckets: return ""
    case .folder(let bucket, let prefix): return bucket + "/" + prefix
    }
  }
}

extension State {
  /// `Space`: marks the selected entry (or unmarks it) and moves to the next.
  mutating func toggleMark() {
    guard case .folder = location, let row = selected else { return }
    let key = ExactKey(row.id)
    if marks.remove(key) == nil { marks.insert(key) }
    move(to: cursor + 1)
  }

  /// `*`: marks every entry shown (those the filter passes, of those loaded); when all of them
  /// are marked already, unmarks them.
  mutating func markAllShown() {
    guard case .folder = location, !rows.isEmpty else { return }
    let shown = rows.indices.map { ExactKey(rows.id(at: $0)) }
    if shown.allSatisfy({ marks.contains($0) }) {
      marks.subtract(shown)
    } else {
      marks.formUnion(shown)
    }
  }
}
