import StorageCore

/// An `ObjectEntry` as bytes, every field kept, for the external sort (its batch in memory and
/// its runs on disk).
///
/// A record begins with what orders it, at fixed places, so that the sorter compares records
/// where they lie without decoding them: its length (the bytes after the length's own 4), the
/// size, the put time (100 ns units, then its digits), the key (4-byte length, bytes); the other
/// fields follow. Integers are little-endian; a string is its 4-byte length and its UTF-8 bytes;
/// an absent value is one 0 byte.
enum EntryRecord {
  /// Where each part of the head lies.
  static let sizeOffset = 4
  static let timeOffset = 12
  static let digitsOffset = 20
  static let keyLengthOffset = 21
  static let keyOffset = 25

  /// Appends `entry`'s record to `bytes`: its length counted first, then the bytes written
  /// in place (one growth of `bytes`, not one per field).
  static func append(_ entry: ObjectEntry, to bytes: inout [UInt8]) {
    var counter = Counter()
    encode(entry, into: &counter)
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(0, count: 4 + counter.count))
    bytes.withUnsafeMutableBytes { all in
      var writer = Writer(bytes: UnsafeMutableRawBufferPointer(rebasing: all[start...]))
      writer.int32(counter.count)
      encode(entry, into: &writer)
    }
  }

  /// The fields after the length, in order: the one description of the layout, which counts
  /// the bytes and writes them.
  private static func encode(_ entry: ObjectEntry, into sink: inout some Sink) {
    sink.int(entry.size)
    sink.int(entry.putTime.hundredNanoseconds)
    sink.byte(UInt8(truncatingIfNeeded: entry.putTime.fractionDigits))
    sink.string(entry.key)
    sink.string(entry.storageClass.name)
    sink.string(entry.storageClass.serviceName)
    sink.optional(entry.mimeType)
    sink.optional(entry.hashText)
    sink.optional(entry.etagText)
    switch entry.status {
    case nil: sink.byte(0)
    case .enabled: sink.byte(1)
    case .disabled: sink.byte(2)
    case .unknown(let code):
      sink.byte(3)
      sink.int(Int64(code))
    }
    sink.optional(entry.objectType)
    sink.optional(entry.md5Text)
    sink.optional(entry.endUser)
    if let meta = entry.meta {
      sink.byte(1)
      sink.int32(meta.count)
      for item in meta.entries {
        sink.string(item.name)
        sink.string(item.value)
      }
    } else {
      sink.byte(0)
    }
    switch entry.restoreStatus {
    case nil: sink.byte(0)
    case .restoring: sink.byte(1)
    case .restored: sink.byte(2)
    case .other(let name):
      sink.byte(3)
      sink.string(name)
    }
    if let time = entry.lastModified {
      sink.byte(1)
      sink.int(time.hundredNanoseconds)
      sink.byte(UInt8(truncatingIfNeeded: time.fractionDigits))
    } else {
      sink.byte(0)
    }
    if let parts = entry.parts {
      sink.byte(1)
      sink.int32(parts.count)
      for part in parts { sink.int(part) }
    } else {
      sink.byte(0)
    }
  }

  /// The length of the record at the start of `bytes` (its length field included), or `nil`
  /// when `bytes` does not hold it whole (more are needed).
  static func length(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard bytes.count >= 4 else { return nil }
    let length = claimedLength(bytes)
    return length <= bytes.count ? length : nil
  }

  /// The length the record at the start of `bytes` claims (its length field included); `bytes`
  /// holds at least that field.
  static func claimedLength(_ bytes: UnsafeRawBufferPointer) -> Int {
    Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))) + 4
  }

  /// Whether a whole record (as `length` measures it) holds its head: the fields before the
  /// key, and the key's bytes.
  static func hasHead(_ record: UnsafeRawBufferPointer) -> Bool {
    guard record.count >= keyOffset else { return false }
    let keyLength = UInt32(
      littleEndian: record.loadUnaligned(fromByteOffset: keyLengthOffset, as: UInt32.self))
    return Int(keyLength) <= record.count - keyOffset
  }

  /// The entry of a whole record (as `length` measures it). Every field is read into a local
  /// first and the entry made once: setting its fields one by one copies it.
  static func decode(_ record: UnsafeRawBufferPointer) throws(StorageError) -> ObjectEntry {
    var cursor = Cursor(bytes: record, offset: sizeOffset)
    let size = try cursor.int()
    let put = try cursor.int()
    let digits = try cursor.byte()
    let key = try cursor.string()
    let className = try cursor.string()
    let serviceName = try cursor.string()
    let mime = try cursor.optional()
    let hash = try cursor.optionalText()
    let etag = try cursor.optionalText()
    let status: ObjectStatus?
    switch try cursor.byte() {
    case 0: status = nil
    case 1: status = .enabled
    case 2: status = .disabled
    case 3:
      let code = try cursor.int()
      status = .unknown(Int(truncatingIfNeeded: code))
    default: throw Cursor.changed
    }
    let objectType = try cursor.optional()
    let md5 = try cursor.optionalText()
    let endUser = try cursor.optional()
    var meta: UserMetadata?
    if try cursor.flag() {
      var pairs = UserMetadata()
      let count = try cursor.int32()
      for _ in 0..<count {
        let name = try cursor.string()
        pairs[name] = try cursor.string()
      }
      meta = pairs
    }
    let restoreStatus: RestoreStatus?
    switch try cursor.byte() {
    case 0: restoreStatus = nil
    case 1: restoreStatus = .restoring
    case 2: restoreStatus = .restored
    case 3:
      let name = try cursor.string()
      restoreStatus = .other(name)
    default: throw Cursor.changed
    }
    var lastModified: Timestamp?
    if try cursor.flag() {
      let time = try cursor.int()
      let digits = try cursor.byte()
      lastModified = Timestamp(hundredNanoseconds: time, fractionDigits: Int(digits))
    }
    var parts: [Int64]?
    if try cursor.flag() {
      let count = try cursor.int32()
      var values: [Int64] = []
      values.reserveCapacity(min(count, cursor.remaining / 8))
      for _ in 0..<count { values.append(try cursor.int()) }
      parts = values
    }
    guard cursor.remaining == 0 else { throw Cursor.changed }
    return ObjectEntry(
      key: key, size: size,
      putTime: Timestamp(hundredNanoseconds: put, fractionDigits: Int(digits)),
      storageClass: StorageClass(name: className, serviceName: serviceName), mimeType: mime,
      hashText: hash, etagText: etag, status: status, objectType: objectType, md5Text: md5,
      endUser: endUser, meta: meta, restoreStatus: restoreStatus, lastModified: lastModified,
      parts: parts)
  }

  /// Where `encode` puts a record's fields.
  fileprivate protocol Sink {
    mutating func byte(_ value: UInt8)
    mutating func int(_ value: Int64)
    mutating func int32(_ value: Int)
    mutating func string(_ value: String)
    /// A string's bytes, as `string` writes them.
    mutating func utf8(_ value: UnsafeBufferPointer<UInt8>)
  }

  /// Counts the bytes of the fields.
  private struct Counter: Sink {
    var count = 0
    mutating func byte(_ value: UInt8) { count += 1 }
    mutating func int(_ value: Int64) { count += 8 }
    mutating func int32(_ value: Int) { count += 4 }
    mutating func string(_ value: String) { count += 4 + value.utf8.count }
    mutating func utf8(_ value: UnsafeBufferPointer<UInt8>) { count += 4 + value.count }
  }

  /// Writes the fields into bytes counted for them.
  private struct Writer: Sink {
    let bytes: UnsafeMutableRawBufferPointer
    var offset = 0

    init(bytes: UnsafeMutableRawBufferPointer) { self.bytes = bytes }

    mutating func byte(_ value: UInt8) {
      bytes[offset] = value
      offset += 1
    }

    mutating func int(_ value: Int64) {
      bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Int64.self)
      offset += 8
    }

    mutating func int32(_ value: Int) {
      bytes.storeBytes(
        of: UInt32(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt32.self)
      offset += 4
    }

    mutating func string(_ value: String) {
      let utf8 = value.utf8
      int32(utf8.count)
      let target = UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<(offset + utf8.count)])
      if utf8.withContiguousStorageIfAvailable({
        target.copyMemory(from: UnsafeRawBufferPointer($0))
      })
        == nil
      {
        target.copyBytes(from: utf8)
      }
      offset += utf8.count
    }

    mutating func utf8(_ value: UnsafeBufferPointer<UInt8>) {
      int32(value.count)
      UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<(offset + value.count)])
        .copyMemory(from: UnsafeRawBufferPointer(value))
      offset += value.count
    }
  }

  /// Reads a record's fields in order; each read throws when the bytes end first.
  private struct Cursor {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    static var changed: StorageError {
      StorageError(.localIO, "a temporary file of the sort was changed while it was read")
    }

    var remaining: Int { bytes.count - offset }

    mutating func byte() throws(StorageError) -> UInt8 {
      guard offset < bytes.count else { throw Self.changed }
      defer { offset += 1 }
      return bytes[offset]
    }

    /// A presence byte: 1 present, 0 absent.
    mutating func flag() throws(StorageError) -> Bool {
      switch try byte() {
      case 0: return false
      case 1: return true
      default: throw Self.changed
      }
    }

    mutating func int() throws(StorageError) -> Int64 {
      guard remaining >= 8 else { throw Self.changed }
      defer { offset += 8 }
      return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    }

    mutating func int32() throws(StorageError) -> Int {
      guard remaining >= 4 else { throw Self.changed }
      defer { offset += 4 }
      return Int(
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    mutating func string() throws(StorageError) -> String {
      let length = try int32()
      guard length <= remaining else { throw Self.changed }
      defer { offset += length }
      return String(
        decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
          .assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    mutating func optional() throws(StorageError) -> String? {
      guard try flag() else { return nil }
      return try string()
    }

    /// An optional string as `InlineText` (short ASCII made with no string).
    mutating func optionalText() throws(StorageError) -> InlineText? {
      guard try flag() else { return nil }
      let length = try int32()
      guard length <= remaining else { throw Self.changed }
      defer { offset += length }
      return InlineText(utf8: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
    }
  }
}

extension EntryRecord.Sink {
  /// An optional string: 0, or 1 and the string.
  fileprivate mutating func optional(_ value: String?) {
    guard let value else {
      byte(0)
      return
    }
    byte(1)
    string(value)
  }

  /// An optional `InlineText`, as `optional` writes a string.
  fileprivate mutating func optional(_ value: InlineText?) {
    guard let value else {
      byte(0)
      return
    }
    byte(1)
    value.withUTF8 { utf8($0) }
  }
}
