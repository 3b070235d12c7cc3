package import StorageCore

/// What OSS's writes check before and after a request: key and metadata rules, storage-class
/// names, the answer's CRC-64, and the metadata a REPLACE copy must carry.
package enum OSSWriteChecks {
  /// The largest object CopyObject copies (1 GB); larger ones take UploadPartCopy.
  package static let copyObjectLimit: Int64 = 1_000_000_000

  /// OSS's key rule (`docs/write-protocol.md` §B2.4): 1 to 1023 bytes, not starting with `/`
  /// or `\`; and the bucket's name rule.
  package static func validate(_ object: ObjectLocation) throws(StorageError) {
    try OSSBucketName.validate(object.bucket)
    let count = object.key.utf8.count
    guard (1...1023).contains(count) else {
      throw StorageError(
        .invalidInput,
        "an OSS key is 1 to 1023 bytes, not \(count): \(DisplayText.quoted(object.key))")
    }
    if let first = object.key.utf8.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "\\")
    {
      throw StorageError(
        .invalidInput,
        "an OSS key cannot start with \"/\" or \"\\\": \(DisplayText.quoted(object.key))")
    }
  }

  /// A metadata entry OSS can carry in a header: the name an HTTP token, the value without
  /// control characters (which would end or split the header line).
  package static func validate(_ entry: MetadataEntry) throws(StorageError) {
    guard !entry.name.isEmpty, entry.name.utf8.allSatisfy(HTTPToken.isTokenByte) else {
      throw StorageError(
        .invalidInput,
        "the metadata name \(DisplayText.quoted(entry.name)) is not letters, digits and -_.!#$%&'*+^`|~"
      )
    }
    guard !entry.value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
      throw StorageError(
        .invalidInput,
        "the value of metadata \(DisplayText.quoted(entry.name)) has a control character")
    }
  }

  private static let classes: [(name: String, service: String)] = [
    ("standard", "Standard"), ("ia", "IA"), ("archive", "Archive"),
    ("cold_archive", "ColdArchive"), ("deep_cold_archive", "DeepColdArchive"),
  ]

  /// OSS's name for a class given by the contract's name.
  package static func serviceName(of storageClass: StorageClass) throws(StorageError) -> String {
    guard let match = classes.first(where: { $0.name == storageClass.name }) else {
      throw StorageError(
        .invalidInput,
        "OSS has no storage class \(DisplayText.quoted(storageClass.name)); it has \(classes.map(\.name).joined(separator: ", "))"
      )
    }
    return match.service
  }

  /// The result of a write whose answer carries the stored content's CRC-64, which must be
  /// `crc` (the CRC of what was sent), when the answer names one.
  package static func checked(_ response: HTTPResponse, crc: UInt64, what: String)
    throws(StorageError) -> WriteResult
  {
    let requestID = response.headers[OSSErrors.requestIDHeader]
    let answered = response.headers["x-oss-hash-crc64ecma"]
    if let answered, answered != String(crc) {
      throw StorageError(
        .protocolError,
        "OSS stored \(what) with CRC-64 \(DisplayText.quoted(answered)), but the data sent has \(crc)",
        requestID: requestID)
    }
    let etag = response.headers["ETag"].map(OSSAnswers.unquoted)
    return WriteResult(etag: etag, crc64: answered ?? String(crc), requestID: requestID)
  }

  /// The headers a copy onto itself with REPLACE needs to keep what `head` (a HeadObject
  /// answer's headers) describes, with `change` applied: the content type, the caching and
  /// presentation headers, the storage class and every `x-oss-meta-` entry, names and values
  /// as sent.
  package static func replacedMetadata(_ head: HTTPHeaders, change: MetadataChange)
    -> HTTPHeaders
  {
    var headers = HTTPHeaders()
    let kept = [
      "Content-Type", "Cache-Control", "Content-Disposition", "Content-Encoding",
      "Content-Language", "Expires", "x-oss-storage-class",
    ]
    for name in kept {
      if let value = head[name] { headers.add(name, value) }
    }
    if let contentType = change.contentType { headers.set("Content-Type", contentType) }
    let prefix = Array("x-oss-meta-".utf8)
    for field in head where Array(field.name.utf8.prefix(prefix.count)).map(lower) == prefix {
      headers.add(field.name, field.value)
    }
    for entry in change.metadata { headers.set("x-oss-meta-" + entry.name, entry.value) }
    return headers
  }

  private static func lower(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
  }
}
