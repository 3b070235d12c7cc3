/// The names of a folder's objects (keys after the folder's prefix) lower-cased, back to back in
/// one buffer, made once when a filter begins in a large folder and dropped with the filter: a
/// pass of the filter then reads bytes in a row, rather than each key's string (whose retain and
/// release cost as much as the comparison). Names that are not plain ASCII (or hold a CR), and
/// keys outside the prefix, are flagged and compared as `NameFilter` compares them.
struct FilterNames {
  /// The lower-cased names.
  private var bytes: [UInt8] = []
  /// Where each object's name ends in `bytes` (it starts where the one before ends), with
  /// `other` set for a name compared the slow way.
  private var ends: [UInt32] = []

  private static let other: UInt32 = 1 << 31
  /// Folders with fewer objects are filtered without it.
  static let minimumCount = 4096

  /// No names (a pass that does not use them).
  init() {}

  /// The names of `objects` after `prefix`; `nil` when they would not fit.
  init?(_ objects: [StoredObject], prefix: String) {
    let prefixBytes = Array(prefix.utf8)
    ends.reserveCapacity(objects.count)
    var failed = false
    objects.withUnsafeBufferPointer { objects in
      prefixBytes.withUnsafeBufferPointer { prefix in
        for object in objects {
          let plain =
            object.key.utf8.withContiguousStorageIfAvailable { all -> Bool in
              guard all.count >= prefix.count,
                UnsafeBufferPointer(rebasing: all[..<prefix.count]).elementsEqual(prefix)
              else { return false }
              let name = UnsafeBufferPointer(rebasing: all[prefix.count...])
              for byte in name where byte >= 0x80 || byte == 0x0D { return false }
              for byte in name { bytes.append(byte &- 0x41 < 26 ? byte | 0x20 : byte) }
              return true
            } ?? false
          guard bytes.count < Int(Self.other) else {
            failed = true
            return
          }
          ends.append(UInt32(bytes.count) | (plain ? 0 : Self.other))
        }
      }
    }
    if failed { return nil }
  }

  /// Whether object `index`'s name holds `needle` (lower-case ASCII, no CR); `nil` when that
  /// name is compared the slow way.
  @inline(__always)
  func holds(
    _ index: Int, _ needle: UnsafeBufferPointer<UInt8>, in names: UnsafeBufferPointer<UInt8>,
    ends: UnsafeBufferPointer<UInt32>
  ) -> Bool? {
    let end = ends[index]
    if end & Self.other != 0 { return nil }
    let start = index == 0 ? 0 : Int(ends[index - 1] & ~Self.other)
    let stop = Int(end)
    let count = needle.count
    if count == 0 { return true }
    guard stop - start >= count else { return false }
    let first = needle[0]
    var at = start
    while at <= stop - count {
      if names[at] == first {
        var matched = 1
        while matched < count && names[at + matched] == needle[matched] { matched += 1 }
        if matched == count { return true }
      }
      at += 1
    }
    return false
  }

  /// Runs `body` with the buffers `holds` reads.
  func withBuffers<T>(
    _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt32>) -> T
  ) -> T {
    bytes.withUnsafeBufferPointer { names in ends.withUnsafeBufferPointer { body(names, $0) } }
  }

  /// The filter's needle as `holds` takes it: lower-cased, when it is plain ASCII without CR.
  static func needle(_ filter: String) -> [UInt8]? {
    let bytes = Array(filter.lowercased().utf8)
    return bytes.allSatisfy { $0 < 0x80 && $0 != 0x0D } ? bytes : nil
  }
}
