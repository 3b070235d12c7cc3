import StorageCore

/// Turns listing entries into output in one of the three formats, at byte level (a listing may
/// write a million lines): human text (`TerminalText`), JSON Lines, or NUL-separated keys.
///
/// Human text is escaped (`DisplayText`'s rules) and names are shown relative to the folder being
/// listed: what follows the last `/` of the prefix, as `aws s3 ls` and `mc ls` show them. A name
/// with leading or trailing spaces is shown in double quotes so the spaces can be seen.
struct ListRenderer {
  enum Mode { case text, json, nul }

  /// What `-l` shows after the size and the time, for what the provider's listings carry.
  struct LongColumns {
    /// The width of the hash column (the provider's digest: Kodo's hash 28, OSS's ETag 32).
    var hashWidth: Int = 32
    /// Whether listings carry MIME types (when they never do, there is no column of `-`).
    var mimeTypes: Bool = true
  }

  let mode: Mode
  let long: Bool
  let humanSizes: Bool
  let palette: Palette
  let columns: LongColumns
  /// Whether the listing is one level (folders are counted), not recursive.
  private let oneLevel: Bool
  /// The part of every key that is not shown in text mode (the prefix up to its last `/`).
  private let hiddenPrefix: [UInt8]
  private(set) var folderCount: Int64 = 0
  private(set) var objectCount: Int64 = 0
  private(set) var totalSize: Int64 = 0
  /// Keys left out of `-0` output: a NUL inside one would split its record in two.
  private(set) var keysWithNUL: Int64 = 0
  /// How many of those get a warning line of their own.
  private static let namedKeysWithNUL = 10

  /// A renderer; `relativeTo` is the listed prefix for a one-level listing (`nil`: full keys).
  init(
    mode: Mode, long: Bool, humanSizes: Bool, relativeTo prefix: String?, palette: Palette,
    columns: LongColumns = LongColumns()
  ) {
    self.mode = mode
    self.long = long
    self.humanSizes = humanSizes
    self.palette = palette
    self.columns = columns
    oneLevel = prefix != nil
    if let prefix, let slash = prefix.utf8.lastIndex(of: UInt8(ascii: "/")) {
      hiddenPrefix = Array(prefix.utf8[...slash])
    } else {
      hiddenPrefix = []
    }
  }

  private var sizeWidth: Int { humanSizes ? 10 : 14 }
  /// The storage class's width: every class but `intelligent_tiering` fits.
  private static let classWidth = 12
  /// The content type's width: `image/jpeg`, `application/json` fit.
  private static let mimeWidth = 20
  /// Storage class, hash and content type, each followed by two spaces (a row stays within 120
  /// columns for names up to 24 characters).
  private var longColumnsWidth: Int {
    Self.classWidth + 2 + columns.hashWidth + 2 + (columns.mimeTypes ? Self.mimeWidth + 2 : 0)
  }

  /// Writes folders (common prefixes).
  mutating func prefixes(_ prefixes: [String], to output: OutputStream) throws(StorageError) {
    folderCount += Int64(prefixes.count)
    switch mode {
    case .json:
      try output.jsonLines { lines in
        for prefix in prefixes {
          lines.line { line in
            line.literal("type", "prefix")
            line.string("key", prefix)
          }
        }
      }
    case .nul:
      var records: [String] = []
      for prefix in prefixes where recordable(prefix) { records.append(prefix) }
      try output.nulSeparated(records)
    case .text:
      try output.text { text in
        for prefix in prefixes { appendFolderRow(prefix, to: &text) }
      }
    }
  }

  /// Writes objects; in text mode into `held` when given (to be written after every folder).
  mutating func objects(
    _ objects: [ObjectEntry], to output: OutputStream, held: HeldOutput? = nil
  ) throws(StorageError) {
    // Every entry is read in place through the array's buffer (`entries[index]` is a borrow):
    // `for object in objects`, or `objects[index].size`, copies each entry (a retain and a
    // release per field) only to read it.
    try objects.withUnsafeBufferPointer { (entries) throws(StorageError) in
      try self.objects(entries, to: output, held: held)
    }
  }

