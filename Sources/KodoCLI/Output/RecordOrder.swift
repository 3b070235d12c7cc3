import StorageCore

/// The order of the external sort's records (`EntryRecord`), compared where they lie: the
/// `ObjectOrder` of `ExternalSorter.precedes`, on bytes instead of entries.
///
/// `OrderKey` holds what a comparison reads first (the field, and the key's first 8 bytes as a
/// number), so that most comparisons touch no record; only a tie in both reads the keys.
struct RecordOrder {
  let order: ObjectOrder
  let reverse: Bool

  /// A record's field and its key's first bytes.
  struct OrderKey {
    /// The size; the put time for `.time`; 0 for `.name`.
    var field: Int64
    /// The key's first 8 bytes, big-endian, zero-padded: ordered as the bytes are, so that
    /// only equal prefixes need the keys themselves.
    var prefix: UInt64
  }

  /// The order key of a record whose head (`EntryRecord.head`) was checked.
  func key(_ record: UnsafeRawBufferPointer) -> OrderKey {
    var result = OrderKey(field: 0, prefix: 0)
    switch order {
    case .name: break
    case .size:
      result.field =
        record.loadUnaligned(fromByteOffset: EntryRecord.sizeOffset, as: Int64.self)
        .littleEndian
    case .time:
      result.field =
        record.loadUnaligned(fromByteOffset: EntryRecord.timeOffset, as: Int64.self)
        .littleEndian
    }
    let key = Self.keyBytes(record)
    var prefix: UInt64 = 0
    for index in 0..<8 {
      prefix <<= 8
      if index < key.count { prefix |= UInt64(key[index]) }
    }
    result.prefix = prefix
    return result
  }

  /// Whether the record of order key `a` comes before that of `b`; `keys` gives the byte order
  /// of their keys (negative, zero or positive) and is only asked when both keys tie. Times
  /// compare by instant alone, as `ObjectOrder` compares them.
  @inline(__always)
  func precedes(_ a: OrderKey, _ b: OrderKey, keys: () -> Int) -> Bool {
    let order: Int
    if a.field != b.field {
      order = a.field < b.field ? -1 : 1
    } else if a.prefix != b.prefix {
      order = a.prefix < b.prefix ? -1 : 1
    } else {
      order = keys()
    }
    return reverse ? order > 0 : order < 0
  }

  /// The key's bytes of a record whose head was checked.
  static func keyBytes(_ record: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
    let length = Int(
      UInt32(
        littleEndian: record.loadUnaligned(
          fromByteOffset: EntryRecord.keyLengthOffset, as: UInt32.self)))
    let start = EntryRecord.keyOffset
    return UnsafeRawBufferPointer(rebasing: record[start..<(start + length)])
      .assumingMemoryBound(to: UInt8.self)
  }
}
