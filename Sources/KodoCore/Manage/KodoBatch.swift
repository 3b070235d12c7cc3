package import StorageCore

/// Kodo's `/batch` (`docs/write-protocol.md` §A9): up to 1000 operations in one form body,
/// answered with one result per operation, in order: HTTP 200 when all succeeded, 298 when some
/// failed.
public enum KodoBatch {
  /// The most operations one request may carry.
  public static let limit = 1000

  /// The form body `op=<op>&op=<op>…`, each operation's path percent-encoded (`/` → `%2F`,
  /// `=` → `%3D`). Paths are sent without their leading `/`, as Qiniu's Python SDK writes them
  /// (the service takes both spellings).
  ///
  /// Written as bytes in one buffer: `rm -r`, `mv -r` and `cp -r` send a thousand operations a
  /// request, and each would otherwise build its entries, path and escaped value as strings.
  /// The bytes are those of `formBody` of the operations' paths.
  public static func body(_ operations: [KodoOperation]) -> [UInt8] {
    body(operations[...])
  }

  /// `body` of the operations of a slice.
  static func body(_ operations: ArraySlice<KodoOperation>) -> [UInt8] {
    var body: [UInt8] = []
    body.reserveCapacity(operations.count * 128)
    var scratch: [UInt8] = []
    // By index: `for operation in operations` would copy each one (a retain per string).
    for index in operations.indices {
      if index != operations.startIndex { body.append(UInt8(ascii: "&")) }
      body.append(contentsOf: "op=".utf8)
      operations[index].appendPath(to: &body, scratch: &scratch, asForm: true)
    }
    return body
  }

  /// `body` of the deletes of `keys` in `bucket` (`rm -r`'s batches), written from the keys.
  package static func deleteBody(bucket: String, keys: ArraySlice<String>) -> [UInt8] {
    var body: [UInt8] = []
    body.reserveCapacity(keys.count * (bucket.utf8.count + 64))
    var scratch: [UInt8] = []
    for index in keys.indices {
      if index != keys.startIndex { body.append(UInt8(ascii: "&")) }
      body.append(contentsOf: "op=".utf8)
      KodoOperation.appendDelete(
        bucket: bucket, key: keys[index], to: &body, scratch: &scratch, asForm: true)
    }
    return body
  }

  /// The form body for operation paths given as text, in order.
  package static func formBody(_ paths: [String]) -> [UInt8] {
    var query = QueryString()
    for path in paths { query.append("op", path) }
    return Array(query.encoded.utf8)
  }

  /// One operation's result: its code (200 for success) and Kodo's error text when it failed.
  public struct Result: Sendable, Equatable {
    /// Kodo's code for the operation (200, 612, 614…).
    public var code: Int
    /// The `error` of the result's `data`, when it failed.
    public var error: String?

    /// A result from its parts.
    public init(code: Int, error: String? = nil) {
      self.code = code
      self.error = error
    }
  }

  /// The results of a batch answer: a JSON array of `{"code":N,"data":{…}}`, whatever the HTTP
  /// status (200, 298, or the code of a batch that failed as a whole).
  ///
  /// - Throws: `.protocolError` when the body is not such an array, or holds another number of
  ///   results than `expected`.
  package static func results(_ body: [UInt8], expected: Int, requestID: String?)
    throws(StorageError) -> [Result]
  {
    let results = try Decode.answer("batch", body, requestID: requestID) {
      (reader) throws(JSONReader.Failure) in
      var results: [Result] = []
      results.reserveCapacity(expected)
      try reader.readArray { (reader) throws(JSONReader.Failure) in
        var result = Result(code: 0)
        // Names as `MemberName`s: a thousand results, no string made for each name.
        try reader.readMembers { (reader, name) throws(JSONReader.Failure) in
          switch name {
          case "code": result.code = Int(clamping: try reader.readInt64())
          case "data":
            guard try reader.peekKind() == .object else { return try reader.skipValue() }
            try reader.readObject { (reader, field) throws(JSONReader.Failure) in
              if field == "error", try reader.peekKind() == .string {
                result.error = try reader.readString()
              } else {
                try reader.skipValue()
              }
            }
          default: try reader.skipValue()
          }
        }
        results.append(result)
      }
      return results
    }
    guard results.count == expected else {
      throw StorageError(
        .protocolError,
        "Kodo answered a batch of \(expected) operations with \(results.count) results",
        requestID: requestID)
    }
    return results
  }
}
