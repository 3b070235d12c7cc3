/// A short text a listing carries for every object (Kodo's qetag, an MD5 in hex, OSS's ETag):
/// ASCII of at most `inlineCapacity` bytes is kept inline, in four words, anything else as a
/// `String`.
///
/// A listing of a million objects then makes (and frees) no string for each object's digests,
/// and writes them from the words. The same text always takes the same form (inline exactly when
/// it is ASCII and short enough), and `==` and hashing are `String`'s: two values are equal
/// exactly when their strings are (so `ObjectEntry`'s `==` is what it was with `String` fields).
public struct InlineText: Sendable, Hashable, CustomStringConvertible {
  /// The most bytes kept inline: a qetag is 28, an MD5 in hex and a plain ETag 32.
  public static var inlineCapacity: Int { 32 }

  /// Up to 32 ASCII bytes, the first in the lowest byte of `w0`, zeros after `count`.
  struct Words: Sendable, Equatable {
    var w0: UInt64 = 0
    var w1: UInt64 = 0
    var w2: UInt64 = 0
    var w3: UInt64 = 0
    var count: UInt8 = 0

    init() {}
  }

  enum Storage: Sendable {
    case inline(Words)
    case text(String)
  }

  var storage: Storage

  /// The empty text.
  public init() {
    storage = .inline(Words())
  }

  /// The text `string`.
  public init(_ string: String) {
    var string = string
    let inline = string.withUTF8 { bytes -> InlineText? in
      guard bytes.count <= Self.inlineCapacity, UTF8Text.isASCII(bytes) else { return nil }
      return InlineText(ascii: UnsafeRawBufferPointer(bytes), from: 0, count: bytes.count)
    }
    storage = inline?.storage ?? .text(string)
  }

