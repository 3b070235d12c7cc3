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
    withUnsafePointer(to: self) { Self.appendJSONFields(of: $0, to: &line) }
  }

  /// `appendJSONFields` of the entry at `entry`, read field by field where it lies: the listing
  /// calls this on the entries of a page in place, which a call on `entries[index]` would copy
  /// whole (a retain and a release of every field) to read. The members go into room reserved
  /// once for all of them (the sum of their rooms, in the same order).
  static func appendJSONFields(of entry: UnsafePointer<ObjectEntry>, to line: inout JSONLine) {
    // The strings are borrowed where they lie (`JSONMembers.string` reads them through their
    // UTF-8 spans); only computed names are made here.
    let status = entry.pointee.status?.name
    let meta = entry.pointee.meta.map(ObjectField.sortedMetadata)
    let restoreStatus = entry.pointee.restoreStatus?.name
    var room = JSONMembers.room("key", string: entry.pointee.key)
    room += JSONMembers.room("size", int: entry.pointee.size)
    room += JSONMembers.room("hash", text: entry.pointee.hashText)
    room += JSONMembers.room("etag", text: entry.pointee.etagText)
    room += JSONMembers.room("mimeType", string: entry.pointee.mimeType)
    room += JSONMembers.room("putTime", time: entry.pointee.putTime)
    room += JSONMembers.room("storageClass", string: entry.pointee.storageClass.name)
    room += JSONMembers.room("status", string: status)
    room += JSONMembers.room("objectType", string: entry.pointee.objectType)
    room += JSONMembers.room("md5", text: entry.pointee.md5Text)
    room += JSONMembers.room("endUser", string: entry.pointee.endUser)
    if let meta { room += JSONMembers.room("meta", metadata: meta) }
    room += JSONMembers.room("restoreStatus", string: restoreStatus)
    room += JSONMembers.room("lastModified", time: entry.pointee.lastModified)
    line.members(room: room) { members in
      members.string("key", entry.pointee.key)
      members.int("size", entry.pointee.size)
      members.text("hash", entry.pointee.hashText)
      members.text("etag", entry.pointee.etagText)
      members.string("mimeType", entry.pointee.mimeType)
      members.time("putTime", entry.pointee.putTime)
      members.string("storageClass", entry.pointee.storageClass.name)
      members.string("status", status)
      members.string("objectType", entry.pointee.objectType)
      members.text("md5", entry.pointee.md5Text)
      members.string("endUser", entry.pointee.endUser)
      if let meta { members.metadata("meta", meta) }
      members.string("restoreStatus", restoreStatus)
      members.time("lastModified", entry.pointee.lastModified)
    }
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
