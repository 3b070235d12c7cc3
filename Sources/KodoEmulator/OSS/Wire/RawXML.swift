package import NIOCore
import OSSCore
package import StorageCore

/// XML written at a raw pointer into room reserved for it (`ByteBuffer.writeRawXML`), with the
/// package's writers: text through `XMLWriter.writeEscaped` (or, `encoding-type=url`,
/// `PercentEncoding.write`), times through `XMLWriter.writeTime`, numbers through
/// `DecimalText.write`. Each piece checks that it fits in the room left, and traps rather than
/// write past it. A listing's entry is one of these: one capacity check, no array, no string.
package struct RawXML {
  private let out: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  /// The bytes written.
  package private(set) var count = 0

  init(out: UnsafeMutablePointer<UInt8>, capacity: Int) {
    self.out = out
    self.capacity = capacity
  }

  /// The most bytes `escaped(_:)` or `text(_:percentEncoded:)` write for `count` bytes.
  @inline(__always)
  package static func room(_ count: Int) -> Int { XMLWriter.escapedRoom(count) }

  /// The most bytes `escaped(_:)` writes for `text`, when there is one.
  @inline(__always)
  package static func room(_ text: String?) -> Int { room(text?.utf8.count ?? 0) }

  @inline(__always)
  private func ensureRoom(_ needed: Int) {
    precondition(count + needed <= capacity, "RawXML: no room")
  }

  /// The program's own markup (tags, runs of tags).
  @inline(__always)
  package mutating func literal(_ markup: StaticString) {
    ensureRoom(markup.utf8CodeUnitCount)
    count += (out + count).write(markup)
  }

  /// UTF-8 text, escaped (`XMLWriter.escape`).
  @inline(__always)
  package mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    ensureRoom(XMLWriter.escapedRoom(utf8.count))
    count += XMLWriter.writeEscaped(utf8, to: out + count)
  }

  /// Text, escaped (`XMLWriter.escape`).
  @inline(__always)
  package mutating func escaped(_ text: String) {
    let written: Void? = text.utf8.withContiguousStorageIfAvailable { escaped($0) }
    if written == nil { Array(text.utf8).withUnsafeBufferPointer { escaped($0) } }
  }

  /// UTF-8 text percent-encoded as a query value (`encoding-type=url`), or else escaped
  /// (`XMLWriter.text(utf8:percentEncoded:)`).
  @inline(__always)
  package mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, percentEncoded: Bool) {
    guard percentEncoded else { return escaped(utf8) }
    ensureRoom(PercentEncoding.encodedRoom(utf8.count))
    count += PercentEncoding.write(utf8, keepSlash: false, to: out + count)
  }

  /// `text(_:percentEncoded:)` for a string.
  package mutating func text(_ text: String, percentEncoded: Bool) {
    let written: Void? = text.utf8.withContiguousStorageIfAvailable {
      self.text($0, percentEncoded: percentEncoded)
    }
    if written == nil {
      Array(text.utf8).withUnsafeBufferPointer { self.text($0, percentEncoded: percentEncoded) }
    }
  }

  /// A decimal number.
  @inline(__always)
  package mutating func decimal(_ value: Int64) {
    ensureRoom(DecimalText.maximumLength())
    count += DecimalText.write(value, to: out + count)
  }

  /// A time as OSS writes it (`XMLWriter.time`).
  @inline(__always)
  package mutating func time(_ time: Timestamp) {
    ensureRoom(XMLWriter.timeRoom)
    count += XMLWriter.writeTime(time, to: out + count)
  }
}

extension ByteBuffer {
  /// Writes what `body` writes through a `RawXML` into `room` bytes reserved at once: one
  /// capacity check and one access to the buffer for a run of elements, not one a piece.
  @inline(__always)
  package mutating func writeRawXML(room: Int, _ body: (inout RawXML) -> Void) {
    writeWithUnsafeMutableBytes(minimumWritableBytes: room) { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      guard let base = bytes.baseAddress else { return 0 }
      var xml = RawXML(out: base, capacity: bytes.count)
      body(&xml)
      return xml.count
    }
  }
}
