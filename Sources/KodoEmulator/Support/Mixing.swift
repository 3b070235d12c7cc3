/// Deterministic 64-bit mixing (SplitMix64), the source of every "random" choice the emulator
/// makes, so the same seed always gives the same buckets and the same fault sequence.
enum Mixing {
  /// SplitMix64's finaliser of `value + golden`.
  @inline(__always)
  static func splitMix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A well-mixed word from two inputs.
  @inline(__always)
  static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
    splitMix(a ^ splitMix(b &+ 0x632B_E59B_D9B4_E019))
  }

  /// A number in `0..<1` from a word.
  @inline(__always)
  static func unitInterval(_ word: UInt64) -> Double {
    Double(word >> 11) / 9_007_199_254_740_992.0
  }
}
