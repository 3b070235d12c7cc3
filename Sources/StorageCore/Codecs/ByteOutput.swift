extension Array where Element == UInt8 {
  /// Appends up to `maximum` bytes that `body` writes straight into the array's storage, from
  /// the pointer it is given, returning how many it wrote: one capacity check for a run of
  /// bytes instead of one per byte (the output writers, `DecimalText`, `Timestamp`, `JSONText`,
  /// write millions of short runs).
  ///
  /// `body` must write at most `maximum` bytes; more is a programming error that traps.
  @inlinable @inline(__always)
  package mutating func appendBytes(
    upTo maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int
  ) {
    append(addingCapacity: maximum) { span in
      span.withUnsafeMutableBufferPointer { buffer, count in
        guard let base = buffer.baseAddress else { return }
        let written = body(base)
        precondition(written >= 0 && written <= buffer.count, "appendBytes: wrote past its room")
        count = written
      }
    }
  }
}

extension UnsafeMutablePointer where Pointee == UInt8 {
  /// Copies `source` here; returns its length (the writers' way to put a literal or a string's
  /// bytes into reserved room).
  @inlinable @inline(__always)
  package func write(_ source: UnsafeBufferPointer<UInt8>) -> Int {
    guard let base = source.baseAddress else { return 0 }
    initialize(from: base, count: source.count)
    return source.count
  }

  /// Copies the bytes of `literal` here; returns its length.
  @inlinable @inline(__always)
  package func write(_ literal: StaticString) -> Int {
    literal.withUTF8Buffer { write($0) }
  }
}
