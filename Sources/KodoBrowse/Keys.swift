/// A key as the browser sees it.
package enum Key: Sendable, Equatable, Hashable {
  case up, down, left, right, home, end, pageUp, pageDown
  case enter, backspace, escape, tab, delete
  case controlC, controlZ, controlL
  /// Another control key, by its letter in lower case: `.control("a")` is Ctrl-A (the line
  /// editor's keys).
  case control(Character)
  /// A printable character (UTF-8 text, IME input included).
  case character(Character)
  /// A sequence or control byte the browser has no use for.
  case unknown
}

/// Turns the bytes read from the terminal into keys. Bytes may arrive split anywhere: an
/// incomplete sequence waits for the next `feed`. A lone ESC is ambiguous (Esc pressed, or the
/// start of a sequence still on its way), so it waits too until `flush` (called when no byte
/// followed for a short while) says it was Esc.
package struct KeyDecoder: Sendable {
  private var buffer: [UInt8] = []

  /// A decoder with nothing pending.
  package init() {}

  /// Whether a lone ESC or a part of a sequence waits for more bytes.
  package var hasPending: Bool { !buffer.isEmpty }

  /// The keys the bytes complete.
  package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
    buffer.append(contentsOf: bytes)
    var keys: [Key] = []
    var index = 0
    while index < buffer.count {
      guard let (key, length) = Self.decode(buffer, at: index) else { break }
      keys.append(key)
      index += length
    }
    buffer.removeFirst(index)
    return keys
  }

  /// What is pending, as keys: a lone ESC is Esc; a cut-off sequence is dropped.
  package mutating func flush() -> [Key] {
    defer { buffer.removeAll() }
    if buffer.first == 0x1B { return [.escape] + feedAfterEscape() }
    return buffer.isEmpty ? [] : [.unknown]
  }

  private mutating func feedAfterEscape() -> [Key] {
    let rest = Array(buffer.dropFirst())
    buffer.removeAll()
    var decoder = KeyDecoder()
    return decoder.feed(rest) + decoder.flush()
  }

  /// The key at `index` and its length in bytes, or `nil` when more bytes are needed.
  static func decode(_ bytes: [UInt8], at index: Int) -> (Key, Int)? {
    let byte = bytes[index]
    let available = bytes.count - index
    switch byte {
    case 0x1B:
      guard available >= 2 else { return nil }
      let next = bytes[index + 1]
      if next == 0x5B { return csi(bytes, at: index) }
      if next == 0x4F {
        guard available >= 3 else { return nil }
        return (ss3(bytes[index + 2]), 3)
      }
      // Esc then another key (Alt-key is not used): Esc alone.
      return (.escape, 1)
    case 0x0D, 0x0A: return (.enter, 1)
    case 0x7F, 0x08: return (.backspace, 1)
    case 0x09: return (.tab, 1)
    case 0x03: return (.controlC, 1)
    case 0x1A: return (.controlZ, 1)
    case 0x0C: return (.controlL, 1)
    case 0x01...0x1A: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
    case 0..<0x20: return (.unknown, 1)
    case 0x20..<0x7F: return (.character(Character(Unicode.Scalar(byte))), 1)
    default: return utf8(bytes, at: index)
    }
  }

  private static func ss3(_ final: UInt8) -> Key {
    switch final {
    case 0x41: return .up
    case 0x42: return .down
    case 0x43: return .right
    case 0x44: return .left
    case 0x48: return .home
    case 0x46: return .end
    default: return .unknown
    }
  }

  /// `ESC [ params final`; a sequence longer than 32 bytes without a final byte is dropped.
  private static func csi(_ bytes: [UInt8], at index: Int) -> (Key, Int)? {
    var end = index + 2
    while end < bytes.count {
      let byte = bytes[end]
      if byte >= 0x40 && byte <= 0x7E { break }
      if byte < 0x20 || byte > 0x7E { return (.unknown, end - index) }
      end += 1
      if end - index > 32 { return (.unknown, end - index) }
    }
    guard end < bytes.count else { return nil }
    let final = bytes[end]
    let parameters = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
    let length = end - index + 1
    switch final {
    case 0x41: return (.up, length)
    case 0x42: return (.down, length)
    case 0x43: return (.right, length)
    case 0x44: return (.left, length)
    case 0x48: return (.home, length)
    case 0x46: return (.end, length)
    case 0x7E:
      switch parameters {
      case "1", "7": return (.home, length)
      case "4", "8": return (.end, length)
      case "3": return (.delete, length)
      case "5": return (.pageUp, length)
      case "6": return (.pageDown, length)
      default: return (.unknown, length)
      }
    default: return (.unknown, length)
    }
  }

  private static func utf8(_ bytes: [UInt8], at index: Int) -> (Key, Int)? {
    let lead = bytes[index]
    let length: Int
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF4: length = 4
    default: return (.unknown, 1)
    }
    for offset in 1..<length {
      guard index + offset < bytes.count else { return nil }
      if bytes[index + offset] & 0xC0 != 0x80 { return (.unknown, offset) }
    }
    guard
      let text = String(validating: bytes[index..<(index + length)], as: UTF8.self),
      let character = text.first
    else { return (.unknown, length) }
    return (.character(character), length)
  }
}
