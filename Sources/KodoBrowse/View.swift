import StorageCore

/// The keys, for the help screen and the hint line (one table, so they cannot drift apart).
package let keyTable: [(keys: String, does: String)] = [
  ("↓ j / ↑ k", "move"),
  ("→ l Enter", "open the bucket or folder; on an object, preview it (q back)"),
  ("← h Backspace", "up one level"),
  ("g Home / G End", "first / last loaded entry"),
  ("PgUp / PgDn", "page up / down"),
  ("/", "filter the loaded entries (Enter keeps, Esc clears)"),
  ("o", "sort: n name, s size, t time (smallest, oldest first), r reverse"),
  ("i", "show or hide the details"),
  ("Space / *", "mark or unmark / mark every entry shown (all marked: none)"),
  ("d", "delete the marked entries, or the selected one (asks first; a folder: all under it)"),
  ("r", "rename the selected entry (a / moves it into a folder; a folder as mv -r; asks first)"),
  ("y", "copy: k key, p BUCKET/KEY, u download URL (OSC 52, if the terminal allows)"),
  ("s / S", "download here / to a path (Tab completes, ~ is home)"),
  ("s on a folder", "download it, or the marked entries, here as get -r does"),
  ("u", "upload a local file or folder here (a folder as a subfolder of its name; put -r)"),
  ("t", "transfers: progress and state of each; x cancels the selected one"),
  (":", "go to BUCKET/PREFIX (typing replaces the path shown)"),
  ("A", "load every page (Esc stops)"),
  ("R", "reload the folder"),
  ("?", "this help"),
  ("q / Ctrl-C", "quit"),
]

/// Draws the state: header, list (and detail pane), status line, hint or prompt line.
package func view(_ state: State) -> Screen {
  var screen = Screen(size: state.size)
  let size = state.size
  guard size.width >= 20, size.height >= 5 else {
    screen.put("terminal too small", row: 0, column: 0)
    return screen
  }
  if let pager = state.pager {
    drawPager(pager, state, into: &screen)
    return screen
  }
  let color = state.color
  // The position (`37/98`) at the right of the title line.
  let position = state.rows.isEmpty ? "" : "\(state.cursor + 1)/\(state.rows.count) "
  let titleRoom = size.width - position.count - 1
  screen.put(Fit.truncate(" kodo · " + Fit.visible(title(state)), to: titleRoom), row: 0, column: 0)
  screen.put(position, row: 0, column: size.width - position.count)
  screen.fill(row: 0, style: .reverse)
  // The rows between the title and the status line: the list's header and rows, or the pane.
  let bodyHeight = state.listHeight + 1
  if state.mode == .help {
    for (index, entry) in keyTable.enumerated() where index < bodyHeight {
      screen.put(" " + Fit.pad(entry.keys, to: 16) + entry.does, row: index + 1, column: 0)
    }
    screen.put(" any key closes the help", row: size.height - 1, column: 0, style: .dim)
    return screen
  }
  if state.mode == .transfers {
    drawTransfers(state, into: &screen, height: bodyHeight)
    return screen
  }
  let paneWidth: Int
  if state.detailFullScreen {
    paneWidth = size.width
  } else if state.showDetail && size.width >= 80 && state.location != .buckets {
    paneWidth = max(30, size.width * 2 / 5)
  } else {
    paneWidth = 0
  }
  let listWidth = size.width - paneWidth - (paneWidth > 0 && paneWidth < size.width ? 1 : 0)
  if listWidth > 0 { drawList(state, into: &screen, width: listWidth, color: color) }
  if paneWidth > 0 {
    let column = size.width - paneWidth
    if column > 0 {
      for row in 1...bodyHeight { screen.put("│", row: row, column: column - 1, style: .dim) }
    }
    let lines = detailLines(state, width: paneWidth - 1)
    for (index, line) in lines.prefix(bodyHeight).enumerated() {
      screen.put(
        line.text, row: index + 1, column: column + 1, style: line.style, limit: paneWidth - 1)
    }
  }
  // The status line, whole: a message longer than the screen is wide (an error and its
  // request id) is wrapped over the list's last lines, until the next key.
  let status = wrap(statusLine(state), width: size.width)
  let statusRows = min(status.count, state.listHeight)
  for (index, line) in status.prefix(statusRows).enumerated() {
    let row = size.height - 1 - statusRows + index
    let last = index == statusRows - 1 && status.count > statusRows
    screen.put(
      Fit.pad(last ? Fit.truncate(line + "…", to: size.width) : line, to: size.width), row: row,
      column: 0)
    screen.fill(row: row, style: color ? [.reverse, .blue] : .reverse)
  }
  switch state.mode {
  case .goTo(let editor):
    drawPrompt("go to: ", editor, into: &screen, row: size.height - 1, width: size.width)
  case .saveAs(let editor):
    drawPrompt("save as: ", editor, into: &screen, row: size.height - 1, width: size.width)
  case .rename(let editor, _):
    drawPrompt("rename to: ", editor, into: &screen, row: size.height - 1, width: size.width)
  case .upload(let editor):
    drawPrompt(
      "upload here (a folder as NAME/): ", editor, into: &screen, row: size.height - 1,
      width: size.width)
  case .confirm(let confirmation):
    // Whole: wrapped over the list's last lines when it is longer than the screen is wide.
    let lines = wrap(confirmation.question, width: size.width - 1)
    for (index, line) in lines.prefix(state.listHeight).enumerated() {
      let row = size.height - min(lines.count, state.listHeight) + index
      screen.put(" " + Fit.pad(line, to: size.width - 1), row: row, column: 0, style: .bold)
    }
  default:
    screen.put(
      Fit.truncate(bottomLine(state), to: size.width), row: size.height - 1, column: 0)
  }
  return screen
}

