/// Draws a prompt on `row`: its label, then the line editor's text escaped character by
/// character (a control character shows as its escape, never raw), scrolled so that the cursor
/// is on screen. The cursor is a reversed cell (the terminal's own cursor stays hidden); a
/// selected text is reversed whole.
func drawPrompt(
  _ label: String, _ editor: LineEditor, into screen: inout Screen, row: Int, width: Int
) {
  screen.put(label, row: row, column: 0)
  var column = CellWidth.of(label)
  let room = width - column
  guard room > 1 else { return }
  let pieces = editor.characters.map { Fit.visible(String($0)) }
  let widths = pieces.map { CellWidth.of($0) }
  let cursorWidth = editor.cursor < pieces.count ? widths[editor.cursor] : 1
  // The first piece shown: as far left as lets the cursor's cell end within the room.
  var start = 0
  var used = widths[..<editor.cursor].reduce(0, +) + cursorWidth
  while used > room && start < editor.cursor {
    used -= widths[start]
    start += 1
  }
  for index in start..<pieces.count {
    guard column + widths[index] <= width else { break }
    let style: Style = editor.selected || index == editor.cursor ? .reverse : []
    screen.put(pieces[index], row: row, column: column, style: style)
    column += widths[index]
  }
  if editor.cursor == pieces.count && !editor.selected && column < width {
    screen.put(" ", row: row, column: column, style: .reverse)
  }
}
