/// Draws the pager over the whole screen: the object's name and where the screen is, then its
/// text line by line (each line escaped and wrapped by cells) or its hex dump, then the keys.
func drawPager(_ pager: Pager, _ state: State, into screen: inout Screen) {
  let size = state.size
  let rows = state.pagerRows
  let percent = pager.size > 0 ? Int(min(pager.top, pager.size) * 100 / pager.size) : 100
  let position = " \(percent)% "
  let name = Format.name(pager.bucket + "/" + pager.key)
  screen.put(
    Fit.truncate(" kodo · " + name, to: size.width - position.count - 1), row: 0, column: 0)
  screen.put(position, row: 0, column: size.width - position.count)
  screen.fill(row: 0, style: .reverse)
  var line = 1
  switch pager.binary {
  case nil:
    let text = pager.failure.map { "⚠ " + Fit.visible($0) + " — a key tries again" } ?? "loading …"
    for part in wrap(text, width: size.width - 1).prefix(rows) {
      screen.put(" " + part, row: line, column: 0, style: .dim)
      line += 1
    }
  case true?:
    var offset = pager.top
    while line <= rows && offset < pager.size {
      let bytes = pager.bytes(from: offset, count: Pager.hexRow)
      if bytes.isEmpty {
        screen.put("…", row: line, column: 0, style: .dim)
        break
      }
      screen.put(hexRow(offset, bytes), row: line, column: 0)
      line += 1
      offset += Pager.hexRow
    }
  case false?:
    var offset = pager.top
    text: while line <= rows && offset < pager.size {
      switch pager.lineEnd(from: offset) {
      case .success(let end):
        var raw = pager.bytes(from: offset, count: end - offset)
        if raw.last == 0x0A { raw.removeLast() }
        if raw.last == 0x0D { raw.removeLast() }
        for part in wrap(Fit.visible(String(decoding: raw, as: UTF8.self)), width: size.width)
        where line <= rows {
          screen.put(part, row: line, column: 0)
          line += 1
        }
        offset = end
      case .failure:
        screen.put("…", row: line, column: 0, style: .dim)
        break text
      }
    }
  }
  var status = " \(pager.binary == true ? "hex" : "text") · \(Format.size(pager.size))"
  if let failure = pager.failure, pager.binary != nil { status += " · ⚠ " + Fit.visible(failure) }
  status += " · ↑↓ PgUp PgDn g G move · q ← back"
  screen.put(Fit.truncate(status, to: size.width), row: size.height - 1, column: 0)
  screen.fill(row: size.height - 1, style: state.color ? [.reverse, .blue] : .reverse)
}

/// `0000001f0  48 65 6c 6c 6f 0a …  |Hello.|`: the offset, the bytes in hex, and as ASCII with
/// anything else a `.`.
func hexRow(_ offset: Int64, _ bytes: [UInt8]) -> String {
  let digits = "0123456789abcdef"
  func hex(_ byte: UInt8) -> String {
    let index = digits.utf8.index(digits.utf8.startIndex, offsetBy: Int(byte >> 4))
    let low = digits.utf8.index(digits.utf8.startIndex, offsetBy: Int(byte & 0xF))
    return String(decoding: [digits.utf8[index], digits.utf8[low]], as: UTF8.self)
  }
  var address = String(offset, radix: 16)
  address = String(repeating: "0", count: max(0, 10 - address.count)) + address
  var line = address + " "
  for index in 0..<Int(Pager.hexRow) {
    if index == 8 { line += " " }
    line += index < bytes.count ? " " + hex(bytes[index]) : "   "
  }
  line += "  |"
  for byte in bytes {
    line += byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "."
  }
  return line + "|"
}
