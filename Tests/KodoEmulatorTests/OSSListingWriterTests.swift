import Foundation
import KodoTestSupport
import NIOCore
import OSSCore
import PropertyBased
import StorageCore
import Testing

@testable import KodoEmulator

/// The emulator's ListObjects writer writes each entry through a raw pointer (`RawXML`); these
/// tests hold it to what OSSCore's `XMLWriter` writes for the same page, element by element (the
/// writer it replaced, kept here as the reference), on seeded hostile keys: control bytes,
/// `&<>"'`, U+2028, CJK, emoji, bytes that are not UTF-8 and very long keys, V1 and V2, with and
/// without `encoding-type=url`, owners and restore states; whole, and split where the emulator
/// sends its lead.
@Suite("The OSS listing writer writes what XMLWriter writes")
struct OSSListingWriterTests {
  /// One entry of a page, as the emulator appends it.
  enum Entry {
    case object(
      key: [UInt8], time: Timestamp, etag: [UInt8]?, type: String?, size: Int64,
      storageClass: String?, owner: OSSOwner?, restore: OSSRestore?)
    case prefix([UInt8])
  }

  static let palette: [[UInt8]] =
    [
      "a", "Z", "0", "/", "-", "_", ".", "~", " ", "+", "%", "&", "<", ">", "\"", "'", "=", "?",
      "#", "\u{2028}", "\u{2029}", "照片", "😀", "\t", "\n", "\r",
    ].map { Array($0.utf8) }
    + [[0x00], [0x01], [0x1F], [0x7F], [0xFF], [0xE2, 0x80], [0xC3]]

  static func text(_ random: inout SplitMix64, length: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for _ in 0..<length {
      bytes += palette[Int(random.next() % UInt64(palette.count))]
    }
    return bytes
  }

  static func string(_ random: inout SplitMix64) -> String {
    // A header's strings are Strings: valid UTF-8 (a lone byte becomes U+FFFD).
    String(decoding: text(&random, length: Int(random.next() % 12)), as: UTF8.self)
  }

  /// A page from `seed`: its header and its entries, objects before common prefixes.
  static func page(_ seed: UInt64) -> (OSSListObjectsResult, [Entry]) {
    var random = SplitMix64(seed: seed)
    var header = OSSListObjectsResult(
      name: string(&random), prefix: string(&random), delimiter: random.next() % 2 == 0 ? "/" : "",
      maxKeys: Int64(random.next() % 1_001), encodingType: random.next() % 2 == 0 ? "url" : nil,
      isTruncated: random.next() % 2 == 0)
    if random.next() % 2 == 0 {
      header.continuationToken = random.next() % 2 == 0 ? string(&random) : nil
      header.startAfter = random.next() % 2 == 0 ? string(&random) : nil
      header.keyCount = random.next() % 2 == 0 ? Int64(random.next() % 1_000) : nil
      header.nextContinuationToken = string(&random)
    } else {
      header.marker = random.next() % 2 == 0 ? string(&random) : nil
      header.nextMarker = random.next() % 2 == 0 ? string(&random) : nil
    }
    var entries: [Entry] = []
    for _ in 0..<Int(random.next() % 12) {
      let long = random.next() % 8 == 0
      let key = text(&random, length: Int(random.next() % (long ? 1_200 : 30)))
      let time = Timestamp(
        hundredNanoseconds: Int64(bitPattern: random.next() % (1 << 62)) - (1 << 61),
        fractionDigits: Int(random.next() % 8))
      let owner =
        random.next() % 3 == 0 ? OSSOwner(id: string(&random), displayName: string(&random)) : nil
      let restore: OSSRestore? =
        switch random.next() % 4 {
        case 0: OSSRestore(ongoing: true)
        case 1: OSSRestore(ongoing: false, expiry: Int64(random.next() % 4_000_000_000))
        default: nil
        }
      entries.append(
        .object(
          key: key, time: time,
          etag: random.next() % 5 == 0 ? nil : text(&random, length: Int(random.next() % 40)),
          type: random.next() % 5 == 0 ? nil : string(&random),
          size: Int64(bitPattern: random.next()),
          storageClass: random.next() % 5 == 0 ? nil : string(&random), owner: owner,
          restore: restore))
    }
    for _ in 0..<Int(random.next() % 5) {
      entries.append(.prefix(text(&random, length: Int(random.next() % 40))))
    }
    return (header, entries)
  }

