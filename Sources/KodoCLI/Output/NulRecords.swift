import Foundation
import StorageCore

/// `-0` records written in place into an output's buffer (`OutputStream.nulSeparated`): keys
/// exactly as they are, each followed by a NUL, copied from the key's own UTF-8 (no `String` or
/// array per key). A key holding a NUL cannot be one record and is refused.
struct NulRecords {
  private var bytes: [UInt8]

  /// Runs `body` on records that append to `buffer` in place (moved in and back, never copied).
  static func append(to buffer: inout [UInt8], _ body: (inout NulRecords) -> Void) {
    var records = NulRecords(bytes: [])
    swap(&records.bytes, &buffer)
    body(&records)
    swap(&records.bytes, &buffer)
  }

  /// Appends `key` and a NUL; `false`, appending nothing, when the key holds a NUL.
  mutating func append(_ key: String) -> Bool {
    let appended = key.utf8.withContiguousStorageIfAvailable { append(utf8: $0) }
    if let appended { return appended }
    return Array(key.utf8).withUnsafeBufferPointer { append(utf8: $0) }
  }

  private mutating func append(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = utf8.baseAddress else {
      bytes.append(0)
      return true
    }
    guard memchr(base, 0, utf8.count) == nil else { return false }
    bytes.appendBytes(upTo: utf8.count + 1) { out in
      let count = out.write(utf8)
      out[count] = 0
      return count + 1
    }
    return true
  }
}

@available(*, unavailable)
extension NulRecords: Sendable {}
