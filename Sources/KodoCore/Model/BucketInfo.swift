public import StorageCore

/// `/v2/bucketInfo`: every field Kodo sent, in order, with typed accessors for the common ones.
public struct BucketInfo: Sendable, Equatable {
  /// The bucket's name.
  public var name: String
  /// All fields of the answer, in Kodo's order.
  public var fields: [JSONValue.Member]

  /// Bucket info from the answer's fields.
  public init(name: String, fields: [JSONValue.Member]) {
    self.name = name
    self.fields = fields
  }

  /// The value of field `name`.
  public subscript(name: String) -> JSONValue? {
    fields.first(where: { $0.name == name })?.value
  }

  /// `private != 0 || protected != 0`: downloads need a signed URL.
  public var needsSignedURLs: Bool {
    func flag(_ name: String) -> Bool {
      switch self[name] {
      case .number(let text): text != "0"
      case .bool(let value): value
      default: false
      }
    }
    return flag("private") || flag("protected")
  }

  /// The region id, when sent.
  public var region: String? {
    if case .string(let text) = self["region"] { return text }
    return nil
  }
}
