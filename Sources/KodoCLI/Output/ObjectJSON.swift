import StorageCore

extension JSONLine {
  /// `field`'s member for `details`, as the JSON contract names it, when the object has it.
  mutating func field(_ field: ObjectField, of details: ObjectDetails) {
    guard let key = field.json, let value = field.value(details) else { return }
    switch value {
    case .key(let text), .text(let text): string(key, text)
    case .byteCount(let count): int(key, count)
    case .time(let time): self.time(key, time)
    case .unixTime(let seconds): string(key, Timestamp.rfc3339(unixSeconds: seconds))
    case .storageClass(let storageClass): string(key, storageClass.name)
    case .parts(let sizes): ints(key, sizes)
    case .metadata(let entries): metadata(key, entries)
    }
  }
}

extension ObjectEntry {
  /// The contract's object fields (without `type`), appended to a JSON line: the fields both
  /// providers share by meaning under the same names, and each provider's own only when set.
  ///
  /// The listing's writer (a million lines): the rows of `ObjectField.all` whose source is the
  /// entry, written out by hand, in the table's order (`ObjectFieldTableTests` holds it to the
  /// table).
  func appendJSONFields(to line: inout JSONLine) {
    line.string("key", key)
    line.int("size", size)
    line.string("hash", hash)
    line.string("etag", etag)
    line.string("mimeType", mimeType)
    line.time("putTime", putTime)
    line.string("storageClass", storageClass.name)
    line.string("status", status?.name)
    line.string("objectType", objectType)
    line.string("md5", md5)
    line.string("endUser", endUser)
    if let meta { line.metadata("meta", ObjectField.sortedMetadata(meta)) }
    line.string("restoreStatus", restoreStatus?.name)
    line.time("lastModified", lastModified)
  }
}

extension ObjectDetails {
  /// The contract's `stat` fields: every row of `ObjectField.all` the object has.
  func appendJSONFields(to line: inout JSONLine) {
    for field in ObjectField.all { line.field(field, of: self) }
  }
}

extension WriteResult {
  /// What a write's answer identifies the stored content by: each provider's digests, those it
  /// sent (Kodo's `hash`; OSS's `etag` and `crc64`).
  func appendJSONFields(to line: inout JSONLine) {
    line.string("hash", hash)
    line.string("etag", etag)
    line.string("crc64", crc64)
  }
}
