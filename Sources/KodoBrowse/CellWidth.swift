import StorageCore

/// How many terminal cells a piece of text takes, without the C library's `wcwidth` (which
/// depends on the locale and is stale for emoji): a compact table of the East Asian Wide and
/// Fullwidth ranges plus Swift's own emoji properties.
package enum CellWidth {
  /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode 15 that hold letters or symbols,
  /// merged where they touch (emoji are decided by `isEmojiPresentation` instead).
  static let wide: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
    0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
    0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
    0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
    0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
    0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
    0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
    0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
    0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
    0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A,
    0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
    0x1F260...0x1F265, 0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB,
    0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]

  /// Whether a scalar is in the wide table (binary search).
  static func isWide(_ value: UInt32) -> Bool {
    if value < 0x1100 { return false }
    var low = 0
    var high = wide.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let range = wide[middle]
      if value < range.lowerBound {
        high = middle - 1
      } else if value > range.upperBound {
        low = middle + 1
      } else {
        return true
      }
    }
    return false
  }

  /// The cells one grapheme cluster takes: 0 (a mark or format character alone, or a control),
  /// 1 or 2.
  package static func of(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    let value = first.value
    if value < 0x7F { return value < 0x20 ? 0 : 1 }
    if value < 0xA0 { return 0 }
    if value < 0x300 { return 1 }
    if isWide(value) { return 2 }
    for scalar in scalars where scalar.value == 0xFE0F { return 2 }
    if first.properties.isEmojiPresentation { return 2 }
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format, .control, .lineSeparator,
      .paragraphSeparator:
      return 0
    default:
      return 1
    }
  }

  /// Whether terminals disagree on the cluster's width (emoji sequences, variation selectors,
  /// skin tones, flags, ambiguous symbols): the renderer puts the cursor back in place after it.
  /// Any cluster of several scalars that holds a ZWJ or a variation selector is risky, whatever
  /// it starts with (the escaper keeps those only inside emoji, but a terminal may join a ZWJ
  /// to the next cell).
  package static func isRisky(_ character: Character) -> Bool {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return false }
    if scalars.count > 1 {
      for scalar in scalars {
        switch scalar.value {
        case 0xFE0F, 0xFE0E, 0x200D, 0x1F3FB...0x1F3FF, 0x1F1E6...0x1F1FF: return true
        default: continue
        }
      }
    }
    guard first.value >= 0x80 else { return false }
    if first.properties.isEmoji && !first.properties.isEmojiPresentation { return true }
    return first.value >= 0x1FA70 && first.value <= 0x1FAFF
  }

  /// The cells a string takes.
  package static func of(_ text: some StringProtocol) -> Int {
    var total = 0
    for character in text { total += of(character) }
    return total
  }
}

/// Text fitted to a number of cells.
package enum Fit {
  /// Untrusted text as it may be shown: control, bidi and invisible characters as escapes
  /// (`DisplayText`'s escaper), and any cluster of no width (a mark alone) as its escape too, so
  /// it cannot join the cell before it.
  package static func visible(_ untrusted: String) -> String {
    let escaped = DisplayText.escaped(untrusted)
    var zeroWidth = false
    for character in escaped where CellWidth.of(character) == 0 {
      zeroWidth = true
      break
    }
    if !zeroWidth { return escaped }
    var output = ""
    for character in escaped {
      if CellWidth.of(character) == 0 {
        for scalar in character.unicodeScalars {
          output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
      } else {
        output.append(character)
      }
    }
    return output
  }

  /// The text cut to at most `cells` cells, with `…` where it was cut and the extension (the
  /// part from the last `.`, up to 8 characters) kept: `a-very-long-na….jpg`. Never splits a
  /// cluster.
  package static func truncate(_ text: String, to cells: Int) -> String {
    if cells <= 0 { return "" }
    if CellWidth.of(text) <= cells { return text }
    if cells == 1 { return "…" }
    var suffix = ""
    if let dot = text.lastIndex(of: "."), dot != text.startIndex {
      let tail = text[dot...]
      let tailWidth = CellWidth.of(tail)
      if tail.count <= 8 && !KeySegments.containsSlash(tail) && tailWidth + 2 <= cells / 2 + 1 {
        suffix = String(tail)
      }
    }
    let room = cells - 1 - CellWidth.of(suffix)
    return prefix(text, cells: room) + "…" + suffix
  }

  /// The longest start of `text` that fits `cells` cells.
  package static func prefix(_ text: String, cells: Int) -> String {
    var used = 0
    var output = ""
    for character in text {
      let width = CellWidth.of(character)
      if used + width > cells { break }
      used += width
      output.append(character)
    }
    return output
  }

  /// The text padded with spaces (or cut) to exactly `cells` cells, on the left when `right`.
  package static func pad(_ text: String, to cells: Int, right: Bool = false) -> String {
    let cut = truncate(text, to: cells)
    let width = CellWidth.of(cut)
    let spaces = String(repeating: " ", count: max(0, cells - width))
    return right ? spaces + cut : cut + spaces
  }
}