  /// The page as the emulator writes it, `split` entries first, then the rest (`take`).
  static func written(_ header: OSSListObjectsResult, _ entries: [Entry], split: Int) -> [UInt8] {
    var writer = OSSListingWriter(header, entries: entries.count)
    var bytes: [UInt8] = []
    for (position, entry) in entries.enumerated() {
      if position == split {
        let lead = writer.take()
        bytes += lead.readableBytesView
        writer.reserveCapacity(64)
      }
      switch entry {
      case .object(
        let key, let time, let etag, let type, let size, let storageClass, let owner,
        let restore):
        key.withUnsafeBufferPointer {
          writer.appendObject(
            key: $0, lastModified: time, etag: etag, type: type, size: size,
            storageClass: storageClass, owner: owner, restore: restore)
        }
      case .prefix(let prefix):
        prefix.withUnsafeBufferPointer { writer.appendCommonPrefix(utf8: $0) }
      }
    }
    bytes += writer.finish().readableBytesView
    return bytes
  }

  @Test func pagesAreWhatXMLWriterWrites() async {
    let seeds = Gen<UInt64>.value(in: 0...UInt64.max)
    await seededCheck(count: fuzzCount(400), input: seeds, Gen<Int>.value(in: 0...20)) {
      seed, split in
      let (header, entries) = Self.page(seed)
      let expected = ReferenceListingXML.page(header, entries)
      #expect(Self.written(header, entries, split: entries.count + 1) == expected, "\(seed)")
      #expect(Self.written(header, entries, split: split) == expected, "\(seed) at \(split)")
    }
  }

  @Test func summariesAreWhatXMLWriterWrites() {
    var random = SplitMix64(seed: 0x6F73_7370_6167_65)
    for _ in 0..<50 {
      let (header, entries) = Self.page(random.next())
      var result = header
      for entry in entries {
        switch entry {
        case .object(
          let key, let time, let etag, let type, let size, let storageClass, let owner,
          let restore):
          result.objects.append(
            OSSObjectSummary(
              key: String(decoding: key, as: UTF8.self), lastModified: time, size: size,
              etag: etag.map { String(decoding: $0, as: UTF8.self) }, type: type,
              storageClass: storageClass, owner: owner, restore: restore))
        case .prefix(let prefix):
          result.commonPrefixes.append(String(decoding: prefix, as: UTF8.self))
        }
      }
      let reference = ReferenceListingXML.page(
        header,
        result.objects.map { object in
          .object(
            key: Array(object.key.utf8), time: object.lastModified,
            etag: object.etag.map { Array($0.utf8) }, type: object.type, size: object.size,
            storageClass: object.storageClass, owner: object.owner, restore: object.restore)
        } + result.commonPrefixes.map { .prefix(Array($0.utf8)) })
      #expect(OSSAnswers.listObjectsXML(result) == reference)
    }
  }
}

