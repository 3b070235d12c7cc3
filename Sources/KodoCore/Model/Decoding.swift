import StorageCore

/// Decoders for Kodo's JSON answers, on `JSONReader` (fast, strict, exact error positions).
enum Decode {
  typealias Failure = JSONReader.Failure

  /// Runs `body` over `bytes`, turning a parse failure into a `.protocolError` that says which
  /// answer could not be read.
  static func answer<T>(
    _ what: String, _ bytes: [UInt8], requestID: String?,
    _ body: (inout JSONReader) throws(Failure) -> T
  ) throws(StorageError) -> T {
    var reader = JSONReader(bytes)
    do {
      let value = try body(&reader)
      try reader.expectEnd()
      return value
    } catch {
      throw StorageError(
        .protocolError,
        "cannot read Kodo's \(what) answer: \(error.reason) at byte \(error.offset) of \(bytes.count)",
        status: 200, requestID: requestID)
    }
  }

  /// Reads a list answer; with `keysOnly`, only each item's key (`ListRequest.keysOnly`), the
  /// other fields left at Kodo's defaults.
  static func listPage(_ reader: inout JSONReader, keysOnly: Bool = false) throws(Failure)
    -> ListPage
  {
    var page = ListPage()
    var repeats = JSONReader.RecentStrings()
    let names = entryNames
    try reader.readMembers { (reader, name) throws(Failure) in
      switch name {
      case "marker":
        let marker = try reader.readOptionalString() ?? ""
        page.nextMarker = marker.isEmpty ? nil : marker
      case "commonPrefixes": page.commonPrefixes = try reader.readStringArray()
      case "items":
        // A repeated member replaces the earlier one, as for every other field.
        page.items = []
        if reader.readNull() { return }
        page.items.reserveCapacity(1000)
        // Each item starts as a copy of one entry of the defaults (their texts are literals:
        // copied without reference counting), not one built field by field.
        let empty = emptyEntry(key: "")
        try reader.readArray { (reader) throws(Failure) in
          // Decoded in place: no entry is copied into the page and destroyed.
          page.items.append(empty)
          if keysOnly { return try listKey(&reader, into: &page.items[page.items.count - 1]) }
          try listItem(
            &reader, into: &page.items[page.items.count - 1], repeats: &repeats, names: names)
        }
      default: try reader.skipValue()
      }
    }
    return page
  }

  /// The marker of a list answer whose first member is `marker`, without reading the rest:
  /// `.some(nil)` for an empty or null marker (the last page), `nil` when the answer does not
  /// start with a marker (then only decoding it tells).
  static func leadingMarker(_ bytes: [UInt8]) -> String?? {
    var reader = JSONReader(bytes)
    var marker: String??
    try? reader.readObject { (reader, name) throws(Failure) in
      if name == "marker" {
        let text = try reader.readOptionalString() ?? ""
        marker = .some(text.isEmpty ? nil : text)
      }
      // Stop after the first member.
      throw Failure(offset: reader.index, reason: "")
    }
    return marker
  }

  /// Reads one item of a list answer into `entry` (Kodo's defaults); content types equal to one
  /// in `repeats` share its text.
  static func listItem(
    _ reader: inout JSONReader, into entry: inout ObjectEntry,
    repeats: inout JSONReader.RecentStrings, names: JSONReader.MemberNames
  ) throws(Failure) {
    let start = reader.index
    var sawKey = false
    var expected = 0
    try reader.readMembers { (reader, name) throws(Failure) in
      let known = try entryField(
        &reader, name, into: &entry, sawKey: &sawKey, repeats: &repeats, names: names,
        expected: &expected)
      if !known { try reader.skipValue() }
    }
    guard sawKey else { throw Failure(offset: start, reason: "an item has no key") }
  }

  /// Reads only the key of one item of a list answer into `entry`, passing over the other
  /// members (still checked to be JSON).
  static func listKey(_ reader: inout JSONReader, into entry: inout ObjectEntry) throws(Failure) {
    reader.skipWhitespace()
    let start = reader.index
    guard let key = try reader.readObject(stringOf: "key") else {
      throw Failure(offset: start, reason: "an item has no key")
    }
    entry.key = key
  }

