import Foundation
import KodoCore
import NIOCore
import OSSCore
import StorageCore

/// An object as OSS describes it, derived from the store's metadata (the Kodo view of the same
/// object is unchanged).
///
/// - Storage class: Kodo's standard and intelligent tiering are `Standard`, IA and archive IR
///   `IA`, archive `Archive`, deep archive `ColdArchive`; Kodo's restore state becomes
///   `x-oss-restore`.
/// - Object type: `Normal` in directory and in-memory buckets. In synthetic buckets, from the
///   seed and the index: objects of 4 MiB and more were multipart uploads (1 MiB parts), and of
///   the rest one in ten is `Multipart` and one in ten `Appendable`.
/// - ETag: the MD5 (upper-case hex) where the store knows it and the object is `Normal`;
///   otherwise a tag derived from the content's qetag, with `-N` for a multipart object.
struct OSSObjectView {
  var key: String
  var size: Int64
  /// Unix seconds.
  var lastModified: Int64
  var contentType: String
  /// Without quotes.
  var etag: String
  /// Base64 of the MD5, when known.
  var contentMD5: String?
  var objectType: String
  var storageClass: String
  var restore: OSSRestore?
  var meta: [MetaMember]
  var nextAppendPosition: Int64?

  init(key: [UInt8], metadata: ObjectMetadata, index: Int, synthetic seed: UInt64?) {
    self.key = String(decoding: key, as: UTF8.self)
    size = metadata.fsize
    lastModified = KodoTime.unixSeconds(hundredNanoseconds: metadata.putTime)
    contentType = metadata.mimeType
    meta = metadata.meta
    storageClass = Self.storageClass(kodoType: metadata.type)
    restore = Self.restore(metadata, storageClass: storageClass, index: index)
    let kind = Self.kind(metadata, index: index, synthetic: seed)
    objectType = kind.type
    if objectType == "Appendable" { nextAppendPosition = metadata.fsize }
    var tag = [UInt8]()
    Self.appendETag(metadata, objectType: objectType, parts: kind.parts, to: &tag)
    etag = String(decoding: tag, as: UTF8.self)
    contentMD5 = metadata.md5.flatMap(Self.md5Bytes).map { Data($0).base64EncodedString() }
  }

  // MARK: The pieces, also written straight into listings

  /// Kodo's storage class number as OSS names the class.
  static func storageClass(kodoType: Int) -> String {
    switch kodoType {
    case 1, 4: "IA"
    case 2: "Archive"
    case 3: "ColdArchive"
    default: "Standard"
    }
  }

  /// The restore state of an archived object (`storageClass` from `storageClass(kodoType:)`).
  static func restore(_ metadata: ObjectMetadata, storageClass: String, index: Int)
    -> OSSRestore?
  {
    guard storageClass == "Archive" || storageClass == "ColdArchive" else { return nil }
    switch metadata.restoreStatus {
    case 1: return OSSRestore(ongoing: true)
    case 2:
      // Restored copies stay readable for a while; deterministic, in the future.
      return OSSRestore(ongoing: false, expiry: restoredUntil + Int64(index % 30) * 86_400)
    default: return nil
    }
  }

  /// The object type and, for a multipart object, its number of parts (else 0; a written
  /// object's ETag already names them).
  static func kind(_ metadata: ObjectMetadata, index: Int, synthetic seed: UInt64?)
    -> (type: String, parts: Int)
  {
    if metadata.isMultipart { return ("Multipart", 0) }
    return kind(size: metadata.fsize, index: index, synthetic: seed)
  }

  /// `kind` for an object that was not written in parts (every synthetic one), from its size.
  static func kind(size: Int64, index: Int, synthetic seed: UInt64?) -> (type: String, parts: Int) {
    guard let seed else { return ("Normal", 0) }
    let word = Mixing.mix(seed ^ 0x6F73_73, UInt64(index))
    let partSize: Int64 = 1 << 20
    if size >= 4 * partSize || word % 10 == 0 {
      return ("Multipart", max(1, Int((size + partSize - 1) / partSize)))
    }
    return word % 10 == 1 ? ("Appendable", 0) : ("Normal", 0)
  }

  /// Appends the ETag, without quotes, as ASCII: the MD5 for a `Normal` object whose MD5 is
  /// known, else the tag derived from the qetag, `-N` after it for `parts` parts. `qetag`, when
  /// given, is what the qetag encodes (its kind byte and SHA-1; `metadata.hash` is then not
  /// read).
  static func appendETag(
    _ metadata: ObjectMetadata, qetag: [UInt8]? = nil, objectType: String, parts: Int,
    to tag: inout [UInt8]
  ) {
    if let etag = metadata.ossETag {
      tag.append(contentsOf: etag.utf8)
      return
    }
    if objectType == "Normal", let md5 = metadata.md5, appendUpperHexDigits(md5, to: &tag) {
      return
    }
    if let qetag, qetag.count >= 17 {
      qetag.withUnsafeBytes {
        appendUpperHex(UnsafeRawBufferPointer(rebasing: $0[1..<17]), to: &tag)
      }
    } else {
      appendDerivedTag(metadata.hash, to: &tag)
    }
    if parts > 0 {
      tag.append(UInt8(ascii: "-"))
      DecimalText.append(Int64(parts), to: &tag)
    }
  }

