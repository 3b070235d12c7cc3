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
    storageClass =
      switch metadata.type {
      case 1, 4: "IA"
      case 2: "Archive"
      case 3: "ColdArchive"
      default: "Standard"
      }
    if storageClass == "Archive" || storageClass == "ColdArchive" {
      switch metadata.restoreStatus {
      case 1: restore = OSSRestore(ongoing: true)
      case 2:
        // Restored copies stay readable for a while; deterministic, in the future.
        restore = OSSRestore(
          ongoing: false, expiry: Self.restoredUntil + Int64(index % 30) * 86_400)
      default: restore = nil
      }
    }
    let md5 = metadata.md5.flatMap(Self.hexBytes)
    var parts = 0
    objectType = "Normal"
    if let seed {
      let word = Mixing.mix(seed ^ 0x6F73_73, UInt64(index))
      let partSize: Int64 = 1 << 20
      if metadata.fsize >= 4 * partSize || word % 10 == 0 {
        objectType = "Multipart"
        parts = max(1, Int((metadata.fsize + partSize - 1) / partSize))
      } else if word % 10 == 1 {
        objectType = "Appendable"
        nextAppendPosition = metadata.fsize
      }
    }
    if objectType == "Normal", let md5 {
      etag = Self.upperHex(md5)
    } else {
      let tag = Self.derivedTag(metadata.hash)
      etag = parts > 0 ? tag + "-" + String(parts) : tag
    }
    contentMD5 = md5.map { Data($0).base64EncodedString() }
  }

  /// Whether a GET must wait for a restore (archive objects not restored).
  var needsRestore: Bool {
    (storageClass == "Archive" || storageClass == "ColdArchive")
      && (restore == nil || restore?.ongoing == true)
  }

  /// 2030-01-01T00:00:00Z.
  private static let restoredUntil: Int64 = 1_893_456_000

  /// 32 upper-case hex digits from the qetag's digest (bytes 1 to 16 of its URL-safe base64),
  /// or, for a tag that is not one, from its MD5.
  private static func derivedTag(_ qetag: String) -> String {
    let symbols = Array(qetag.utf8.prefix(24))
    var bytes = [UInt8]()
    bytes.reserveCapacity(18)
    var index = 0
    while index + 4 <= symbols.count {
      guard let a = sextet(symbols[index]), let b = sextet(symbols[index + 1]),
        let c = sextet(symbols[index + 2]), let d = sextet(symbols[index + 3])
      else { break }
      bytes.append(a << 2 | b >> 4)
      bytes.append((b & 0x0F) << 4 | c >> 2)
      bytes.append((c & 0x03) << 6 | d)
      index += 4
    }
    guard bytes.count == 18 else { return MD5.hex(Array(qetag.utf8)).uppercased() }
    return upperHex(bytes[1..<17])
  }

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

  private static func hexBytes(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count == 32 else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(16)
    var index = 0
    while index < 32 {
      guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func nibble(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  private static func upperHex(_ bytes: some Collection<UInt8>) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
      var position = 0
      for byte in bytes {
        buffer[position] = hexDigits[Int(byte >> 4)]
        buffer[position + 1] = hexDigits[Int(byte & 15)]
        position += 2
      }
      return position
    }
  }

  private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
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
