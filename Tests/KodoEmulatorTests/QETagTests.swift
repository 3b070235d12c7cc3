import Foundation
import KodoCore
import StorageCore
import Testing

@testable import KodoEmulator

/// Expected values computed with the official Python SDK (qiniu 7.18.0,
/// `qiniu.utils.etag_stream`) over the same bytes.
@Suite struct QETagTests {
  /// Byte `i` is `(i * 31 + i >> 7) & 0xff`: the pattern hashed with the SDK.
  static func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 7)) }
  }

  @Test func emptyContent() {
    #expect(QETag.hash(of: []) == "Fto5o-5ea0sNMlW_75VgGJCv2AcJ")
    #expect(QETag.hash(blockDigests: []) == "Fto5o-5ea0sNMlW_75VgGJCv2AcJ")
  }

  @Test func smallContent() {
    #expect(QETag.hash(of: Array("hello kodo".utf8)) == "FiIkEX6oRGOXGQRFh3J8ICs8jFpH")
  }

  @Test func exactlyOneBlock() {
    #expect(QETag.hash(of: Self.pattern(4 * 1_048_576)) == "Fm0NDl7LfTrCLdP0M1BIWH32YaqL")
  }

  @Test func oneByteOverOneBlock() {
    #expect(QETag.hash(of: Self.pattern(4 * 1_048_576 + 1)) == "lpZxT4THgpiojEdXQNI01dObvQ9X")
  }

  @Test func nineMebibytesInMemoryAndFromAFile() throws {
    let data = Self.pattern(9 * 1_048_576)
    #expect(QETag.hash(of: data) == "ltyjYMaXcYX6iqzyg9XTS4zGKN7B")
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try directory.write("nine.bin", data)
    #expect(try QETag.hash(fileAt: directory.path + "/nine.bin") == "ltyjYMaXcYX6iqzyg9XTS4zGKN7B")
    try directory.write("empty", [])
    #expect(try QETag.hash(fileAt: directory.path + "/empty") == "Fto5o-5ea0sNMlW_75VgGJCv2AcJ")
  }

  /// `hash(file:)` reads an open descriptor from its start with positional reads: the offset
  /// a caller is at (an upload reading the same descriptor) does not move, and sizes at and
  /// around the block edge hash as in memory.
  @Test func anOpenFileHashesFromItsStartWithoutMovingItsOffset() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    for size in [0, 1, 4095, 4 * 1_048_576, 4 * 1_048_576 + 1, 9 * 1_048_576] {
      let data = Self.pattern(size)
      try directory.write("f", data)
      let file = open(directory.path + "/f", O_RDONLY | O_CLOEXEC)
      try #require(file >= 0)
      defer { close(file) }
      let offset = off_t(size / 2)
      #expect(lseek(file, offset, SEEK_SET) == offset)
      #expect(try QETag.hash(file: file) == QETag.hash(of: data), "size \(size)")
      #expect(lseek(file, 0, SEEK_CUR) == offset)
    }
  }

  @Test func missingFileThrows() {
    #expect(throws: QETag.FileError.self) {
      try QETag.hash(fileAt: "/nonexistent/kodo-emulator/file")
    }
  }

  @Test func md5MatchesRFC1321() {
    #expect(MD5.hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
    #expect(MD5.hex(Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
    #expect(
      MD5.hex(Array("The quick brown fox jumps over the lazy dog".utf8))
        == "9e107d9d372bb6826bd81d3542a419d6")
    #expect(MD5.hex(Array(repeating: 0x61, count: 1_000)) == "cabe45dcc9ae5b66ba86600cca6b8ba8")
  }
}