  /// Reads a stat answer (or an item). `key` is used when the object has none (stat answers).
  static func objectFields(_ reader: inout JSONReader, key: String?) throws(Failure)
    -> ObjectDetails
  {
    let start = reader.index
    var entry = emptyEntry(key: key ?? "")
    var stat = ObjectDetails(object: entry)
    var sawKey = key != nil
    var repeats = JSONReader.RecentStrings()
    let names = entryNames
    var expected = 0
    try reader.readMembers { (reader, name) throws(Failure) in
      let known = try entryField(
        &reader, name, into: &entry, sawKey: &sawKey, repeats: &repeats, names: names,
        expected: &expected)
      if known { return }
      switch name {
      case "expiration": stat.expiration = try reader.readOptionalInt64()
      case "transitionToIA": stat.transitionToIA = try reader.readOptionalInt64()
      case "transitionToArchiveIR": stat.transitionToArchiveIR = try reader.readOptionalInt64()
      case "transitionToARCHIVE", "transitionToArchive":
        stat.transitionToArchive = try reader.readOptionalInt64()
      case "transitionToDeepArchive": stat.transitionToDeepArchive = try reader.readOptionalInt64()
      default: try reader.skipValue()
      }
    }
    guard sawKey else { throw Failure(offset: start, reason: "an item has no key") }
    stat.object = entry
    return stat
  }

  /// An entry with Kodo's defaults for absent fields (size 0, empty hash and type, standard,
  /// enabled).
  @inline(__always)
  private static func emptyEntry(key: String) -> ObjectEntry {
    ObjectEntry(
      key: key, size: 0, putTime: Timestamp(hundredNanoseconds: 0),
      storageClass: .kodo(type: 0), mimeType: "", hash: "", status: .enabled)
  }

  /// The members list items and stat answers share, in the order Kodo writes them.
  private enum EntryMember: Int, CaseIterable {
    case key, hash, fsize, mimeType, putTime, type, status, md5, endUser, meta, restoreStatus
    case lastModify, parts
  }

  /// `EntryMember`'s names, by its raw values.
  private static let entryNames = JSONReader.MemberNames([
    "key", "hash", "fsize", "mimeType", "putTime", "type", "status", "md5", "endUser",
    "x-qn-meta", "restoreStatus", "lastModify", "parts",
  ])

  /// Which shared member `name` is: the one after the last one found (`expected`) is tried
  /// first, so that an item in Kodo's usual order costs one comparison a member.
  @inline(__always)
  private static func entryMember(
    _ name: JSONReader.MemberName, _ names: JSONReader.MemberNames, expected: inout Int
  ) -> EntryMember? {
    guard let position = names.position(of: name, expected: expected) else { return nil }
    expected = position + 1
    return EntryMember(rawValue: position)
  }

  /// Reads the member `name` into `entry` when it is one of the fields list items and stat
  /// answers share; returns whether it was.
  @inline(__always)
  private static func entryField(
    _ reader: inout JSONReader, _ name: JSONReader.MemberName, into entry: inout ObjectEntry,
    sawKey: inout Bool, repeats: inout JSONReader.RecentStrings, names: JSONReader.MemberNames,
    expected: inout Int
  ) throws(Failure) -> Bool {
    guard let member = entryMember(name, names, expected: &expected) else { return false }
    switch member {
    case .key:
      entry.key = try reader.readString()
      sawKey = true
    case .fsize: entry.size = try reader.readOptionalInt64() ?? 0
    case .hash: entry.hashText = try reader.readOptionalInlineText() ?? InlineText()
    case .mimeType: entry.mimeType = try reader.readOptionalString(reusing: &repeats) ?? ""
    case .putTime:
      entry.putTime = Timestamp(hundredNanoseconds: try reader.readOptionalInt64() ?? 0)
    case .type:
      entry.storageClass = .kodo(type: Int(clamping: try reader.readOptionalInt64() ?? 0))
    case .status:
      entry.status = ObjectStatus.kodo(code: Int(clamping: try reader.readOptionalInt64() ?? 0))
    case .md5: entry.md5Text = try reader.readOptionalInlineText()
    case .endUser: entry.endUser = try reader.readOptionalString()
    case .meta: entry.meta = try reader.readMetadata()
    case .restoreStatus:
      entry.restoreStatus = try reader.readOptionalInt64().map {
        RestoreStatus.kodo(code: Int(clamping: $0))
      }
    case .lastModify:
      entry.lastModified = try reader.readOptionalInt64().map { Timestamp(hundredNanoseconds: $0) }
    case .parts:
      if reader.readNull() {
        entry.parts = nil
        return true
      }
      var parts: [Int64] = []
      try reader.readArray { (reader) throws(Failure) in parts.append(try reader.readInt64()) }
      entry.parts = parts
    }
    return true
  }

