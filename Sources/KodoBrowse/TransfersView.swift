/// Draws the transfer queue (`t`) in the rows between the title and the last line: one entry
/// per transfer, oldest first, wrapped whole (a failure's error included); the selected one
/// reversed, kept on screen.
func drawTransfers(_ state: State, into screen: inout Screen, height: Int) {
  let width = state.size.width
  let size = state.size
  if state.transfers.isEmpty {
    screen.put(" no transfers in this session", row: 1, column: 0, style: .dim)
  }
  var blocks: [[String]] = []
  for transfer in state.transfers {
    blocks.append(wrap(Fit.visible(transfer.line), width: width - 3))
  }
  // The first entry shown: as far down as keeps the selected one whole on screen.
  var first = 0
  func rows(_ range: ClosedRange<Int>) -> Int { range.reduce(0) { $0 + blocks[$1].count } }
  if state.transfers.indices.contains(state.transferCursor) {
    while first < state.transferCursor && rows(first...state.transferCursor) > height {
      first += 1
    }
  }
  var row = 1
  for index in blocks.indices.dropFirst(first) {
    let selected = index == state.transferCursor
    for (part, text) in blocks[index].enumerated() where row <= height {
      let line = (part == 0 ? (selected ? " ▸ " : "   ") : "   ") + text
      screen.put(line, row: row, column: 0, style: selected ? .reverse : [], limit: width)
      if selected { screen.fill(row: row, width: width, style: .reverse) }
      row += 1
    }
  }
  let running = state.runningTransfers
  let status =
    " \(Format.count(state.transfers.count, "transfer", "transfers")), \(running) running"
  screen.put(Fit.pad(status, to: width), row: size.height - 2, column: 0)
  screen.fill(row: size.height - 2, style: state.color ? [.reverse, .blue] : .reverse)
  screen.put(
    " ↑↓ move  x cancel the selected one  q ← Esc back", row: size.height - 1, column: 0,
    style: .dim)
}
