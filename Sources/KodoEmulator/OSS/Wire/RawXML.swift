package import NIOCore
package import OSSCore
package import StorageCore

/// XML written at a raw pointer into room reserved for it (`ByteBuffer.writeRawXML`, over `RawBytes`), with the
/// package's writers: text through `XMLWriter.writeEscaped` (or, `encoding-type=url`,
/// `PercentEncoding.write`), times through `XMLWriter.writeTime`, numbers through
/// `DecimalText.write`. Each piece checks that it fits in the room left, and traps rather than
/// write past it. A listing's entry is one of these: one capacity check, no array, no string.
package struct RawXML: RawBytesWriter {
  package private(set) var bytes: RawBytes

  package init(_ bytes: RawBytes) { self.bytes = bytes }

  /// The bytes written.
  package var count: Int { bytes.count }

  /// The most bytes `escaped(_:)` or `text(_:percentEncoded:)` write for `count` bytes.
  @inline(__always)
  package static func room(_ count: Int) -> Int { XMLWriter.escapedRoom(count) }

  /// The most bytes `escaped(_:)` writes for `text`, when there is one.
  @inline(__always)
  package static func room(_ text: String?) -> Int { room(text?.utf8.count ?? 0) }

  /// The program's own markup (tags, runs of tags).
  @inline(__always)
  package mutating func literal(_ markup: StaticString) { bytes.literal(markup) }

  /// UTF-8 text, escaped (`XMLWriter.escape`).
  @inline(__always)
  package mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    bytes.write(room: XMLWriter.escapedRoom(utf8.count)) { XMLWriter.writeEscaped(utf8, to: $0) }
  }

  /// Text, escaped (`XMLWriter.escape`).
  @inline(__always)
  package mutating func escaped(_ text: String) {
    RawBytes.withUTF8(text) { escaped($0) }
  }

  /// UTF-8 text percent-encoded as a query value (`encoding-type=url`), or else escaped
  /// (`XMLWriter.text(utf8:percentEncoded:)`).
  @inline(__always)
  package mutating func text(_ utf8: UnsafeBufferPointer<UInt8>, percentEncoded: Bool) {
    guard percentEncoded else { return escaped(utf8) }
    bytes.write(room: PercentEncoding.encodedRoom(utf8.count)) {
      PercentEncoding.write(utf8, keepSlash: false, to: $0)
    }
  }

  /// `text(_:percentEncoded:)` for a string.
  package mutating func text(_ text: String, percentEncoded: Bool) {
    RawBytes.withUTF8(text) { self.text($0, percentEncoded: percentEncoded) }
  }

  /// A decimal number.
  @inline(__always)
  package mutating func decimal(_ value: Int64) {
    bytes.decimal(value)
  }

  /// The most bytes `restore(_:)` writes.
  package static var restoreRoom: Int { room(OSSRestore.maximumTextLength) }

  /// A restore state's text (`OSSRestore.text`), escaped: formatted into room on the stack, not
  /// into a string.
  package mutating func restore(_ restore: OSSRestore) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: OSSRestore.maximumTextLength) {
      guard let base = $0.baseAddress else { return }
      escaped(UnsafeBufferPointer(start: base, count: restore.write(to: base)))
    }
  }

  /// A time as OSS writes it (`XMLWriter.time`).
  @inline(__always)
  package mutating func time(_ time: Timestamp) {
    bytes.write(room: XMLWriter.timeRoom) { XMLWriter.writeTime(time, to: $0) }
  }
}

extension ByteBuffer {
  /// Writes what `body` writes through a `RawXML` into `room` bytes reserved at once.
  @inline(__always)
  package mutating func writeRawXML(room: Int, _ body: (inout RawXML) -> Void) {
    writeRawBytes(room: room, as: RawXML.self, body)
  }
}
