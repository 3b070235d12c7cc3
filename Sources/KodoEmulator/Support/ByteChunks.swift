#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Bodies that arrive in chunks (parts, network reads), put together, and searched.
///
/// `Array(chunks.joined())` walks the bytes one at a time through generic code: in a debug build
/// that cost about a microsecond a byte, so completing a 9 MiB upload held a thread for seconds
/// and, on a busy machine, kept a client waiting past its low-speed timeout. This copies each
/// chunk whole.
enum ByteChunks {
  /// The bytes of `chunks`, in order, in one array.
  static func concatenated(_ chunks: [[UInt8]]) -> [UInt8] {
    if chunks.count == 1 { return chunks[0] }
    var whole = [UInt8]()
    whole.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
    for chunk in chunks { whole.append(contentsOf: chunk) }
    return whole
  }

  /// Where `needle` next occurs in `haystack` at or after `start`: `memchr` to each candidate
  /// first byte and `memcmp` there, not a loop over generic slices (which cost seconds for a
  /// 9 MiB body in a debug build).
  static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard let first = needle.first, start >= 0, needle.count <= haystack.count - start else {
      return nil
    }
    return haystack.withUnsafeBytes { hay in
      needle.withUnsafeBytes { pin -> Int? in
        guard let base = hay.baseAddress, let pinBase = pin.baseAddress else { return nil }
        let last = hay.count - pin.count
        var index = start
        while index <= last {
          guard let hit = memchr(base + index, Int32(first), last - index + 1) else { return nil }
          index = base.distance(to: UnsafeRawPointer(hit))
          if memcmp(base + index, pinBase, pin.count) == 0 { return index }
          index += 1
        }
        return nil
      }
    }
  }
}
