import StorageCore

/// Kodo's `EncodedEntryURI`: URL-safe base64 (padded) of `bucket:key`, or of `bucket` alone.
///
/// An empty key keeps its colon (`bucket:`); only an absent key drops it.
package enum EncodedEntryURI {
  /// Encodes a bucket and an optional key.
  package static func encode(bucket: String, key: String?) -> String {
    guard let key else { return URLSafeBase64.encode(bucket) }
    var bytes: [UInt8] = []
    var scratch: [UInt8] = []
    append(bucket: bucket, key: key, to: &bytes, scratch: &scratch)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the entry of `bucket:key` to `bytes` without building a string (a batch writes a
  /// thousand); `scratch` is working space, reused from one call to the next.
  package static func append(
    bucket: String, key: String, to bytes: inout [UInt8], scratch: inout [UInt8]
  ) {
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: bucket.utf8)
    scratch.append(UInt8(ascii: ":"))
    scratch.append(contentsOf: key.utf8)
    scratch.withUnsafeBufferPointer { URLSafeBase64.append($0, to: &bytes) }
  }

  /// Decodes an entry, splitting on the first colon so keys that contain `:` survive.
  ///
  /// - Returns: `nil` when the text is not URL-safe base64 or not UTF-8.
  package static func decode(_ encoded: String) -> (bucket: String, key: String?)? {
    guard let bytes = URLSafeBase64.decode(encoded),
      String(validating: bytes, as: UTF8.self) != nil
    else { return nil }
    // Split on the first colon byte: a colon followed by a combining mark is one Character, so
    // a Character search would miss it.
    guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
      return (String(decoding: bytes, as: UTF8.self), nil)
    }
    return (
      String(decoding: bytes[..<colon], as: UTF8.self),
      String(decoding: bytes[(colon + 1)...], as: UTF8.self)
    )
  }
}
