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
  /// The rows' local times.
  private var clock = LocalClock()
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
      try output.nulSeparated { records in
        for prefix in prefixes where !records.append(prefix) { leaveOut(prefix) }
      }
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
      try output.nulSeparated { records in
        for index in entries.indices where !records.append(entries[index].key) {
          leaveOut(entries[index].key)
        }
      }
    case .text:
      if let held {
        try held.hold { text in appendObjectRows(entries, to: &text) }
      } else {
        try output.text { text in appendObjectRows(entries, to: &text) }
      }
    }
  }

  /// Counts, and names in a warning, a key left out of `-0` output because it holds a NUL
  /// (`NulRecords.append` refused it; see `checkRecords`).
  private mutating func leaveOut(_ key: String) {
    keysWithNUL += 1
    if keysWithNUL <= Self.namedKeysWithNUL {
      Diagnostics.warning(
        "left \(DisplayText(quoting: key)) out of the -0 output: it holds a NUL byte, which would split its record"
      )
    }
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

  private mutating func appendObjectRows(
    _ entries: UnsafeBufferPointer<ObjectEntry>, to text: inout TerminalText
  ) {
    guard let first = entries.baseAddress else { return }
    for index in entries.indices { appendObjectRow(first + index, to: &text) }
  }

  /// One object's row, written at once into room reserved for its worst case (`TerminalRow`).
  /// The entry is read where it lies: the closures capture its address, not a copy of it.
  private mutating func appendObjectRow(
    _ object: UnsafePointer<ObjectEntry>, to text: inout TerminalText
  ) {
    let size = object.pointee.size
    let seconds = object.pointee.putTime.unixSeconds
    let humanSize = humanSizes ? Human.size(size) : nil
    // The size, the time and the two spaces after each, and the newline.
    let room =
      max(sizeWidth, humanSize?.text.utf8.count ?? DecimalText.maximumLength())
      + LocalClock.maximumLength + 5
    TerminalText.withName(name(of: object.pointee.key)) { name in
      guard long else {
        text.row(room: room + name.bytes.count) { row in
          appendSizeAndTime(size, seconds, humanSize: humanSize, to: &row)
          row.append(name)
          row.appendNewline()
        }
        return
      }
      let storage = Substring(object.pointee.storageClass.name)
      // The digest's bytes are borrowed where they lie (`hashText`): `hash` would make a
      // `String` a row.
      let hash = object.pointee.hashText ?? object.pointee.etagText ?? Self.noDigest
      let mimeType = columns.mimeTypes ? Substring(object.pointee.mimeType ?? "-") : ""
      TerminalText.withEscaped(storage) { storage in
        TerminalText.withEscaped(hash) { hash in
          TerminalText.withEscaped(mimeType) { mimeType in
            let columnsRoom =
              storage.bytes.count + Self.disabled.utf8CodeUnitCount + hash.bytes.count
              + mimeType.bytes.count + longColumnsWidth
            text.row(room: room + columnsRoom + name.bytes.count) { row in
              appendSizeAndTime(size, seconds, humanSize: humanSize, to: &row)
              row.append(storage)
              var storageWidth = storage.characterCount
              if object.pointee.status == .disabled {
                row.appendLiteral(Self.disabled)
                storageWidth += Self.disabled.utf8CodeUnitCount
              }
              row.appendSpaces(max(0, Self.classWidth - storageWidth) + 2)
              row.append(hash)
              row.appendSpaces(max(0, columns.hashWidth - hash.characterCount) + 2)
              if columns.mimeTypes {
                row.append(mimeType)
                row.appendSpaces(max(0, Self.mimeWidth - mimeType.characterCount) + 2)
              }
              row.append(name)
              row.appendNewline()
            }
          }
        }
      }
    }
  }

  /// What `-l` adds to a disabled object's storage class.
  private static let disabled: StaticString = ",disabled"
  /// The digest column of an object without one.
  private static let noDigest = InlineText("-")

  /// The size and the local time, each followed by two spaces.
  private mutating func appendSizeAndTime(
    _ size: Int64, _ unixSeconds: Int64, humanSize: DisplayText?, to row: inout TerminalRow
  ) {
    if let humanSize {
      row.appendSpaces(sizeWidth - humanSize.text.utf8.count)
      row.append(humanSize)
    } else {
      row.append(decimal: size, rightAlignedIn: sizeWidth)
    }
    row.appendLiteral("  ")
    clock.append(unixSeconds, to: &row)
    row.appendLiteral("  ")
  }

  /// The part of `key` shown in text mode.
  private func name(of key: String) -> Substring {
    guard !hiddenPrefix.isEmpty, key.utf8.count > hiddenPrefix.count,
      key.utf8.starts(with: hiddenPrefix)
    else { return Substring(key) }
    let start = key.utf8.index(key.utf8.startIndex, offsetBy: hiddenPrefix.count)
    return key[start...]
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
