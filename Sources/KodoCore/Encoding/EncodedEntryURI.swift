/// Kodo's `EncodedEntryURI`: URL-safe base64 (padded) of `bucket:key`, or of `bucket` alone.
///
/// An empty key keeps its colon (`bucket:`); only an absent key drops it.
public enum EncodedEntryURI {
  /// Encodes a bucket and an optional key.
  public static func encode(bucket: String, key: String?) -> String {
    guard let key else { return URLSafeBase64.encode(bucket) }
    return URLSafeBase64.encode(bucket + ":" + key)
  }

  /// Decodes an entry, splitting on the first colon so keys that contain `:` survive.
  ///
  /// - Returns: `nil` when the text is not URL-safe base64 or not UTF-8.
  public static func decode(_ encoded: String) -> (bucket: String, key: String?)? {
    guard let bytes = URLSafeBase64.decode(encoded),
      let text = String(validating: bytes, as: UTF8.self)
    else { return nil }
    guard let colon = text.firstIndex(of: ":") else { return (text, nil) }
    return (String(text[..<colon]), String(text[text.index(after: colon)...]))
  }
}