  private mutating func objects(
    _ entries: UnsafeBufferPointer<ObjectEntry>, to output: OutputStream, held: HeldOutput?
  ) throws(StorageError) {
    objectCount += Int64(entries.count)
    for index in entries.indices {
      // Sizes are the service's numbers: an absurd total saturates instead of crashing.
      let size = entries[index].size
      let (sum, overflow) = totalSize.addingReportingOverflow(size)
      totalSize = overflow ? (size < 0 ? .min : .max) : sum
    }
    switch mode {
    case .json:
      guard let first = entries.baseAddress else { return }
      try output.jsonLines { lines in
        for index in entries.indices {
          lines.line { line in
            line.literal("type", "object")
            ObjectEntry.appendJSONFields(of: first + index, to: &line)
          }
        }
      }
    case .nul:
      var records: [String] = []
      records.reserveCapacity(entries.count)
      for index in entries.indices where recordable(entries[index].key) {
        records.append(entries[index].key)
      }
      try output.nulSeparated(records)
    case .text:
      let rows = { (text: inout TerminalText) in
        for index in entries.indices { appendObjectRow(entries[index], to: &text) }
      }
      if let held { try held.hold(rows) } else { try output.text(rows) }
    }
  }

  /// Whether `key` can be one `-0` record; a key holding a NUL cannot, and is counted and named
  /// in a warning instead (see `checkRecords`).
  private mutating func recordable(_ key: String) -> Bool {
    guard key.utf8.contains(0) else { return true }
    keysWithNUL += 1
    if keysWithNUL <= Self.namedKeysWithNUL {
      Diagnostics.warning(
        "left \(DisplayText(quoting: key)) out of the -0 output: it holds a NUL byte, which would split its record"
      )
    }
    return false
  }

  /// Throws when keys were left out of `-0` output (exit 65), after everything else was written.
  func checkRecords() throws(StorageError) {
    guard keysWithNUL > 0 else { return }
    let keys = keysWithNUL == 1 ? "1 key" : "\(keysWithNUL) keys"
    throw StorageError(
      .invalidInput,
      "\(keys) holding a NUL byte left out of the -0 output; list them with --json to see them")
  }

  private func appendFolderRow(_ prefix: String, to text: inout TerminalText) {
    Human.appendRightAligned("DIR", width: sizeWidth, to: &text)
    text.appendSpaces(2 + 16 + 2)
    if long { text.appendSpaces(longColumnsWidth) }
    palette.appendFolder(name: name(of: prefix), to: &text)
    text.appendNewline()
  }

  private func appendObjectRow(_ object: ObjectEntry, to text: inout TerminalText) {
    if humanSizes {
      Human.appendRightAligned(Human.size(object.size), width: sizeWidth, to: &text)
    } else {
      text.appendSpaces(sizeWidth - Self.decimalWidth(object.size))
      text.append(decimal: object.size)
    }
    text.appendLiteral("  ")
    LocalTime.appendDateAndMinute(object.putTime.unixSeconds, to: &text)
    text.appendLiteral("  ")
    if long {
      var storage = DisplayText(escaping: object.storageClass.name)
      if object.status == .disabled { storage += ",disabled" }
      Human.appendPadded(storage, width: Self.classWidth, to: &text)
      text.appendLiteral("  ")
      Human.appendPadded(
        DisplayText(escaping: object.hash ?? object.etag ?? "-"), width: columns.hashWidth,
        to: &text)
      text.appendLiteral("  ")
      if columns.mimeTypes {
        Human.appendPadded(
          DisplayText(escaping: object.mimeType ?? "-"), width: Self.mimeWidth, to: &text)
        text.appendLiteral("  ")
      }
    }
    text.append(name: name(of: object.key))
    text.appendNewline()
  }

  /// The part of `key` shown in text mode.
  private func name(of key: String) -> Substring {
    guard !hiddenPrefix.isEmpty, key.utf8.count > hiddenPrefix.count,
      key.utf8.starts(with: hiddenPrefix)
    else { return Substring(key) }
    let start = key.utf8.index(key.utf8.startIndex, offsetBy: hiddenPrefix.count)
    return key[start...]
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
  mutating func summary(partial: Bool, to output: OutputStream) throws(StorageError) {
    switch mode {
    case .json:
      var line = JSONLine()
      line.string("type", "summary")
      line.int("prefixes", folderCount)
      line.int("objects", objectCount)
      line.int("size", totalSize)
      if partial { line.bool("partial", true) }
      try output.write(line)
    case .nul:
      break
    case .text:
      let folders: DisplayText = "\(folderCount) folder\(folderCount == 1 ? "" : "s")"
      let objects: DisplayText = "\(objectCount) object\(objectCount == 1 ? "" : "s")"
      // A recursive listing has no folders to count.
      var text: DisplayText =
        (oneLevel ? "\(folders), " : "")
        + "\(objects), \(totalSize) bytes (\(Human.size(totalSize)))"
      if partial { text += " so far: the listing stopped early, these totals are partial" }
      try output.line(palette.bold(text))
    }
  }
}