  /// The text of valid UTF-8 `bytes`.
  package init(utf8 bytes: UnsafeRawBufferPointer) {
    guard bytes.count <= Self.inlineCapacity,
      UTF8Text.isASCII(bytes.assumingMemoryBound(to: UInt8.self))
    else {
      self.init(String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self))
      return
    }
    self.init(ascii: bytes, from: 0, count: bytes.count)
  }

  /// The text of `count` bytes at `start` in `raw`, which the caller has checked are ASCII and
  /// at most `inlineCapacity` (a JSON reader's plain-ASCII scan): loaded a word at a time where
  /// eight bytes are there to load, with no string made.
  @inline(__always)
  package init(ascii raw: UnsafeRawBufferPointer, from start: Int, count: Int) {
    precondition(
      count >= 0 && count <= Self.inlineCapacity && start >= 0 && start <= raw.count - count,
      "InlineText: bytes out of range")
    var words = Words()
    words.w0 = Self.load(raw, start, keeping: count)
    words.w1 = Self.load(raw, start + 8, keeping: count - 8)
    words.w2 = Self.load(raw, start + 16, keeping: count - 16)
    words.w3 = Self.load(raw, start + 24, keeping: count - 24)
    words.count = UInt8(truncatingIfNeeded: count)
    storage = .inline(words)
  }

  /// The word of the first `keeping` bytes at `offset` (all eight from 8 up, none from 0 down;
  /// zeros after them): one load where eight bytes are there, else byte by byte.
  @inline(__always)
  private static func load(_ raw: UnsafeRawBufferPointer, _ offset: Int, keeping: Int) -> UInt64 {
    guard keeping > 0 else { return 0 }
    guard offset + 8 > raw.count else {
      let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      return word & lowBytes(keeping)
    }
    var word: UInt64 = 0
    for index in 0..<min(keeping, 8) {
      word |= UInt64(raw[offset + index]) << UInt64(index * 8)
    }
    return word
  }

  /// The text as a `String`.
  public var string: String {
    switch storage {
    case .text(let text): return text
    case .inline(let words):
      return Self.withBytes(words) { String(decoding: $0, as: UTF8.self) }
    }
  }

  public var description: String { string }

  /// The number of UTF-8 bytes.
  public var utf8Count: Int {
    switch storage {
    case .inline(let words): Int(words.count)
    case .text(let text): text.utf8.count
    }
  }

  /// Whether the text is kept inline (ASCII of at most `inlineCapacity` bytes).
  public var isInline: Bool {
    if case .inline = storage { return true }
    return false
  }

  /// Calls `body` with the text's UTF-8.
  @inline(__always)
  public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    switch storage {
    case .inline(let words): return Self.withBytes(words, body)
    case .text(let text):
      var text = text
      return text.withUTF8(body)
    }
  }

  /// Writes inline text that holds no `"`, `\` or control character (JSON has nothing to escape
  /// in it) as a JSON string, quotes included, at `out`, which has room for
  /// `JSONText.stringRoom(utf8Count)` bytes: the words stored whole. Returns how many bytes it
  /// wrote, or `nil` (having written nothing) for any other text.
  @inline(__always)
  package func writePlainJSON(to out: UnsafeMutablePointer<UInt8>) -> Int? {
    guard case .inline(let words) = storage, Self.isPlain(words) else { return nil }
    let count = Int(words.count)
    out[0] = UInt8(ascii: "\"")
    if count >= 8 {
      // Whole words: at most seven bytes past the text, which the closing quote and the room
      // (six bytes a byte) cover.
      let raw = UnsafeMutableRawPointer(out + 1)
      raw.storeBytes(of: words.w0.littleEndian, as: UInt64.self)
      if count > 8 { raw.storeBytes(of: words.w1.littleEndian, toByteOffset: 8, as: UInt64.self) }
      if count > 16 {
        raw.storeBytes(of: words.w2.littleEndian, toByteOffset: 16, as: UInt64.self)
      }
      if count > 24 {
        raw.storeBytes(of: words.w3.littleEndian, toByteOffset: 24, as: UInt64.self)
      }
    } else {
      var word = words.w0
      for index in 0..<count {
        out[1 + index] = UInt8(truncatingIfNeeded: word)
        word >>= 8
      }
    }
    out[1 + count] = UInt8(ascii: "\"")
    return count + 2
  }

  /// Whether no byte of `words` is `"`, `\` or below 0x20.
  @inline(__always)
  private static func isPlain(_ words: Words) -> Bool {
    func marks(_ word: UInt64) -> UInt64 {
      (ByteWord.below(0x20, word) | ByteWord.equal(0x22, word) | ByteWord.equal(0x5C, word))
        & ByteWord.highs
    }
    // The zero padding after `count` is marked too, so only marks below `count` count: a mark
    // there is exact (a test marks a byte above one it rightly marks, never one below).
    let count = Int(words.count)
    let found =
      marks(words.w0) & lowBytes(count) | marks(words.w1) & lowBytes(count - 8)
      | marks(words.w2) & lowBytes(count - 16) | marks(words.w3) & lowBytes(count - 24)
    return found == 0
  }

  /// A mask of a word's first `count` bytes (all eight from 8 up, none from 0 down).
  @inline(__always)
  private static func lowBytes(_ count: Int) -> UInt64 {
    count >= 8 ? ~0 : count <= 0 ? 0 : (1 << UInt64(count * 8)) - 1
  }

  /// Calls `body` with the bytes of `words`.
  @inline(__always)
  private static func withBytes<Result>(
    _ words: Words, _ body: (UnsafeBufferPointer<UInt8>) -> Result
  ) -> Result {
    let count = Int(words.count)
    // A homogeneous tuple lies as an array of its elements does.
    var bytes = (
      words.w0.littleEndian, words.w1.littleEndian, words.w2.littleEndian, words.w3.littleEndian
    )
    return withUnsafeBytes(of: &bytes) { raw in
      body(UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[..<count]))
    }
  }

  /// Equal exactly when the strings are (`String`'s `==`, canonical equivalence): inline texts
  /// (ASCII, where that is byte equality) by their words.
  public static func == (lhs: InlineText, rhs: InlineText) -> Bool {
    if case .inline(let left) = lhs.storage, case .inline(let right) = rhs.storage {
      return left == right
    }
    return lhs.string == rhs.string
  }

  /// `String`'s hash of the text, so that equal values (see `==`) hash alike.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(string)
  }
}
