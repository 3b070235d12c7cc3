import KodoTestSupport
import NIOCore
import PropertyBased
import StorageCore
import Testing

@testable import KodoEmulator

/// The emulator's JSON writer writes through a raw pointer (`RawJSON`); these tests hold it to
/// StorageCore's escaper: a key's bytes as `JSONText.appendString(utf8:)` writes them (U+2028
/// kept, invalid UTF-8 copied), other strings as `JSONText.appendString` (U+2028 escaped), and
/// numbers as decimal text.
@Suite("The emulator's raw JSON writer is StorageCore's escaper")
struct JSONWritingTests {
  static func written(_ body: (inout ByteBuffer) -> Void) -> [UInt8] {
    var buffer = ByteBuffer()
    body(&buffer)
    return Array(buffer.readableBytesView)
  }

  static let awkward: [UInt8] =
    Array("\u{0}\u{1F}\"\\\u{7F}\u{2028}\u{2029}é😀 a/".utf8) + [0xE2, 0x80, 0xFF]

  @Test func keysStringsAndNumbersAreWhatStorageCoreWrites() async {
    let bytes = Gen<UInt8?>.element(of: Self.awkward).map { $0 ?? 0x61 }.array(of: 0...40)
    await seededCheck(count: fuzzCount(2000), input: bytes, anyKey) { key, text in
      var expectedKey: [UInt8] = []
      JSONText.appendString(utf8: key, to: &expectedKey)
      #expect(Self.written { $0.writeJSONString(key) } == expectedKey, "\(key)")
      var expectedText: [UInt8] = []
      JSONText.appendString(text, to: &expectedText)
      #expect(Self.written { $0.writeJSONString(text) } == expectedText, "\(text.debugDescription)")
    }
    for value: Int64 in [0, 7, -1, 1_000_000, .max, .min] {
      #expect(Self.written { $0.writeDecimal(value) } == Array(String(value).utf8))
    }
    for value: UInt64 in [0, 42, UInt64(Int64.max), UInt64(Int64.max) + 1, .max] {
      #expect(Self.written { $0.writeDecimal(value) } == Array(String(value).utf8))
    }
  }

  @Test func objectFieldsAreValidJSONWithEveryMember() throws {
    var metadata = ObjectMetadata(
      fsize: .max, hash: "h\u{2028}\"", mimeType: "a/\u{1}", putTime: .min, type: 3, status: 1)
    metadata.md5 = "d41d8cd98f00b204e9800998ecf8427e"
    metadata.endUser = String(repeating: "\u{0}", count: 300)
    metadata.meta = [MetaMember(name: "n\"", value: "v\\"), MetaMember(name: "", value: "相机")]
    metadata.restoreStatus = 2
    metadata.lastModify = -5
    metadata.expiration = 1
    metadata.transitionToIA = 2
    metadata.transitionToArchiveIR = 3
    metadata.transitionToArchive = 4
    metadata.transitionToDeepArchive = .max
    for forList in [false, true] {
      let bytes = Self.written { buffer in
        buffer.writeStaticString("{\"k\":0")
        if !forList { buffer.writeStaticString(",") }
        buffer.writeObjectFields(metadata, forList: forList)
        buffer.writeStaticString("}")
      }
      let value = try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
      guard case .object(let members) = value else {
        Issue.record("not an object")
        continue
      }
      #expect(members.count == (forList ? 12 : 17), "\(members.map(\.name))")
    }
  }
}
