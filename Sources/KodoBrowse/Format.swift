package import StorageCore

/// Sizes, times and counts as the browser shows them.
package enum Format {
  /// `512 B`, `64.9 KiB`, `1.2 MiB`.
  package static func size(_ bytes: Int64) -> String {
    ByteSize.text(bytes, wholeFrom100: false)
  }

  /// `12,345`.
  package static func count(_ number: Int) -> String {
    let digits = String(number)
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
      out.append(digit)
    }
    return out
  }

  /// `1 entry`, `2 entries`, `12,345 entries`.
  package static func count(_ number: Int, _ one: String, _ many: String) -> String {
    count(number) + " " + (number == 1 ? one : many)
  }

  /// A name or key as the browser shows it, as the CLI does: escaped, and in double quotes
  /// when it is empty or has a space at either end (a folder's own `/` aside), so that the
  /// spaces can be seen.
  package static func name(_ raw: String) -> String {
    let bare = KeySegments.endsWithSlash(raw) ? raw.utf8.dropLast() : raw.utf8[...]
    let space = UInt8(ascii: " ")
    guard let first = bare.first, let last = bare.last, first != space, last != space else {
      return Fit.visible(DisplayText.quoted(raw))
    }
    return Fit.visible(raw)
  }

  /// `2024-05-12 11:51` in UTC.
  package static func minute(_ time: Timestamp) -> String {
    let civil = CivilTime(unixSeconds: time.unixSeconds)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return
      "\(civil.year)-\(two(civil.month))-\(two(civil.day)) \(two(civil.hour)):\(two(civil.minute))"
  }
}
