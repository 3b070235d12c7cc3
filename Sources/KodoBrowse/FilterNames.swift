/// The names of a folder's objects (keys after the folder's prefix) lower-cased, back to back in
/// one buffer, kept by the folder as its objects arrive, go and come (`Folder.add`, `insert`,
/// `remove`): a pass of the filter then reads bytes in a row, rather than each key's string
/// (whose retain and release cost as much as the comparison), and no keystroke has to make them
/// (making them for 1,000,000 objects at the first key took more than a frame). Names that are
/// not plain ASCII (or hold a CR), and keys outside the prefix, are flagged and compared as
/// `NameFilter` compares them.
struct FilterNames: Sendable, Equatable {
  /// The folder's prefix.
  private var prefix: [UInt8] = []
  /// The lower-cased names.
  private var bytes: [UInt8] = []
  /// Where each object's name ends in `bytes` (it starts where the one before ends), with
  /// `other` set for a name compared the slow way.
  private var ends: [UInt32] = []
  /// Set once the names outgrew what `ends` can say: they are dropped and every name is
  /// compared the slow way from then on.
  private var overflowed = false

  private static let other: UInt32 = 1 << 31

  /// No names yet, for objects under `prefix`.
  init(prefix: String = "") {
    self.prefix = Array(prefix.utf8)
  }

  /// How many objects' names are kept: the folder's object count, unless they outgrew the
  /// buffer (then 0, and no name is read from it).
  var count: Int { ends.count }

  /// Whether the names are those of objects under `prefix`.
  func isFor(prefix: String) -> Bool {
    self.prefix.elementsEqual(prefix.utf8)
  }

  /// Adds the name of the object `key`, the folder's next one.
  mutating func append(_ key: String) {
    if overflowed { return }
    let prefix = self.prefix
    var names: [UInt8] = []
    swap(&names, &bytes)
    defer { swap(&names, &bytes) }
    let plain =
      key.utf8.withContiguousStorageIfAvailable { all -> Bool in
        prefix.withUnsafeBufferPointer { prefix in
          guard all.count >= prefix.count,
            UnsafeBufferPointer(rebasing: all[..<prefix.count]).elementsEqual(prefix)
          else { return false }
          let name = UnsafeBufferPointer(rebasing: all[prefix.count...])
          for byte in name where byte >= 0x80 || byte == 0x0D { return false }
          for byte in name { names.append(byte &- 0x41 < 26 ? byte | 0x20 : byte) }
          return true
        }
      } ?? false
    guard names.count < Int(Self.other) else {
      overflowed = true
      names = []
      ends = []
      return
    }
    ends.append(UInt32(names.count) | (plain ? 0 : Self.other))
  }

  /// Keeps the names of the objects `kept` keeps (`kept[index] >= 0`), in their order, as the
  /// folder keeps its objects.
  mutating func keep(_ kept: [Int]) {
    guard !overflowed, kept.count == ends.count else { return }
    var names: [UInt8] = []
    var stops: [UInt32] = []
    swap(&names, &bytes)
    swap(&stops, &ends)
    var write = 0
    var count = 0
    names.withUnsafeMutableBufferPointer { names in
      stops.withUnsafeMutableBufferPointer { stops in
        var start = 0
        for index in stops.indices {
          let end = stops[index]
          let stop = Int(end & ~Self.other)
          if kept[index] >= 0 {
            for at in start..<stop {
              names[write] = names[at]
              write += 1
            }
            stops[count] = UInt32(write) | (end & Self.other)
            count += 1
          }
          start = stop
        }
      }
    }
    names.removeSubrange(write...)
    stops.removeSubrange(count...)
    bytes = names
    ends = stops
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
