import CDigestLanes

/// An MD5 or SHA-1 kept in words of its own (not libcrypto's context), so many can advance together.
///
/// The parts of a multipart upload are independent messages: ``update(_:with:)`` hashes them side
/// by side, 16 (AVX-512) or 8 (AVX2) at once, one SIMD lane each (`CDigestLanes`), where
/// libcrypto hashes one after the other. A hash alone (``update(_:)``) goes through the one-lane
/// kernels (SHA-1 with the CPU's SHA extensions where it has them, else portable C), which run
/// about as fast as libcrypto's.
///
/// A value type with no heap storage: copies go on independently, and the bytes of an unfinished
/// block are carried in the value between updates.
public struct LaneHash: RunningDigest {
  /// Which hash.
  public enum Kind: Sendable, Equatable {
    /// RFC 1321: little-endian words and length.
    case md5
    /// FIPS 180-4: big-endian words and length.
    case sha1

    /// The chaining words of the state: 4 or 5.
    var words: Int { self == .md5 ? 4 : 5 }

    /// The digest's size in bytes.
    var size: Int { 4 * words }

    /// The state before any block.
    var initial: Words {
      switch self {
      case .md5: (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0)
      case .sha1: (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
      }
    }

    /// Compresses `blocks` 64-byte blocks of each of `lanes` messages into their states (this
    /// kind's words, lane after lane) with kernels no wider than `width`; the widest used.
    @discardableResult
    func compress(
      _ states: UnsafeMutablePointer<UInt32>, _ data: UnsafePointer<UnsafePointer<UInt8>?>,
      blocks: Int, lanes: Int, width: Int
    ) -> Int {
      let lanes = Int32(clamping: lanes)
      let width = Int32(clamping: width)
      return switch self {
      case .md5: Int(kodo_md5_lanes_upto(states, data, blocks, lanes, width))
      case .sha1: Int(kodo_sha1_lanes_upto(states, data, blocks, lanes, width))
      }
    }
  }

  /// The chaining words (MD5 uses the first four).
  typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32)
  /// One 64-byte block.
  typealias Block = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

  /// Which hash this is.
  public let kind: Kind
  /// The state after the whole blocks so far.
  var state: Words
  /// How many bytes were added (the padding's length field counts them in bits, modulo 2^64).
  var length: UInt64 = 0
  /// The first `length % 64` bytes are those of the unfinished block.
  var pending: Block = (0, 0, 0, 0, 0, 0, 0, 0)

  /// The hash of no bytes yet.
  public init(_ kind: Kind) {
    self.kind = kind
    state = kind.initial
  }

  /// How many lanes the kernels advance together on this machine (16, 8 or 1).
  public static var width: Int { Int(kodo_lanes_width()) }

  /// Adds `bytes` (one lane).
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    update(bytes, width: Self.width)
  }

  /// `update(_:)` with kernels no wider than `width`.
  mutating func update(_ bytes: UnsafeRawBufferPointer, width: Int) {
    var rest = bytes
    if let block = fill(&rest) {
      withUnsafeBytes(of: block) { compress($0, blocks: 1, width: width) }
    }
    let whole = rest.count / 64 * 64
    if whole > 0 {
      compress(UnsafeRawBufferPointer(rebasing: rest[..<whole]), blocks: whole / 64, width: width)
      length &+= UInt64(whole)
    }
    keep(UnsafeRawBufferPointer(rebasing: rest[whole...]))
  }

  /// The digest of the bytes so far (it goes on).
  public var bytes: [UInt8] {
    var last = self
    padding.withUnsafeBytes { last.update($0, width: 1) }
    var output = [UInt8]()
    output.reserveCapacity(kind.size)
    withUnsafeBytes(of: last.state) { words in
      for index in 0..<kind.words {
        let word = words.load(fromByteOffset: 4 * index, as: UInt32.self)
        withUnsafeBytes(of: kind == .md5 ? word.littleEndian : word.bigEndian) {
          output.append(contentsOf: $0)
        }
      }
    }
    return output
  }

  /// The digest as lower-case hex.
  public var text: String { Hex.encode(bytes) }

  /// What ends the message: a 1 bit, zeros up to 8 bytes short of a block's end, and the length
  /// in bits as 64 bits (little-endian for MD5, big-endian for SHA-1).
  var padding: [UInt8] {
    let bits = length &* 8
    let field = kind == .md5 ? bits.littleEndian : bits.bigEndian
    let used = Int(length % 64)
    let zeros = (used < 56 ? 55 : 119) - used
    var padding = [UInt8](repeating: 0, count: 1 + zeros + 8)
    padding[0] = 0x80
    withUnsafeBytes(of: field) { padding.replaceSubrange((1 + zeros)..., with: $0) }
    return padding
  }

  /// Adds the start of `bytes` to the unfinished block and drops it from `bytes`: the block
  /// when that finished it (to be compressed), else `nil`.
  mutating func fill(_ bytes: inout UnsafeRawBufferPointer) -> Block? {
    let used = Int(length % 64)
    guard used > 0, !bytes.isEmpty else { return nil }
    let taken = min(64 - used, bytes.count)
    withUnsafeMutableBytes(of: &pending) { block in
      UnsafeMutableRawBufferPointer(rebasing: block[used..<(used + taken)])
        .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[..<taken]))
    }
    length &+= UInt64(taken)
    bytes = UnsafeRawBufferPointer(rebasing: bytes[taken...])
    return used + taken == 64 ? pending : nil
  }

  /// Adds `bytes` (what `fill` left of an update after its whole blocks: fewer than a block, and
  /// the unfinished block empty) to the unfinished block.
  mutating func keep(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    let used = Int(length % 64)
    precondition(used + bytes.count <= 64, "LaneHash: more than a block kept")
    withUnsafeMutableBytes(of: &pending) { block in
      UnsafeMutableRawBufferPointer(rebasing: block[used..<(used + bytes.count)])
        .copyMemory(from: bytes)
    }
    length &+= UInt64(bytes.count)
  }

  /// Compresses the whole blocks `bytes` into the state, one lane (the caller counts them in
  /// `length`).
  private mutating func compress(_ bytes: UnsafeRawBufferPointer, blocks: Int, width: Int) {
    let kind = kind
    withUnsafeMutablePointer(to: &state) { words in
      words.withMemoryRebound(to: UInt32.self, capacity: 5) { words in
        var start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        kind.compress(words, &start, blocks: blocks, lanes: 1, width: width)
      }
    }
  }
}