/// `photos / 2024 / 05 /`, or `buckets`.
func title(_ state: State) -> String {
  switch state.location {
  case .buckets: return "buckets"
  case .folder(let bucket, let prefix):
    var text = bucket + " /"
    for part in KeySegments.segments(of: prefix).dropLast() {
      text += " " + part + " /"
    }
    return text
  }
}

private func drawList(_ state: State, into screen: inout Screen, width: Int, color: Bool) {
  let height = state.listHeight
  let rows = state.rows
  if rows.isEmpty {
    // Whole, wrapped: an error's end (its request id) is the part a user needs.
    for (index, part) in wrap(Fit.visible(emptyText(state)), width: width - 1).prefix(height + 1)
      .enumerated()
    {
      screen.put(" " + part, row: index + 1, column: 0, style: .dim, limit: width)
    }
    return
  }
  let showTime = state.size.width >= 100
  var sizeWidth = 10
  if case .buckets = state.location {
    // The region column fits OSS's region ids (oss-cn-hangzhou), up to a point.
    let longest = state.buckets.map { CellWidth.of(Fit.visible($0.region ?? "")) }.max() ?? 0
    sizeWidth = min(max(sizeWidth, longest), max(10, (width - 6) / 3))
  }
  let timeWidth = showTime ? 17 : 0
  let nameWidth = max(4, width - 2 - sizeWidth - timeWidth - 1)
  // The column header.
  let buckets = state.location == .buckets
  var header = " " + Fit.pad("name", to: nameWidth) + " "
  header += Fit.pad(buckets ? "region" : "size", to: sizeWidth, right: true)
  if showTime {
    header +=
      " " + Fit.pad(buckets ? "access" : "modified (UTC)", to: timeWidth - 1, right: buckets)
  }
  screen.put(header, row: 1, column: 0, style: .dim, limit: width)
  // The rows, below it: lines 2 to height + 1.
  var line = 2
  var index = state.top
  while line <= height + 1 && index < rows.count {
    let row = rows[index]
    let name = Fit.pad(Format.name(row.name), to: nameWidth)
    let marked = !state.marks.isEmpty && state.marks.contains(ExactKey(row.id))
    var text = (marked ? "*" : " ") + name + " "
    var style: Style = []
    switch row.kind {
    case .bucket(let bucket):
      let region = bucket.region ?? ""
      let access = bucket.isPrivate.map { $0 ? "private" : "public" } ?? ""
      text += Fit.pad(Fit.visible(region), to: sizeWidth, right: true)
      if showTime { text += " " + Fit.pad(access, to: timeWidth - 1, right: true) }
    case .folder:
      text += Fit.pad("—", to: sizeWidth, right: true)
      if showTime { text += String(repeating: " ", count: timeWidth) }
      style = color ? [.bold, .blue] : .bold
    case .object(let object):
      text += Fit.pad(Format.size(object.size), to: sizeWidth, right: true)
      if showTime { text += " " + Fit.pad(Format.minute(object.putTime), to: timeWidth - 1) }
    }
    if index == state.cursor { style.insert(.reverse) }
    screen.put(text, row: line, column: 0, style: style, limit: width)
    if index == state.cursor { screen.fill(row: line, width: width, style: style) }
    line += 1
    index += 1
  }
  if line <= height + 1, let folder = state.folder {
    if let failure = folder.failure {
      let text = "⚠ page \(folder.pages + 1) failed: \(Fit.visible(failure)) — A retries"
      for part in wrap(text, width: width - 1) where line <= height + 1 {
        screen.put(" " + part, row: line, column: 0, style: color ? .red : .bold, limit: width)
        line += 1
      }
    } else if folder.loading != nil {
      screen.put(" … loading more", row: line, column: 0, style: .dim, limit: width)
    }
  }
}

