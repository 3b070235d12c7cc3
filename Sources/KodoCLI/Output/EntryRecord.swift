import StorageCore

/// An `ObjectEntry` as bytes, every field kept, for the runs of the external sort.
enum EntryRecord {
  static func append(_ entry: ObjectEntry, to bytes: inout [UInt8]) {
    var record: [UInt8] = []
    string(entry.key, &record)
    int(entry.size, &record)
    int(entry.putTime.hundredNanoseconds, &record)
    int(Int64(entry.putTime.fractionDigits), &record)
    string(entry.storageClass.name, &record)
    string(entry.storageClass.serviceName, &record)
    optional(entry.mimeType, &record)
    optional(entry.hash, &record)
    optional(entry.etag, &record)
    optional(entry.status.map(\.name), &record)
    optional(entry.objectType, &record)
    optional(entry.md5, &record)
    optional(entry.endUser, &record)
    if let meta = entry.meta {
      record.append(1)
      int(Int64(meta.count), &record)
      for (name, value) in meta {
        string(name, &record)
        string(value, &record)
      }
    } else {
      record.append(0)
    }
    optional(entry.restoreStatus.map(\.name), &record)
    if let time = entry.lastModified {
      record.append(1)
      int(time.hundredNanoseconds, &record)
      int(Int64(time.fractionDigits), &record)
    } else {
      record.append(0)
    }
    if let parts = entry.parts {
      record.append(1)
      int(Int64(parts.count), &record)
      for part in parts { int(part, &record) }
    } else {
      record.append(0)
    }
    int(Int64(record.count), &bytes)
    bytes.append(contentsOf: record)
  }

  /// Reads one record at `offset` of `bytes`, advancing it; `nil` when the record is not whole
  /// yet (more bytes are needed).
  static func read(_ bytes: [UInt8], at offset: inout Int) throws(StorageError) -> ObjectEntry? {
    var cursor = Cursor(bytes: bytes, offset: offset)
    guard let length = cursor.int(), cursor.offset + Int(length) <= bytes.count else {
      return nil
    }
    let entry = try decode(&cursor)
    offset = cursor.offset
    return entry
  }

  private static func decode(_ cursor: inout Cursor) throws(StorageError) -> ObjectEntry {
    func corrupt() -> StorageError {
      StorageError(.localIO, "a temporary file of the sort was changed while it was read")
    }
    guard let key = cursor.string(), let size = cursor.int(), let put = cursor.int(),
      let digits = cursor.int(), let className = cursor.string(),
      let serviceName = cursor.string()
    else { throw corrupt() }
    var entry = ObjectEntry(
      key: key, size: size,
      putTime: Timestamp(hundredNanoseconds: put, fractionDigits: Int(digits)),
      storageClass: StorageClass(name: className, serviceName: serviceName))
    guard let mime = cursor.optional(), let hash = cursor.optional(),
      let etag = cursor.optional(), let status = cursor.optional(),
      let objectType = cursor.optional(), let md5 = cursor.optional(),
      let endUser = cursor.optional()
    else { throw corrupt() }
    entry.mimeType = mime
    entry.hash = hash
    entry.etag = etag
    entry.status = status.map { name -> ObjectStatus in
      switch name {
      case "enabled": .enabled
      case "disabled": .disabled
      default: .unknown(Int(name.dropFirst("status_".count)) ?? -1)
      }
    }
    entry.objectType = objectType
    entry.md5 = md5
    entry.endUser = endUser
    guard let hasMeta = cursor.byte() else { throw corrupt() }
    if hasMeta == 1 {
      guard let count = cursor.int(), count >= 0 else { throw corrupt() }
      var meta = UserMetadata()
      for _ in 0..<count {
        guard let name = cursor.string(), let value = cursor.string() else { throw corrupt() }
        meta[name] = value
      }
      entry.meta = meta
    }
    guard let restore = cursor.optional() else { throw corrupt() }
    entry.restoreStatus = restore.map { name -> RestoreStatus in
      switch name {
      case "restoring": .restoring
      case "restored": .restored
      default: .other(name)
      }
    }
    guard let hasModified = cursor.byte() else { throw corrupt() }
    if hasModified == 1 {
      guard let time = cursor.int(), let digits = cursor.int() else { throw corrupt() }
      entry.lastModified = Timestamp(hundredNanoseconds: time, fractionDigits: Int(digits))
    }
    guard let hasParts = cursor.byte() else { throw corrupt() }
    if hasParts == 1 {
      guard let count = cursor.int(), count >= 0 else { throw corrupt() }
      var parts: [Int64] = []
      for _ in 0..<count {
        guard let part = cursor.int() else { throw corrupt() }
        parts.append(part)
      }
      entry.parts = parts
    }
    return entry
  }

  private static func int(_ value: Int64, _ bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  private static func string(_ value: String, _ bytes: inout [UInt8]) {
    int(Int64(value.utf8.count), &bytes)
    bytes.append(contentsOf: value.utf8)
  }

  private static func optional(_ value: String?, _ bytes: inout [UInt8]) {
    guard let value else {
      bytes.append(0)
      return
    }
    bytes.append(1)
    string(value, &bytes)
  }

  private struct Cursor {
    let bytes: [UInt8]
    var offset: Int

    mutating func byte() -> UInt8? {
      guard offset < bytes.count else { return nil }
      defer { offset += 1 }
      return bytes[offset]
    }

    mutating func int() -> Int64? {
      guard offset + 8 <= bytes.count else { return nil }
      var value: UInt64 = 0
      for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
      offset += 8
      return Int64(bitPattern: value)
    }

    mutating func string() -> String? {
      guard let length = int(), length >= 0, offset + Int(length) <= bytes.count else {
        return nil
      }
      defer { offset += Int(length) }
      return String(decoding: bytes[offset..<(offset + Int(length))], as: UTF8.self)
    }

    /// `nil` when the bytes end; `.some(nil)` for an absent value.
    mutating func optional() -> String?? {
      guard let flag = byte() else { return nil }
      guard flag == 1 else { return .some(nil) }
      guard let value = string() else { return nil }
      return .some(value)
    }
  }
}
