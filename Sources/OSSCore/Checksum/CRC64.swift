import CCRC64
import Foundation
public import StorageCore

/// CRC-64/ECMA-182 in the "XZ" parametrisation, the `x-oss-hash-crc64ecma` of every OSS object.
///
/// Polynomial `0x42F0E1EBA9EA3693` reflected (`0xC96C5795D7870F42`), initial value and final XOR
/// all ones: `"123456789"` → `11051210869376104954` (`0x995DC9BBDF1939FA`), empty content → 0.
/// Incremental: feed the content in chunks of any size, in order, as a download streams; the
/// value after any split is the value of the whole. A feed of at least ``foldingMinimum`` bytes is
/// folded with carry-less multiplication (`CCRC64`, PCLMULQDQ) where the CPU has it, several
/// times faster; shorter feeds, the last bytes of a feed that are not a whole 16-byte block, and
/// every feed on other CPUs go slicing-by-8 over eight 256-entry tables.
public struct CRC64: Sendable, Equatable {
  /// The reflected polynomial.
  public static let polynomial: UInt64 = 0xC96C_5795_D787_0F42

  // The running register, kept inverted (the initial value ~0 is applied at the start and the
  // final XOR ~0 when the value is read).
  private var register: UInt64 = ~0

  /// A checksum of no bytes yet.
  public init() {}

  /// The CRC of everything fed so far.
  public var value: UInt64 { ~register }

  /// The value as OSS writes it in `x-oss-hash-crc64ecma`: unsigned decimal.
  public var decimal: String { String(value) }

  /// The CRC of `bytes`.
  public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var crc = CRC64()
    crc.update(bytes)
    return crc.value
  }

  /// Feeds `bytes`.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    register = Self.advance(register, over: bytes, folding: Self.folds)
  }

  /// Whether this CPU runs the folding path (x86-64 with PCLMULQDQ and SSE4.1).
  static let folds = kodo_crc64_fold_available() == 1

  /// Whether the folding path folds 512 bits per instruction here (VPCLMULQDQ, AVX-512).
  static let foldsWide = kodo_crc64_wide_available() == 1

  /// The shortest feed that is folded: below it the tables are as fast.
  static let foldingMinimum = 64

  /// The register after `bytes` from `register`: their whole 16-byte blocks folded when
  /// `folding` (only where ``folds``) and there are at least ``foldingMinimum`` bytes, the rest
  /// through the tables. `wide: false` keeps the folding to 128 bits per instruction where the
  /// CPU could do 512 (tests compare the two).
  static func advance(
    _ register: UInt64, over bytes: UnsafeRawBufferPointer, folding: Bool, wide: Bool = true
  ) -> UInt64 {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return register }
    var crc = register
    var done = 0
    if folding, bytes.count >= foldingMinimum {
      crc = kodo_crc64_fold_with(crc, base, bytes.count, wide ? 1 : 0)
      done = bytes.count & ~15
    }
    guard done < bytes.count else { return crc }
    return tables.withUnsafeBufferPointer { update(crc, base + done, bytes.count - done, $0) }
  }

  /// Feeds `bytes`.
  public mutating func update(_ bytes: some Sequence<UInt8>) {
    let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
    if done == nil {
      let copy = Array(bytes)
      copy.withUnsafeBytes { update($0) }
    }
  }

  /// The CRC of the file at `path` (see `checksum(file:)`).
  ///
  /// - Throws: `StorageError(.localIO)` when the file cannot be opened or read.
  public static func checksum(fileAt path: String) throws(StorageError) -> UInt64 {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw StorageError(.localIO, "cannot open \(DisplayText.quoted(path)) to check its CRC-64")
    }
    defer { _ = close(descriptor) }
    return try checksum(file: descriptor)
  }

  /// The CRC of the open file `descriptor`, read from its start with positional reads (its
  /// offset is not moved) in chunks of at most 1 MiB (`PositionalFile.readAll`).
  ///
  /// - Throws: `StorageError(.localIO)` when the file cannot be read.
  public static func checksum(file descriptor: Int32) throws(StorageError) -> UInt64 {
    var crc = CRC64()
    if let failure = PositionalFile.readAll(descriptor, { crc.update($0) }) {
      throw StorageError(
        .localIO, "cannot read the file to check its CRC-64: \(String(cString: strerror(failure)))")
    }
    return crc.value
  }

  // Eight tables of 256 entries, flat: table k holds the CRC of a byte followed by k zero bytes.
  private static let tables: [UInt64] = {
    var tables = [UInt64](repeating: 0, count: 8 * 256)
    for byte in 0..<256 {
      var crc = UInt64(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
      tables[byte] = crc
    }
    for byte in 0..<256 {
      for table in 1..<8 {
        let previous = tables[(table - 1) * 256 + byte]
        tables[table * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
      }
    }
    return tables
  }()

  private static func update(
    _ start: UInt64, _ base: UnsafeRawPointer, _ count: Int, _ t: UnsafeBufferPointer<UInt64>
  ) -> UInt64 {
    var crc = start
    var offset = 0
    // Eight bytes at a time: one little-endian load, eight independent table lookups.
    while count - offset >= 8 {
      let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      let x = crc ^ word
      crc =
        t[7 * 256 + Int(x & 0xFF)] ^ t[6 * 256 + Int(x >> 8 & 0xFF)]
        ^ t[5 * 256 + Int(x >> 16 & 0xFF)] ^ t[4 * 256 + Int(x >> 24 & 0xFF)]
        ^ t[3 * 256 + Int(x >> 32 & 0xFF)] ^ t[2 * 256 + Int(x >> 40 & 0xFF)]
        ^ t[1 * 256 + Int(x >> 48 & 0xFF)] ^ t[Int(x >> 56)]
      offset += 8
    }
    while offset < count {
      let byte = base.load(fromByteOffset: offset, as: UInt8.self)
      crc = (crc >> 8) ^ t[Int((crc ^ UInt64(byte)) & 0xFF)]
      offset += 1
    }
    return crc
  }
}

extension CRC64: RunningDigest {
  /// The value in decimal, as `x-oss-hash-crc64ecma` writes it.
  public var text: String { decimal }
}
