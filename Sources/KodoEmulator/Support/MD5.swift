import KodoCore
import StorageCore

/// MD5 as lowercase hex, for the `md5` field some synthetic objects carry. Not for security.
enum MD5 {
  /// The 32-character lowercase hex MD5 of `bytes`.
  static func hex(_ bytes: [UInt8]) -> String {
    var text = [UInt8]()
    text.reserveCapacity(32)
    for byte in Digest.md5(bytes) {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 15)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}
