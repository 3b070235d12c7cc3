extension State {
  /// Opens the pager on `object` of `bucket`: its first range is asked for at once.
  mutating func openPager(bucket: String, key: String, size: Int64) -> [Effect] {
    pager = Pager(bucket: bucket, key: key, size: size)
    // A message about the list is not shown again when the preview closes.
    message = nil
    return settlePager()
  }

  /// Rows of text the pager shows (between its title and status lines).
  var pagerRows: Int { max(1, size.height - 2) }

  /// A key while the pager is open: moves, or `q`/`←`/`Esc`/`Backspace` back to the folder.
  mutating func pagerKey(_ key: Key) -> [Effect] {
    guard var pager else { return [] }
    let page = max(1, pagerRows - 1)
    switch key {
    case .character("q"), .left, .character("h"), .escape, .backspace:
      self.pager = nil
      return pager.loadingID.map { [.cancel(id: $0)] } ?? []
    case .down, .character("j"), .enter: pager.pending += 1
    case .up, .character("k"): pager.pending -= 1
    case .pageDown, .character(" "), .control("f"): pager.pending += page
    case .pageUp, .control("b"): pager.pending -= page
    case .home, .character("g"):
      pager.top = 0
      pager.pending = 0
      pager.toEnd = false
    case .end, .character("G"):
      pager.pending = 0
      pager.toEnd = true
    default: return []
    }
    // A key tries a failed range again.
    pager.failure = nil
    self.pager = pager
    return settlePager()
  }

  /// A range arrived: kept (with the few nearest the screen), the first one decides text or
  /// hex; then the moves waiting for it go on.
  mutating func pagerLoaded(id: Int, _ result: Result<[UInt8], Failure>) -> [Effect] {
    guard var pager, pager.loadingID == id else { return [] }
    pager.loadingID = nil
    let index = pager.loadingChunk
    switch result {
    case .success(let bytes):
      guard bytes.count == pager.range(of: index).count else {
        pager.failure =
          "the service sent \(bytes.count) bytes for a range of "
          + "\(pager.range(of: index).count)"
        pager.pending = 0
        pager.toEnd = false
        break
      }
      pager.chunks[index] = bytes
      if index == 0 && pager.binary == nil {
        pager.binary = !Pager.isText(bytes, cut: Int64(bytes.count) < pager.size)
      }
      let here = pager.top / Pager.chunkSize
      while pager.chunks.count > Pager.keep,
        let farthest = pager.chunks.keys.max(by: { abs($0 - here) < abs($1 - here) })
      {
        pager.chunks[farthest] = nil
      }
    case .failure(let failure):
      pager.failure = failure.message
      pager.pending = 0
      pager.toEnd = false
    }
    self.pager = pager
    return settlePager()
  }

  /// Applies the moves waiting as far as the loaded ranges allow, then asks for the range
  /// needed next (one at a time): the one a move waits for, else one the screen shows.
  mutating func settlePager() -> [Effect] {
    guard var pager else { return [] }
    let rows = Int64(pagerRows)
    var need: Int64?
    switch pager.binary {
    case nil:
      if pager.size == 0 { pager.binary = false } else { need = 0 }
    case true?:
      let lastRow = max(0, (pager.size - 1) / Pager.hexRow - (rows - 1))
      var row = pager.toEnd ? lastRow : pager.top / Pager.hexRow + Int64(pager.pending)
      row = max(0, min(row, lastRow))
      pager.top = row * Pager.hexRow
      pager.pending = 0
      pager.toEnd = false
      let end = min(pager.size, pager.top + rows * Pager.hexRow) - 1
      need = end < pager.top ? nil : missing(pager, in: pager.top...end)
    case false?:
      if pager.toEnd {
        pager.top = pager.size
        pager.pending = -Int(rows - 1)
        pager.toEnd = false
      }
      need = move(&pager)
      if need == nil && pager.size > 0 {
        // The screen's first 32 KiB at least.
        let end = min(pager.size, pager.top + Pager.chunkSize / 2) - 1
        need = end < pager.top ? nil : missing(pager, in: pager.top...end)
      }
    }
    var effects: [Effect] = []
    if let need, pager.loadingID == nil, pager.failure == nil {
      let id = newID()
      pager.loadingID = id
      pager.loadingChunk = need
      effects.append(
        .fetchRange(id: id, bucket: pager.bucket, key: pager.key, range: pager.range(of: need)))
    }
    self.pager = pager
    return effects
  }

  /// Moves the text by the lines waiting; returns the range a move waits for, if any.
  private func move(_ pager: inout Pager) -> Int64? {
    while pager.pending > 0 {
      guard pager.top < pager.size else {
        pager.pending = 0
        break
      }
      switch pager.lineEnd(from: pager.top) {
      case .success(let end):
        // The last line stays on screen.
        if end >= pager.size {
          pager.pending = 0
        } else {
          pager.top = end
          pager.pending -= 1
        }
      case .failure(let missing): return missing.chunk
      }
    }
    while pager.pending < 0 {
      guard pager.top > 0 else {
        pager.pending = 0
        break
      }
      switch pager.lineStart(before: pager.top) {
      case .success(let start):
        pager.top = start
        pager.pending += 1
      case .failure(let missing): return missing.chunk
      }
    }
    return nil
  }

  /// The first range within `bytes` that is not loaded.
  private func missing(_ pager: Pager, in bytes: ClosedRange<Int64>) -> Int64? {
    let first = bytes.lowerBound / Pager.chunkSize
    let last = bytes.upperBound / Pager.chunkSize
    return (first...last).first { pager.chunks[$0] == nil }
  }
}