/// The listing writer the raw one replaced: OSSCore's `XMLWriter`, element by element, its
/// text escaped and percent-encoded here byte by byte (not by the escapers the writers share).
enum ReferenceListingXML {
  /// `&`, `<`, `>` and `"` as entities, control characters but tab and newline as character
  /// references, every other byte as it is.
  static func escaped(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "&"): out += Array("&amp;".utf8)
      case UInt8(ascii: "<"): out += Array("&lt;".utf8)
      case UInt8(ascii: ">"): out += Array("&gt;".utf8)
      case UInt8(ascii: "\""): out += Array("&quot;".utf8)
      case 0x09, 0x0A: out.append(byte)
      case ..<0x20: out += Array("&#\(byte);".utf8)
      default: out.append(byte)
      }
    }
    return out
  }

  /// A restore state as OSS writes it, its date by Foundation's RFC 1123 formatter (not by the
  /// one the writers share).
  static func restoreText(_ restore: OSSRestore) -> String {
    guard let expiry = restore.expiry else { return "ongoing-request=\"\(restore.ongoing)\"" }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    let date = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(expiry)))
    return "ongoing-request=\"\(restore.ongoing)\", expiry-date=\"\(date)\""
  }

  /// Every byte but RFC 3986's unreserved ones as `%XX`.
  static func percentEncoded(_ bytes: [UInt8]) -> [UInt8] {
    let unreserved = Set(
      Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8))
    var out: [UInt8] = []
    for byte in bytes {
      if unreserved.contains(byte) {
        out.append(byte)
      } else {
        let hex = Array("0123456789ABCDEF".utf8)
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      }
    }
    return out
  }

  static func page(_ header: OSSListObjectsResult, _ entries: [OSSListingWriterTests.Entry])
    -> [UInt8]
  {
    let url = header.encodingType == "url"
    var out = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8)
    func tag(_ name: String, _ content: [UInt8]) {
      out += Array("<\(name)>".utf8) + content + Array("</\(name)>".utf8)
    }
    func element(_ name: String, _ value: String?) {
      if let value { tag(name, escaped(Array(value.utf8))) }
    }
    func text(_ name: String, _ value: [UInt8]?) {
      if let value { tag(name, url ? percentEncoded(value) : escaped(value)) }
    }
    func text(_ name: String, _ value: String?) { text(name, value.map { Array($0.utf8) }) }
    let isV2 =
      header.continuationToken != nil || header.startAfter != nil || header.keyCount != nil
      || header.nextContinuationToken != nil
    out += Array("<ListBucketResult>".utf8)
    element("Name", header.name)
    text("Prefix", header.prefix)
    if isV2 {
      text("ContinuationToken", header.continuationToken)
      text("StartAfter", header.startAfter)
    } else {
      text("Marker", header.marker ?? "")
    }
    element("MaxKeys", String(header.maxKeys))
    text("Delimiter", header.delimiter)
    element("EncodingType", header.encodingType)
    element("IsTruncated", header.isTruncated ? "true" : "false")
    if isV2 {
      element("KeyCount", String(header.keyCount ?? Int64(entries.count)))
      text("NextContinuationToken", header.nextContinuationToken)
    } else {
      text("NextMarker", header.nextMarker)
    }
    for entry in entries {
      switch entry {
      case .object(
        let key, let time, let etag, let type, let size, let storageClass, let owner,
        let restore):
        out += Array("<Contents>".utf8)
        text("Key", key)
        // The time as OSSCore writes it (after the writer's declaration line).
        var timeXML = XMLWriter()
        timeXML.element("LastModified", time: time)
        out += timeXML.bytes.drop { $0 != 0x0A }.dropFirst()
        if let etag {
          tag("ETag", Array("&quot;".utf8) + escaped(etag) + Array("&quot;".utf8))
        }
        element("Type", type)
        element("Size", String(size))
        element("StorageClass", storageClass)
        if let owner {
          out += Array("<Owner>".utf8)
          element("ID", owner.id)
          element("DisplayName", owner.displayName)
          out += Array("</Owner>".utf8)
        }
        element("RestoreInfo", restore.map(restoreText))
        out += Array("</Contents>".utf8)
      case .prefix(let prefix):
        out += Array("<CommonPrefixes>".utf8)
        text("Prefix", prefix)
        out += Array("</CommonPrefixes>".utf8)
      }
    }
    out += Array("</ListBucketResult>".utf8)
    return out
  }
}
