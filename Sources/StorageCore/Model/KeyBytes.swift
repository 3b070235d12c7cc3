#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keys ordered by their bytes: the services' order (String's `<` compares canonical
/// equivalents, which two keys may be without being the same; `ExactKey.same` tests equality).
/// The one comparison behind a listing's order check, `--sort`'s ties and the browser's rows.
package enum KeyBytes {
  /// Whether `a`'s bytes sort strictly before `b`'s.
  package static func precede(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

  /// -1, 0 or 1 as `a`'s bytes sort before, the same as, or after `b`'s.
  package static func compare(_ a: String, _ b: String) -> Int {
    // Native strings compare with one `memcmp` (a listing compares a million neighbours).
    let quick = a.utf8.withContiguousStorageIfAvailable { x in
      b.utf8.withContiguousStorageIfAvailable { y in compare(x, y) }
    }
    if let quick, let result = quick { return result }
    if a.utf8.elementsEqual(b.utf8) { return 0 }
    return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
  }

  /// -1, 0 or 1 as `x` sorts before, the same as, or after `y`, byte by byte.
  package static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>)
    -> Int
  {
    let common = min(x.count, y.count)
    if common > 0, let left = x.baseAddress, let right = y.baseAddress {
      let order = memcmp(left, right, common)
      if order != 0 { return order < 0 ? -1 : 1 }
    }
    return x.count == y.count ? 0 : x.count < y.count ? -1 : 1
  }
}
