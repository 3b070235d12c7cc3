import StorageCore

/// Turns listing entries into output bytes in one of the three formats, at byte level (a listing
/// may write a million lines): human text, JSON Lines, or NUL-separated keys.
///
/// Human text is escaped (`DisplayText`'s rules) and names are shown relative to the folder being
/// listed: what follows the last `/` of the prefix, as `aws s3 ls` and `mc ls` show them. A name
/// with leading or trailing spaces is shown in double quotes so the spaces can be seen.
struct ListRenderer {
  enum Mode { case text, json, nul }

  let mode: Mode
  let long: Bool
  let humanSizes: Bool
  let palette: Palette
  /// The part of every key that is not shown in text mode (the prefix up to its last `/`).
  private let hiddenPrefix: [UInt8]
  private(set) var folderCount: Int64 = 0
  private(set) var objectCount: Int64 = 0
  private(set) var totalSize: Int64 = 0

  /// A renderer; `relativeTo` is the listed prefix for a one-level listing (`nil`: full keys).
  init(mode: Mode, long: Bool, humanSizes: Bool, relativeTo prefix: String?, palette: Palette) {
    self.mode = mode
    self.long = long
    self.humanSizes = humanSizes
    self.palette = palette
    if let prefix, let slash = prefix.utf8.lastIndex(of: UInt8(ascii: "/")) {
      hiddenPrefix = Array(prefix.utf8[...slash])
    } else {
      hiddenPrefix = []
    }
  }

  private var sizeWidth: Int { humanSizes ? 10 : 14 }
  /// Storage class (20), hash (28) and content type (24), each followed by two spaces.
  private static let longColumnsWidth = 22 + 30 + 26

  mutating func prefixes(_ prefixes: [String], into buffer: inout [UInt8]) {
    folderCount += Int64(prefixes.count)
    for prefix in prefixes {
      switch mode {
      case .json:
        JSONLine.append(to: &buffer) { line in
          line.string("type", "prefix")
          line.string("key", prefix)
        }
      case .nul:
        buffer.append(contentsOf: prefix.utf8)
        buffer.append(0)
      case .text:
        Human.appendRightAligned("DIR", width: sizeWidth, to: &buffer)
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 + 16 + 2))
        if long {
          buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: Self.longColumnsWidth))
        }
        if palette.enabled {
          buffer.append(
            contentsOf: palette.folder(DisplayText(escaping: name(of: prefix))).text.utf8)
        } else {
          appendName(of: prefix, to: &buffer)
        }
        buffer.append(UInt8(ascii: "\n"))
      }
    }
  }

  mutating func objects(_ objects: [ObjectEntry], into buffer: inout [UInt8]) {
    objectCount += Int64(objects.count)
    for object in objects {
      // Sizes are the service's numbers: an absurd total saturates instead of crashing.
      let (sum, overflow) = totalSize.addingReportingOverflow(object.size)
      totalSize = overflow ? (object.size < 0 ? .min : .max) : sum
      switch mode {
      case .json:
        JSONLine.append(to: &buffer) { line in
          line.string("type", "object")
          object.appendJSONFields(to: &line)
        }
      case .nul:
        buffer.append(contentsOf: object.key.utf8)
        buffer.append(0)
      case .text:
        appendTextRow(object, to: &buffer)
      }
    }
  }

  private func appendTextRow(_ object: ObjectEntry, to buffer: inout [UInt8]) {
    if humanSizes {
      Human.appendRightAligned(Human.size(object.size), width: sizeWidth, to: &buffer)
    } else {
      let digits = Self.decimalWidth(object.size)
      if digits < sizeWidth {
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: sizeWidth - digits))
      }
      DecimalText.append(object.size, to: &buffer)
    }
    buffer.append(UInt8(ascii: " "))
    buffer.append(UInt8(ascii: " "))
    LocalTime.appendDateAndMinute(object.putTime.unixSeconds, to: &buffer)
    buffer.append(UInt8(ascii: " "))
    buffer.append(UInt8(ascii: " "))
    if long {
      var storage = object.storageClass.name
      if object.status == .disabled { storage += ",disabled" }
      Human.appendPadded(DisplayText.escaped(storage), width: 20, to: &buffer)
      buffer.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: " ")])
      Human.appendPadded(
        DisplayText.escaped(object.hash ?? object.etag ?? "-"), width: 28, to: &buffer)
      buffer.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: " ")])
      Human.appendPadded(DisplayText.escaped(object.mimeType ?? "-"), width: 24, to: &buffer)
      buffer.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: " ")])
    }
    appendName(of: object.key, to: &buffer)
    buffer.append(UInt8(ascii: "\n"))
  }

  /// The part of `key` shown in text mode.
  private func name(of key: String) -> Substring {
    guard !hiddenPrefix.isEmpty, key.utf8.count > hiddenPrefix.count,
      key.utf8.starts(with: hiddenPrefix)
    else { return Substring(key) }
    let start = key.utf8.index(key.utf8.startIndex, offsetBy: hiddenPrefix.count)
    return key[start...]
  }

  /// Appends the escaped name; copies its bytes as they are when nothing needs escaping.
  private func appendName(of key: String, to buffer: inout [UInt8]) {
    let name = self.name(of: key)
    let fast = name.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      guard let first = bytes.first, let last = bytes.last, first != UInt8(ascii: " "),
        last != UInt8(ascii: " "), !DisplayText.mayNeedEscaping(bytes)
      else { return false }
      buffer.append(contentsOf: bytes)
      return true
    }
    guard fast != true else { return }
    if name.first == " " || name.last == " " || name.isEmpty {
      buffer.append(contentsOf: DisplayText.quoted(name).utf8)
    } else {
      buffer.append(contentsOf: DisplayText.escaped(name).utf8)
    }
  }

  /// The number of characters `value` takes in decimal.
  private static func decimalWidth(_ value: Int64) -> Int {
    var magnitude = value.magnitude
    var digits = value < 0 ? 2 : 1
    while magnitude >= 10 {
      magnitude /= 10
      digits += 1
    }
    return digits
  }

  /// The closing summary; `partial` when the listing stopped before its end.
  mutating func summary(partial: Bool, into buffer: inout [UInt8]) {
    switch mode {
    case .json:
      JSONLine.append(to: &buffer) { line in
        line.string("type", "summary")
        line.int("prefixes", folderCount)
        line.int("objects", objectCount)
        line.int("size", totalSize)
        if partial { line.bool("partial", true) }
      }
    case .nul:
      break
    case .text:
      let folders: DisplayText = "\(folderCount) folder\(folderCount == 1 ? "" : "s")"
      let objects: DisplayText = "\(objectCount) object\(objectCount == 1 ? "" : "s")"
      var text: DisplayText =
        "\(folders), \(objects), \(totalSize) bytes (\(Human.size(totalSize)))"
      if partial { text += " so far: the listing stopped early, these totals are partial" }
      buffer.append(contentsOf: palette.bold(text).text.utf8)
      buffer.append(UInt8(ascii: "\n"))
    }
  }
}
