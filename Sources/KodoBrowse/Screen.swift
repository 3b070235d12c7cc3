/// How a cell is drawn.
package struct Style: OptionSet, Sendable, Hashable {
  package let rawValue: UInt8
  package init(rawValue: UInt8) { self.rawValue = rawValue }

  package static let bold = Style(rawValue: 1)
  package static let reverse = Style(rawValue: 2)
  package static let dim = Style(rawValue: 4)
  /// Colours (never set when colour is off).
  package static let blue = Style(rawValue: 8)
  package static let red = Style(rawValue: 16)
  package static let green = Style(rawValue: 32)

  /// The SGR sequence that sets this style from any other.
  var sgr: String {
    var codes = "0"
    if contains(.bold) { codes += ";1" }
    if contains(.dim) { codes += ";2" }
    if contains(.reverse) { codes += ";7" }
    if contains(.red) { codes += ";31" }
    if contains(.green) { codes += ";32" }
    if contains(.blue) { codes += ";34" }
    return "\u{1B}[" + codes + "m"
  }
}

/// One cell: a grapheme cluster (escaped already) or, after a wide one, an empty continuation.
package struct Cell: Sendable, Hashable {
  /// The cluster; "" for the right half of a wide cluster.
  package var text: String
  package var style: Style

  static let blank = Cell(text: " ", style: [])
}

/// A grid of cells, what `view` draws and `diff` compares.
package struct Screen: Sendable, Equatable {
  package let size: Size
  package private(set) var cells: [Cell]

  /// A blank screen.
  package init(size: Size) {
    self.size = size
    cells = Array(repeating: .blank, count: max(0, size.width) * max(0, size.height))
  }

  /// The cell at a row and column.
  package subscript(row: Int, column: Int) -> Cell {
    cells[row * size.width + column]
  }

  /// Writes safe text at a row from a column, cut at `limit` cells (default: the row's end). A
  /// wide cluster that would not fit whole leaves a blank.
  package mutating func put(
    _ text: String, row: Int, column: Int, style: Style = [], limit: Int? = nil
  ) {
    guard row >= 0, row < size.height, column >= 0 else { return }
    let end = min(size.width, column + (limit ?? size.width))
    var x = column
    for character in text {
      let width = CellWidth.of(character)
      if width == 0 { continue }
      if x + width > end {
        while x < end {
          cells[row * size.width + x] = Cell(text: " ", style: style)
          x += 1
        }
        return
      }
      cells[row * size.width + x] = Cell(text: String(character), style: style)
      if width == 2 { cells[row * size.width + x + 1] = Cell(text: "", style: style) }
      x += width
    }
  }

  /// Fills a row's cells from a column with a style (a highlighted line).
  package mutating func fill(row: Int, from column: Int = 0, width: Int? = nil, style: Style) {
    guard row >= 0, row < size.height else { return }
    let end = min(size.width, column + (width ?? size.width))
    for x in max(0, column)..<max(max(0, column), end) {
      var cell = cells[row * size.width + x]
      cell.style = style
      cells[row * size.width + x] = cell
    }
  }

  /// Each row as text (continuation cells skipped, trailing spaces removed): what tests compare.
  package var lines: [String] {
    (0..<size.height).map { row in
      var line = ""
      for column in 0..<size.width {
        line += self[row, column].text
      }
      while line.last == " " { line.removeLast() }
      return line
    }
  }
}

/// What the terminal must be sent to turn `old` into `new`: only the changed runs of each row,
/// each after a cursor position, with the cursor put back after any cluster terminals disagree
/// on. With no `old` (or another size) the whole screen, after clearing it.
package func diff(from old: Screen?, to new: Screen) -> [UInt8] {
  var out = "\u{1B}[?2026h"
  let full = old?.size != new.size
  if full { out += "\u{1B}[0m\u{1B}[2J" }
  var current: Style? = nil
  let width = new.size.width
  for row in 0..<new.size.height {
    var first = -1
    var last = -1
    for column in 0..<width {
      if full || old?[row, column] != new[row, column] {
        if first < 0 { first = column }
        last = column
      }
    }
    if first < 0 { continue }
    // Start on a whole cluster, end after one.
    while first > 0 && new[row, first].text.isEmpty { first -= 1 }
    if last + 1 < width && new[row, last + 1].text.isEmpty { last += 1 }
    out += "\u{1B}[\(row + 1);\(first + 1)H"
    var column = first
    var reposition = false
    while column <= last {
      let cell = new[row, column]
      if cell.text.isEmpty {
        column += 1
        continue
      }
      if reposition {
        out += "\u{1B}[\(row + 1);\(column + 1)H"
        reposition = false
      }
      if current != cell.style {
        out += cell.style.sgr
        current = cell.style
      }
      out += cell.text
      if let character = cell.text.first, CellWidth.isRisky(character) { reposition = true }
      column += 1
    }
  }
  out += "\u{1B}[0m\u{1B}[?2026l"
  return Array(out.utf8)
}
