import StorageCore

extension State {
  /// What a key does in the current mode (the contract's key table).
  mutating func handle(_ key: Key) -> [Effect] {
    if key == .controlC { return [.quit(130)] }
    switch mode {
    case .normal: return normal(key)
    case .filter: return editFilter(key)
    case .sort:
      mode = .normal
      switch key {
      case .character("n"): sortKey = .name
      case .character("s"): sortKey = .size
      case .character("t"): sortKey = .time
      case .character("r"): reversed.toggle()
      default: return []
      }
      rebuildRows()
      return []
    case .copy:
      mode = .normal
      return copy(key)
    case .goTo(let text):
      return prompt(key, text: text, wrap: Mode.goTo) { state, path in state.goTo(path) }
    case .saveAs(let text):
      return prompt(key, text: text, wrap: Mode.saveAs) { state, path in
        state.save(to: path.isEmpty ? nil : path)
      }
    case .help:
      mode = .normal
      return []
    }
  }

  private mutating func normal(_ key: Key) -> [Effect] {
    if detailFullScreen {
      switch key {
      case .character("q"): return [.quit(0)]
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
    case .character(":"): mode = .goTo(currentPath)
    case .character("s"): return save(to: nil)
    case .character("S"):
      guard let object = selected?.object else { return [] }
      mode = .saveAs(
        String(KeySegments.lastSegment(of: KeySegments.droppingTrailingSlashes(object.key))))
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
        if var current = folders[location], current.failure != nil {
          current.failure = nil
          folders[location] = current
        }
      }
    case .escape:
      if loadAll {
        loadAll = false
        message = "stopped loading all pages"
      } else if !filter.isEmpty {
        filter = ""
        rebuildRows()
      }
    case .character("?"): mode = .help
    case .character("q"): return [.quit(0)]
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
      filter = ""
    case .backspace:
      if filter.isEmpty { mode = .normal } else { filter.removeLast() }
    case .character(let character):
      filter.append(character)
    case .down, .up, .pageDown, .pageUp:
      return normal(key)
    default:
      return []
    }
    rebuildRows()
    return []
  }

  private mutating func prompt(
    _ key: Key, text: String, wrap: (String) -> Mode,
    done: (inout State, String) -> [Effect]
  ) -> [Effect] {
    switch key {
    case .enter:
      mode = .normal
      return done(&self, text)
    case .escape:
      mode = .normal
    case .backspace:
      mode = wrap(String(text.dropLast()))
    case .character(let character):
      mode = wrap(text + String(character))
    default: break
    }
    return []
  }

  private mutating func copy(_ key: Key) -> [Effect] {
    guard let row = selected else { return [] }
    let bucket: String
    switch location {
    case .buckets:
      return key == .character("k") || key == .character("p")
        ? [.copy(what: "bucket name", text: row.id)] : []
    case .folder(let name, _): bucket = name
    }
    switch key {
    case .character("k"): return [.copy(what: "key", text: row.id)]
    case .character("p"): return [.copy(what: "path", text: bucket + "/" + row.id)]
    case .character("u"):
      guard row.object != nil else {
        message = "a folder has no download URL"
        return []
      }
      return [.copyURL(bucket: bucket, key: row.id)]
    default: return []
    }
  }

  private mutating func save(to path: String?) -> [Effect] {
    guard case .folder(let bucket, _) = location, let object = selected?.object else {
      message = "select an object to download"
      return []
    }
    return [.download(bucket: bucket, key: object.key, size: object.size, path: path)]
  }

  /// `BUCKET/PREFIX` of the current location, for `:`.
  public var currentPath: String {
    switch location {
    case .buckets: return ""
    case .folder(let bucket, let prefix): return bucket + "/" + prefix
    }
  }
}
