package import NIOCore
import StorageCore

/// Bytes written at a raw pointer into room reserved for them (`ByteBuffer.writeRawBytes`): the
/// cursor under the emulator's hand-written answers (`RawJSON` for Kodo, `RawXML` for OSS). Each
/// piece checks that it fits in the room left, and traps rather than write past it.
package struct RawBytes {
  private let out: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  /// The bytes written.
  package private(set) var count = 0

  init(out: UnsafeMutablePointer<UInt8>, capacity: Int) {
    self.out = out
    self.capacity = capacity
  }

  /// Writes at most `room` bytes through `write`, which answers how many it wrote.
  @inline(__always)
  package mutating func write(room: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
    precondition(count + room <= capacity, "RawBytes: no room")
    count += write(out + count)
  }

  /// The program's own text (markup, member names, punctuation).
  @inline(__always)
  package mutating func literal(_ text: StaticString) {
    write(room: text.utf8CodeUnitCount) { $0.write(text) }
  }

  /// A decimal number.
  @inline(__always)
  package mutating func decimal(_ value: Int64) {
    write(room: DecimalText.maximumLength()) { DecimalText.write(value, to: $0) }
  }

  /// `body` with `text`'s UTF-8 bytes, contiguous (copied first only when they are not).
  @inline(__always)
  package static func withUTF8(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    let written: Void? = text.utf8.withContiguousStorageIfAvailable(body)
    if written == nil { Array(text.utf8).withUnsafeBufferPointer(body) }
  }
}

/// A writer of one format over `RawBytes`.
package protocol RawBytesWriter {
  init(_ bytes: RawBytes)
  /// Its cursor.
  var bytes: RawBytes { get }
}

extension ByteBuffer {
  /// Writes what `body` writes through a `Writer` into `room` bytes reserved at once: one
  /// capacity check and one access to the buffer for a run of pieces, not one a piece.
  @inline(__always)
  package mutating func writeRawBytes<Writer: RawBytesWriter>(
    room: Int, as writer: Writer.Type, _ body: (inout Writer) -> Void
  ) {
    writeWithUnsafeMutableBytes(minimumWritableBytes: room) { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      guard let base = bytes.baseAddress else { return 0 }
      var writer = Writer(RawBytes(out: base, capacity: bytes.count))
      body(&writer)
      return writer.bytes.count
    }
  }
}
