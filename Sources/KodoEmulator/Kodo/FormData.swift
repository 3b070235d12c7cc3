import StorageCore

/// A `multipart/form-data` body (RFC 7578), cut at bytes: the parts of a Kodo form upload.
///
/// The body may be a spool file: it is scanned a chunk at a time for the delimiters, each
/// part's head is read on its own, and a part's content stays a range of the body (the file's
/// bytes are never held in memory).
struct FormData {
  struct Part {
    var name: String
    var fileName: String?
    var contentType: String?
    var body: Payload
  }

  /// The most parts a form may have.
  static let maximumParts = 1_000
  /// The longest head of a part (its `Content-Disposition` and `Content-Type` lines).
  static let maximumHeadSize = 16 * 1_024
  /// The longest text field read.
  static let maximumFieldSize = 64 * 1_024

  var parts: [Part] = []

  /// The first part named `name`.
  func part(_ name: String) -> Part? { parts.first { ExactKey.same($0.name, name) } }

  /// The first text field named `name`, as UTF-8.
  func field(_ name: String) -> String? {
    part(name).flatMap { $0.body.bytes(limit: Self.maximumFieldSize) }
      .flatMap { String(validating: $0, as: UTF8.self) }
  }

  /// The boundary of a `multipart/form-data; boundary=…` content type.
  static func boundary(contentType: String?) -> String? {
    guard let contentType else { return nil }
    let pieces = Self.pieces(Array(contentType.utf8))
    guard let type = pieces.first, Self.lowercased(type) == Array("multipart/form-data".utf8) else {
      return nil
    }
    for piece in pieces.dropFirst() {
      guard let (name, value) = Self.pair(piece), name == Array("boundary".utf8), !value.isEmpty
      else { continue }
      return String(decoding: value, as: UTF8.self)
    }
    return nil
  }

  /// Parses `body`; `nil` when it is not a well-formed form with this boundary.
  init?(_ body: Payload, boundary: String) {
    // Every delimiter is CRLF "--" boundary; the first may open the body without its CRLF.
    let delimiter = Array(("\r\n--" + boundary).utf8)
    guard let found = Self.occurrences(of: delimiter, in: body) else { return nil }
    let length = body.count
    for (index, start) in found.enumerated() {
      var position = start + Int64(delimiter.count)
      // After a delimiter: `--` ends the form, CRLF starts a part.
      guard let after = body.slice(position, min(2, length - position)).bytes() else {
        return nil
      }
      if after == [0x2D, 0x2D] { return }
      guard after == [0x0D, 0x0A], index + 1 < found.count else { return nil }
      position += 2
      let next = found[index + 1]
      guard next >= position,
        let head = body.slice(position, min(Int64(Self.maximumHeadSize), next - position))
          .bytes(limit: Self.maximumHeadSize),
        let headEnd = ByteChunks.find([0x0D, 0x0A, 0x0D, 0x0A], in: head, from: 0)
      else { return nil }
      let contentStart = position + Int64(headEnd + 4)
      var part = Part(name: "", body: body.slice(contentStart, next - contentStart))
      for line in Self.lines(Array(head[..<headEnd])) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
        let name = Self.lowercased(Array(line[..<colon]))
        let value = Array(line[(colon + 1)...])
        if name == Array("content-type".utf8) {
          part.contentType = String(decoding: Self.trimmed(value), as: UTF8.self)
        } else if name == Array("content-disposition".utf8) {
          for piece in Self.pieces(value).dropFirst() {
            guard let (key, text) = Self.pair(piece) else { continue }
            if key == Array("name".utf8) { part.name = String(decoding: text, as: UTF8.self) }
            if key == Array("filename".utf8) {
              part.fileName = String(decoding: text, as: UTF8.self)
            }
          }
        }
      }
      parts.append(part)
    }
    return nil
  }

  /// Where `delimiter` (which starts with CRLF) occurs in `body` read as if a CRLF preceded it
  /// (offsets in the body, so the first may be -2), scanning a chunk at a time; `nil` when there
  /// is none or more than the parts allowed.
  private static func occurrences(of delimiter: [UInt8], in body: Payload) -> [Int64]? {
    var found = [Int64]()
    // The window: the tail of what was read (shorter than the delimiter) and the next chunk;
    // `windowStart` is the body offset of its first byte.
    var window: [UInt8] = [0x0D, 0x0A]
    var windowStart: Int64 = -2
    var tooMany = false
    do throws(StoreFailure) {
      try body.forEachChunk { chunk in
        guard !tooMany else { return }
        window.append(contentsOf: chunk)
        var from = 0
        while let hit = ByteChunks.find(delimiter, in: window, from: from) {
          found.append(windowStart + Int64(hit))
          from = hit + delimiter.count
          if found.count > maximumParts + 1 {
            tooMany = true
            return
          }
        }
        let keep = min(window.count - from, delimiter.count - 1)
        windowStart += Int64(window.count - keep)
        window.removeFirst(window.count - keep)
      }
    } catch {
      return nil
    }
    return found.isEmpty || tooMany ? nil : found
  }

  // MARK: Header text, cut at bytes (a delimiter before a combining mark is still a delimiter)

  /// The lines of a part's head, split at CRLF.
  private static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var result = [ArraySlice<UInt8>]()
    var start = 0
    var index = 0
    while index + 1 < bytes.count {
      if bytes[index] == 0x0D && bytes[index + 1] == 0x0A {
        result.append(bytes[start..<index])
        index += 2
        start = index
      } else {
        index += 1
      }
    }
    result.append(bytes[start...])
    return result
  }

  /// A header value cut at the `;` bytes outside quotes, each piece trimmed of spaces.
  private static func pieces(_ bytes: [UInt8]) -> [[UInt8]] {
    var result = [[UInt8]]()
    var current = [UInt8]()
    var quoted = false
    var escaped = false
    for byte in bytes {
      if escaped {
        escaped = false
      } else if quoted && byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        quoted.toggle()
      } else if byte == UInt8(ascii: ";") && !quoted {
        result.append(trimmed(current))
        current = []
        continue
      }
      current.append(byte)
    }
    result.append(trimmed(current))
    return result
  }

  /// `name=value` or `name="value"` (quotes removed, `\"` unescaped), the name lower-cased.
  private static func pair(_ piece: [UInt8]) -> ([UInt8], [UInt8])? {
    guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { return nil }
    let name = lowercased(trimmed(Array(piece[..<equals])))
    var value = trimmed(Array(piece[(equals + 1)...]))
    if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
      var unquoted = [UInt8]()
      var escaped = false
      for byte in value.dropFirst().dropLast() {
        if !escaped && byte == UInt8(ascii: "\\") {
          escaped = true
          continue
        }
        escaped = false
        unquoted.append(byte)
      }
      value = unquoted
    }
    return (name, value)
  }

  private static func trimmed(_ bytes: some Collection<UInt8>) -> [UInt8] {
    let array = Array(bytes)
    let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
    guard let first = array.firstIndex(where: { !isSpace($0) }),
      let last = array.lastIndex(where: { !isSpace($0) })
    else { return [] }
    return Array(array[first...last])
  }

  private static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
    bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
  }

  /// The first index at or after `start` where `needle` occurs in `haystack`.

}
