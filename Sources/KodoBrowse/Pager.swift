/// The preview of one object (`Enter` on it): its bytes fetched by range as the user scrolls,
/// 64 KiB at a time, so that a 10 GB log opens at once; a few ranges kept. Text is shown line
/// by line (a line ends at LF, or after `maxLine` bytes), anything else as a hex dump.
package struct Pager: Sendable, Equatable {
  package let bucket: String
  package let key: String
  package let size: Int64
  /// Loaded ranges by index (`chunkSize` bytes each, the last one shorter).
  var chunks: [Int64: [UInt8]] = [:]
  /// The request under way and the range it fetches.
  var loadingID: Int?
  var loadingChunk: Int64 = 0
  /// Why the last range failed.
  package var failure: String?
  /// Whether the object is shown as a hex dump (decided by its first range).
  package var binary: Bool?
  /// The offset of the first row shown: a line's start, or a multiple of 16 in hex.
  package var top: Int64 = 0
  /// Moves waiting for a range: lines down (positive) or up (negative), or to the end.
  var pending = 0
  var toEnd = false

  static let chunkSize: Int64 = 64 * 1024
  /// The longest line, in bytes: a longer one is shown as several.
  static let maxLine: Int64 = 16 * 1024
  /// How many ranges are kept.
  static let keep = 8
  /// Bytes per row of the hex dump.
  static let hexRow: Int64 = 16

  init(bucket: String, key: String, size: Int64) {
    self.bucket = bucket
    self.key = key
    self.size = max(0, size)
  }

  /// How many ranges are held (at most `keep`).
  package var loadedRanges: Int { chunks.count }

  /// The range of chunk `index`.
  func range(of index: Int64) -> ClosedRange<Int64> {
    let start = index * Self.chunkSize
    return start...(min(size, start + Self.chunkSize) - 1)
  }

  /// The byte at `offset`, if its range is loaded.
  func byte(at offset: Int64) -> UInt8? {
    guard let chunk = chunks[offset / Self.chunkSize] else { return nil }
    let index = Int(offset % Self.chunkSize)
    return chunk.indices.contains(index) ? chunk[index] : nil
  }

  /// The bytes from `start`, at most `count`, as far as they are loaded.
  func bytes(from start: Int64, count: Int64) -> [UInt8] {
    var out: [UInt8] = []
    var offset = start
    let end = min(size, start + count)
    while offset < end, let chunk = chunks[offset / Self.chunkSize] {
      let from = Int(offset % Self.chunkSize)
      let upTo = min(chunk.count, from + Int(end - offset))
      guard from < upTo else { break }
      out += chunk[from..<upTo]
      offset += Int64(upTo - from)
    }
    return out
  }

  /// Where the line starting at `start` ends (after its LF), or the range to load to know.
  func lineEnd(from start: Int64) -> Result<Int64, Missing> {
    var offset = start
    let limit = min(size, start + Self.maxLine)
    while offset < limit {
      guard let byte = byte(at: offset) else {
        return .failure(Missing(chunk: offset / Self.chunkSize))
      }
      offset += 1
      if byte == 0x0A { return .success(offset) }
    }
    return .success(offset)
  }

  /// Where the line ending just before `end` starts, or the range to load to know.
  func lineStart(before end: Int64) -> Result<Int64, Missing> {
    guard end > 0 else { return .success(0) }
    var offset = end - 1
    let limit = max(0, end - Self.maxLine)
    while offset > limit {
      guard let byte = byte(at: offset - 1) else {
        return .failure(Missing(chunk: (offset - 1) / Self.chunkSize))
      }
      if byte == 0x0A { return .success(offset) }
      offset -= 1
    }
    return .success(limit)
  }

  /// A range that must be loaded first.
  struct Missing: Error, Equatable {
    var chunk: Int64
  }
}

extension Pager {
  /// Whether bytes look like text: no NUL, and valid UTF-8 (a sequence cut at the end of the
  /// range aside).
  static func isText(_ bytes: [UInt8], cut: Bool) -> Bool {
    if bytes.contains(0) { return false }
    var body = bytes[...]
    if cut {
      // Drop a lead byte and what follows it when the sequence it starts is cut off.
      var back = 0
      while back < 3 && back < body.count {
        let byte = body[body.endIndex - 1 - back]
        if byte & 0xC0 != 0x80 {
          let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
          if length > back + 1 { body = body.dropLast(back + 1) }
          break
        }
        back += 1
      }
    }
    return String(validating: body, as: UTF8.self) != nil
  }
}
