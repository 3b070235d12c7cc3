import Foundation
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@testable import OSSCore

/// CRC-64/ECMA-182 computed one bit at a time, straight from the definition: the reference the
/// table-driven implementation is checked against.
func bitwiseCRC64(_ bytes: [UInt8]) -> UInt64 {
  var crc: UInt64 = ~0
  for byte in bytes {
    crc ^= UInt64(byte)
    for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ CRC64.polynomial : crc >> 1 }
  }
  return ~crc
}

@Suite("CRC-64/ECMA")
struct CRC64Tests {
  @Test func knownValues() {
    #expect(CRC64.checksum(Array("123456789".utf8)) == 0x995D_C9BB_DF19_39FA)
    #expect(CRC64.checksum(Array("123456789".utf8)) == 11_051_210_869_376_104_954)
    #expect(CRC64.checksum([UInt8]()) == 0)
    #expect(CRC64().decimal == "0")
    // Slicing-by-8 agrees with the bit-by-bit definition at every length around the 8-byte
    // steps.
    var rng = seededGenerator(1)
    for length in 0..<80 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
      #expect(CRC64.checksum(bytes) == bitwiseCRC64(bytes), "length \(length)")
    }
  }

  @Test func anySplitGivesTheSameValue() async {
    await seededCheck(
      count: iterations(200),
      input: randomInput { rng in
        let bytes = (0..<rng.below(3000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return (bytes, rng.below(bytes.count + 1), rng.below(bytes.count + 1))
      }
    ) { input in
      let (bytes, first, second) = input
      let (low, high) = (min(first, second), max(first, second))
      var crc = CRC64()
      crc.update(bytes[0..<low])
      bytes[low..<high].withUnsafeBytes { crc.update($0) }
      crc.update(Array(bytes[high...]))
      #expect(crc.value == CRC64.checksum(bytes))
      #expect(crc.value == bitwiseCRC64(bytes))
    }
  }

  @Test func checkValuesOfFoldedLengths() {
    // Long enough to go through the folding path where the CPU has it: values from crcmod
    // (poly 0x142F0E1EBA9EA3693, reflected, xorOut all ones), an implementation of its own.
    let repeated = Array(repeatElement(Array("123456789".utf8), count: 100).joined())
    #expect(CRC64.checksum(repeated) == 0x34D4_1629_E4EC_8D50)
    #expect(bitwiseCRC64(repeated) == 0x34D4_1629_E4EC_8D50)
    let counting =
      Array(repeatElement((0...255).map { UInt8($0) }, count: 16).joined())
      + Array("kodo".utf8)
    #expect(CRC64.checksum(counting) == 0x41B5_A7B6_A411_0BA1)
    #expect(bitwiseCRC64(counting) == 0x41B5_A7B6_A411_0BA1)
  }

  /// The folding path (PCLMULQDQ) against the tables, from any register, at every length up to
  /// several KiB and every alignment of the first byte, fed whole and in pieces.
  @Test(.enabled(if: CRC64.folds, "the CPU has no PCLMULQDQ"))
  func foldingAgreesWithTheTables() async {
    await seededCheck(
      count: iterations(400),
      input: randomInput { rng in
        let length = rng.below(6000)
        let bytes = (0..<length + 64).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let cuts = (0..<rng.below(4)).map { _ in rng.below(length + 1) }.sorted()
        return (bytes, length, rng.below(64), UInt64.random(in: 0...UInt64.max, using: &rng), cuts)
      }
    ) { input in
      let (bytes, length, alignment, register, cuts) = input
      bytes.withUnsafeBytes { all in
        let window = UnsafeRawBufferPointer(rebasing: all[alignment..<alignment + length])
        let tables = CRC64.advance(register, over: window, folding: false)
        #expect(CRC64.advance(register, over: window, folding: true) == tables)
        #expect(CRC64.advance(register, over: window, folding: true, wide: false) == tables)
        var folded = register
        var start = 0
        for end in cuts + [length] {
          let piece = UnsafeRawBufferPointer(rebasing: window[start..<end])
          folded = CRC64.advance(folded, over: piece, folding: true)
          start = end
        }
        #expect(folded == tables, "length \(length), alignment \(alignment), cuts \(cuts)")
      }
    }
    // Every length around the folding minimum, the 16- and 64-byte steps, and the 512-bit
    // path's 512-byte minimum and 256-byte rounds, from ~0; both widths of folding.
    var rng = seededGenerator(5)
    let bytes = (0..<1_300).map { _ in UInt8.random(in: 0...255, using: &rng) }
    bytes.withUnsafeBytes { all in
      for length in 0...all.count {
        let window = UnsafeRawBufferPointer(rebasing: all[0..<length])
        let tables = CRC64.advance(~0, over: window, folding: false)
        #expect(CRC64.advance(~0, over: window, folding: true) == tables, "length \(length)")
        #expect(
          CRC64.advance(~0, over: window, folding: true, wide: false) == tables,
          "length \(length), 128-bit folding")
      }
    }
  }

  @Test func combineIsTheCRCOfTheConcatenation() async {
    await seededCheck(
      count: iterations(200),
      input: randomInput { rng in
        let first = (0..<rng.below(3000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let second = (0..<rng.below(3000)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let lengths = (0..<3).map { _ in Int64.random(in: 0...(1 << 62), using: &rng) }
        let crcs = (0..<3).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
        return (first, second, lengths, crcs)
      }
    ) { input in
      let (first, second, lengths, crcs) = input
      #expect(
        CRC64.combine(CRC64.checksum(first), CRC64.checksum(second), length: Int64(second.count))
          == CRC64.checksum(first + second))
      // Lengths far past any content: joining is associative.
      let (b, c) = (lengths[1] / 2, lengths[2] / 2)
      #expect(
        CRC64.combine(CRC64.combine(crcs[0], crcs[1], length: b), crcs[2], length: c)
          == CRC64.combine(crcs[0], CRC64.combine(crcs[1], crcs[2], length: c), length: b + c))
    }
  }

  @Test func files() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("oss-crc64-\(UInt64.random(in: 0...UInt64.max))").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    var rng = seededGenerator(3)
    let bytes = (0..<(3 << 20) + 17).map { _ in UInt8.random(in: 0...255, using: &rng) }
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    #expect(try CRC64.checksum(fileAt: path) == CRC64.checksum(bytes))
    #expect(throws: StorageError.self) { try CRC64.checksum(fileAt: path + ".missing") }
    // An open descriptor is read from its start, its offset left where the caller had it.
    let file = open(path, O_RDONLY | O_CLOEXEC)
    try #require(file >= 0)
    defer { close(file) }
    #expect(lseek(file, 12345, SEEK_SET) == 12345)
    #expect(try CRC64.checksum(file: file) == CRC64.checksum(bytes))
    #expect(lseek(file, 0, SEEK_CUR) == 12345)
  }
}