private func emptyText(_ state: State) -> String {
  switch state.location {
  case .buckets:
    if let failure = state.bucketsFailure { return "⚠ " + failure + " — R retries" }
    if state.bucketsLoading != nil { return "Loading buckets …" }
    return state.filter.isEmpty ? "(no buckets)" : "(nothing matches)"
  case .folder(let bucket, let prefix):
    let folder = state.folder
    if let failure = folder?.failure { return "⚠ " + failure + " — A retries, R reloads" }
    if folder?.complete != true { return "Loading \(bucket)/\(prefix) … (← back)" }
    return state.filter.isEmpty ? "(empty)" : "(nothing matches)"
  }
}

/// The status line: what is loaded (`≥ N entries, loading` until the last page), the filter and
/// sort ("among loaded" while partial), a download's progress, and the last message.
package func statusLine(_ state: State) -> String {
  var parts: [String] = []
  switch state.location {
  case .buckets:
    if state.bucketsLoading != nil {
      parts.append("loading buckets")
    } else if state.bucketsFailure != nil {
      parts.append("buckets not loaded (R retries)")
    } else {
      parts.append(Format.count(state.buckets.count, "bucket", "buckets"))
    }
  case .folder:
    let folder = state.folder ?? Folder()
    let count = Format.count(folder.count)
    let entries = Format.count(folder.count, "entry", "entries")
    if folder.complete {
      parts.append(entries)
    } else if folder.failure != nil {
      parts.append("\(entries) loaded, page \(folder.pages + 1) failed (A retries)")
    } else if folder.loading != nil {
      parts.append("≥ \(entries), loading" + (state.loadAll ? " all (Esc stops)" : ""))
    } else {
      parts.append("≥ \(entries) (A loads all)")
    }
    let partial = !folder.complete
    if !state.filter.isEmpty || state.mode == .filter {
      parts.append(
        "filter \"\(Fit.visible(state.filter))\": \(Format.count(state.rows.count)) of \(count)"
          + (partial ? " loaded" : ""))
    }
    if state.sortKey != .name || state.reversed {
      let key = ["name", "size", "time"][
        [SortKey.name, .size, .time].firstIndex(of: state.sortKey) ?? 0]
      parts.append(
        "sorted by \(key)\(state.reversed ? ", reversed" : "")" + (partial ? " among loaded" : ""))
    }
  }
  if !state.marks.isEmpty { parts.append("\(Format.count(state.marks.count)) marked") }
  if let download = state.download {
    let percent = download.total > 0 ? download.bytes * 100 / download.total : 100
    parts.append(
      "downloading \(Fit.visible(download.name)) \(percent)% (\(Format.size(download.bytes)))")
  }
  if let tree = state.treeDownload { parts.append(Fit.visible(tree.status)) }
  if let writing = state.writeStatus { parts.append(writing) }
  if !state.uploads.isEmpty {
    parts.append("uploading " + Format.count(state.uploads.count, "transfer", "transfers") + " (t)")
  }
  if let message = state.message { parts.append(Fit.visible(message)) }
  return " " + parts.joined(separator: " · ")
}

private func bottomLine(_ state: State) -> String {
  switch state.mode {
  case .filter: return "/" + Fit.visible(state.filter) + "▏  Enter keeps · Esc clears"
  case .sort: return "sort: n name · s size · t time · r reverse"
  case .copy: return "copy: k key · p BUCKET/KEY · u download URL"
  case .help, .normal, .goTo, .saveAs, .rename, .confirm, .upload, .transfers:
    if state.pick {
      return " ↑↓ move  ⏎ choose  ← back  / filter  o sort  : go  q quit without choosing"
    }
    return " ↑↓ move ⏎ open ← back / filter o sort i info y copy s save : go ? help q quit"
  }
}