  /// Appends a 32-digit hex MD5 in upper case; `false` (nothing appended) when it is not one.
  private static func appendUpperHexDigits(_ md5: String, to tag: inout [UInt8]) -> Bool {
    var md5 = md5
    return md5.withUTF8 { digits in
      guard digits.count == 32 else { return false }
      var valid = true
      // Checked and upper-cased in one pass into the tag's room; none of it is kept unless
      // every byte is a hex digit.
      tag.appendBytes(upTo: 32) { upper in
        for position in 0..<32 {
          let digit = digits[position]
          let lower = digit | 0x20
          if digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") {
            upper[position] = digit
          } else if lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f") {
            upper[position] = lower &- 0x20
          } else {
            valid = false
            return 0
          }
        }
        return 32
      }
      return valid
    }
  }

  /// Whether a GET must wait for a restore (archive objects not restored).
  var needsRestore: Bool {
    (storageClass == "Archive" || storageClass == "ColdArchive")
      && (restore == nil || restore?.ongoing == true)
  }

  /// 2030-01-01T00:00:00Z.
  private static let restoredUntil: Int64 = 1_893_456_000

  /// Appends 32 upper-case hex digits from the qetag's digest (bytes 1 to 16 of its URL-safe
  /// base64), or, for a tag that is not one, from its MD5.
  private static func appendDerivedTag(_ qetag: String, to tag: inout [UInt8]) {
    // The first 24 symbols decode to 18 bytes; bytes 1...16 are kept, in a stack buffer.
    var decoded: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var qetag = qetag
    let complete = withUnsafeMutableBytes(of: &decoded) { bytes -> Bool in
      qetag.withUTF8 { symbols in decode(symbols, into: bytes) }
    }
    guard complete else {
      tag += MD5.hex(Array(qetag.utf8)).uppercased().utf8
      return
    }
    withUnsafeBytes(of: &decoded) { bytes in
      appendUpperHex(UnsafeRawBufferPointer(rebasing: bytes[1..<17]), to: &tag)
    }
  }

  /// Appends (the first 16 of) `bytes` as upper-case hex digits, two a byte.
  private static func appendUpperHex(_ bytes: UnsafeRawBufferPointer, to tag: inout [UInt8]) {
    let count = min(bytes.count, 16)
    tag.appendBytes(upTo: 2 * count) { hex in
      for position in 0..<count {
        let byte = bytes[position]
        hex[2 * position] = hexDigit(byte >> 4)
        hex[2 * position + 1] = hexDigit(byte & 15)
      }
      return 2 * count
    }
  }

  /// Decodes the first 24 URL-safe base64 symbols into the first 18 bytes of `bytes`; `false`
  /// when there are fewer or one is not a base64 symbol.
  private static func decode(
    _ qetag: UnsafeBufferPointer<UInt8>, into bytes: UnsafeMutableRawBufferPointer
  ) -> Bool {
    guard qetag.count >= 24 else { return false }
    return sextets.withUnsafeBufferPointer { sextets in
      // Four symbols (a 0xFF marks a byte that is not one) make three bytes.
      for group in 0..<6 {
        let a = sextets[Int(qetag[4 * group])]
        let b = sextets[Int(qetag[4 * group + 1])]
        let c = sextets[Int(qetag[4 * group + 2])]
        let d = sextets[Int(qetag[4 * group + 3])]
        guard (a | b | c | d) < 64 else { return false }
        let quad = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
        bytes[3 * group] = UInt8(truncatingIfNeeded: quad >> 16)
        bytes[3 * group + 1] = UInt8(truncatingIfNeeded: quad >> 8)
        bytes[3 * group + 2] = UInt8(truncatingIfNeeded: quad)
      }
      return true
    }
  }

  /// Each byte's URL-safe base64 value, 0xFF for a byte that is not a symbol.
  private static let sextets: [UInt8] = (0...255).map { sextet(UInt8($0)) ?? 0xFF }

  /// The value of a URL-safe base64 symbol.
  private static func sextet(_ symbol: UInt8) -> UInt8? {
    switch symbol {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): symbol - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): symbol - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): symbol - UInt8(ascii: "0") + 52
    case UInt8(ascii: "-"): 62
    case UInt8(ascii: "_"): 63
    default: nil
    }
  }

  /// The 16 bytes of a 32-digit hex MD5 (either case); `nil` when it is not one.
  private static func md5Bytes(_ text: String) -> [UInt8]? {
    guard let bytes = Hex.decode(text), bytes.count == 16 else { return nil }
    return bytes
  }

  /// An upper-case hex digit for a value under 16.
  @inline(__always)
  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "A") &+ (value &- 10)
  }
}

/// The CRC-64/ECMA of objects, computed on first use and remembered (at most `capacity`).
final class ChecksumMemo: Sendable {
  private let memo = Locked([String: UInt64]())
  private let capacity = 100_000

  /// The CRC of `body`, the object at `index` of `bucket`; `nil` when the body cannot be read.
  func crc64(bucket: String, index: Int, body: ObjectBody) -> UInt64? {
    let name = bucket + "/" + String(index)
    if let known = memo.withLock({ $0[name] }) { return known }
    var crc = CRC64()
    var offset: Int64 = 0
    let chunk = 256 * 1024
    var buffer = ByteBuffer()
    while offset < body.length {
      let count = Int(min(Int64(chunk), body.length - offset))
      buffer.clear()
      do {
        try body.read(offset, count, &buffer)
      } catch {
        return nil
      }
      guard buffer.readableBytes == count else { return nil }
      buffer.withUnsafeReadableBytes { crc.update($0) }
      offset += Int64(count)
    }
    let value = crc.value
    memo.withLock { table in
      if table.count >= capacity { table.removeAll(keepingCapacity: true) }
      table[name] = value
    }
    return value
  }
}
