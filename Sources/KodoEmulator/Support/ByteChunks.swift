#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Byte search over bodies (form boundaries, the wrong-digest fault's look for a hash).
///
/// Generic slice-by-slice loops cost about a microsecond a byte in a debug build: a 9 MiB body
/// held a thread for seconds. This uses `memchr` and `memcmp`.
enum ByteChunks {
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