  static func bucketNames(_ reader: inout JSONReader) throws(Failure) -> [Bucket] {
    try reader.readStringArray().map { Bucket(name: $0) }
  }

  static func bucketsV2(_ reader: inout JSONReader) throws(Failure) -> [Bucket] {
    var buckets: [Bucket] = []
    try reader.readArray { (reader) throws(Failure) in
      let start = reader.index
      var bucket = Bucket(name: "")
      try reader.readObject { (reader, name) throws(Failure) in
        switch name {
        case "tbl", "name": bucket.name = try reader.readString()
        case "region": bucket.region = try reader.readOptionalString()
        case "ctime":
          if try reader.peekKind() == .number {
            bucket.createdAt = try reader.readInt64()
          } else {
            bucket.createdAt = nil
            try reader.skipValue()
          }
        case "perm":
          switch try reader.readOptionalInt64() ?? 0 {
          case 1: bucket.shared = "rd"
          case 2: bucket.shared = "rw"
          default: bucket.shared = nil
          }
        case "private":
          switch try reader.peekKind() {
          case .bool: bucket.isPrivate = try reader.readBool()
          case .number: bucket.isPrivate = try reader.readInt64() != 0
          default:
            bucket.isPrivate = nil
            try reader.skipValue()
          }
        case "remark":
          let remark = try reader.readOptionalString()
          bucket.remark = remark?.isEmpty == false ? remark : nil
        default: try reader.skipValue()
        }
      }
      guard !bucket.name.isEmpty else {
        throw Failure(offset: start, reason: "a bucket has no name")
      }
      buckets.append(bucket)
    }
    return buckets
  }

  static func domains(_ reader: inout JSONReader) throws(Failure) -> [String] {
    var domains: [String] = []
    try reader.readArray { (reader) throws(Failure) in
      // `/v2/domains` answers strings; `/v3/domains` objects with a `domain` field.
      if try reader.peekKind() == .object {
        try reader.readObject { (reader, name) throws(Failure) in
          if name == "domain" {
            domains.append(try reader.readString())
          } else {
            try reader.skipValue()
          }
        }
      } else {
        domains.append(try reader.readString())
      }
    }
    return domains
  }

  static func errorMessage(_ bytes: [UInt8]) -> String? {
    var reader = JSONReader(bytes)
    var message: String?
    do {
      try reader.readObject { (reader, name) throws(Failure) in
        if name == "error", try reader.peekKind() == .string {
          message = try reader.readString()
        } else {
          try reader.skipValue()
        }
      }
    } catch {
      return nil
    }
    return message
  }

  static func regions(_ reader: inout JSONReader) throws(Failure) -> [RegionHosts] {
    var regions: [RegionHosts] = []
    try reader.readObject { (reader, name) throws(Failure) in
      guard name == "hosts" else { return try reader.skipValue() }
      regions = []
      try reader.readArray { (reader) throws(Failure) in
        var region = RegionHosts(region: "", ttl: 86_400, services: [:])
        try reader.readObject { (reader, name) throws(Failure) in
          switch name {
          case "region": region.region = try reader.readOptionalString() ?? ""
          case "ttl": region.ttl = try reader.readOptionalInt64() ?? 86_400
          default:
            guard try reader.peekKind() == .object else { return try reader.skipValue() }
            var domains: [String] = []
            var old: [String] = []
            var accelerated: [String] = []
            try reader.readObject { (reader, field) throws(Failure) in
              switch field {
              case "domains": domains = try reader.readStringArray()
              case "old": old = try reader.readStringArray()
              case "acc_domains": accelerated = try reader.readStringArray()
              default: try reader.skipValue()
              }
            }
            if name == "up" {
              // Qiniu's SDKs upload to `domains` only (`old` are legacy names of the same
              // hosts); accelerated hosts are a service of their own.
              region.services[name] = domains
              if !accelerated.isEmpty { region.services["up_acc"] = accelerated }
            } else {
              region.services[name] = domains + old
            }
          }
        }
        regions.append(region)
      }
    }
    return regions
  }
}
