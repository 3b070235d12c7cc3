/// One field of an object as kodo shows it: its name in the JSON contract, its labels in `stat`
/// and the browser's detail pane, and its value, typed so that each view renders it in one way.
///
/// `ObjectField.all` is the one table of the fields: JSON output, `stat` and the detail pane
/// iterate it (each in its own order, `statOrder` and `detailOrder`, given here too), so a new
/// field is one row. The listing's JSON writer (`ObjectEntry.appendJSONFields` in the CLI) is
/// written out by hand for speed; a test holds it to the table's listing rows.
public struct ObjectField: Sendable {
  /// The fields, by their names in the JSON contract.
  public enum Name: String, Sendable, CaseIterable {
    case key, size, hash, etag, mimeType, putTime, storageClass, status, objectType, md5
    case endUser, meta, restoreStatus, lastModified, parts
    case crc64, expiration, transitionToIA, transitionToArchiveIR, transitionToArchive
    case transitionToDeepArchive
  }

  /// A field's value, by how it is shown.
  public enum Value: Sendable, Equatable {
    /// The object key.
    case key(String)
    /// Text the service sent (escaped before it is shown).
    case text(String)
    /// A size in bytes.
    case byteCount(Int64)
    /// A time with the service's precision.
    case time(Timestamp)
    /// A time in whole Unix seconds (lifecycle dates).
    case unixTime(Int64)
    case storageClass(StorageClass)
    /// Multipart part sizes.
    case parts([Int64])
    /// User metadata, sorted by name.
    case metadata([MetadataEntry])
  }

  /// Where the field comes from: every listing entry may have it, or only a stat.
  public enum Source: Sendable {
    case entry, stat
  }

  public let name: Name
  /// The name in JSON output; `nil` for a field the JSON contract does not have (`parts`).
  public let json: StaticString?
  public let source: Source
  /// The label of `stat`'s row.
  public let statLabel: String
  /// The label of the detail pane's row; `nil` for the key, which the pane shows on its own.
  public let detailLabel: String?
  /// The value, or `nil` when the object (or the answer) has none.
  public let value: @Sendable (ObjectDetails) -> Value?

  init(
    _ name: Name, json: StaticString?, _ source: Source, stat: String, detail: String?,
    _ value: @escaping @Sendable (ObjectDetails) -> Value?
  ) {
    self.name = name
    self.json = json
    self.source = source
    self.statLabel = stat
    self.detailLabel = detail
    self.value = value
  }

  /// Every field, in the JSON contract's order: the entry's fields, then what only a stat has.
  public static let all: [ObjectField] = [
    ObjectField(.key, json: "key", .entry, stat: "Key", detail: nil) { .key($0.object.key) },
    ObjectField(.size, json: "size", .entry, stat: "Size", detail: "size") {
      .byteCount($0.object.size)
    },
    ObjectField(.hash, json: "hash", .entry, stat: "Hash", detail: "hash") {
      $0.object.hash.map(Value.text)
    },
    ObjectField(.etag, json: "etag", .entry, stat: "ETag", detail: "etag") {
      $0.object.etag.map(Value.text)
    },
    ObjectField(.mimeType, json: "mimeType", .entry, stat: "MIME type", detail: "type") {
      $0.object.mimeType.map(Value.text)
    },
    ObjectField(.putTime, json: "putTime", .entry, stat: "Put time", detail: "put time") {
      .time($0.object.putTime)
    },
    ObjectField(.storageClass, json: "storageClass", .entry, stat: "Storage class", detail: "class")
    { .storageClass($0.object.storageClass) },
    ObjectField(.status, json: "status", .entry, stat: "Status", detail: "status") {
      $0.object.status.map { .text($0.name) }
    },
    ObjectField(.objectType, json: "objectType", .entry, stat: "Object type", detail: "object") {
      $0.object.objectType.map(Value.text)
    },
    ObjectField(.md5, json: "md5", .entry, stat: "MD5", detail: "md5") {
      $0.object.md5.map(Value.text)
    },
    ObjectField(.endUser, json: "endUser", .entry, stat: "End user", detail: "end user") {
      $0.object.endUser.map(Value.text)
    },
    ObjectField(.meta, json: "meta", .entry, stat: "meta", detail: "meta") {
      $0.object.meta.map { .metadata(sortedMetadata($0)) }
    },
    ObjectField(
      .restoreStatus, json: "restoreStatus", .entry, stat: "Restore status", detail: "restore"
    ) { $0.object.restoreStatus.map { .text($0.name) } },
    ObjectField(
      .lastModified, json: "lastModified", .entry, stat: "Last modified", detail: "modified"
    ) { $0.object.lastModified.map(Value.time) },
    ObjectField(.parts, json: nil, .entry, stat: "Parts", detail: "parts") {
      $0.object.parts.map(Value.parts)
    },
    ObjectField(.crc64, json: "crc64", .stat, stat: "CRC-64", detail: "crc64") {
      $0.crc64.map(Value.text)
    },
    ObjectField(.expiration, json: "expiration", .stat, stat: "Expires", detail: "expires") {
      $0.expiration.map(Value.unixTime)
    },
    ObjectField(.transitionToIA, json: "transitionToIA", .stat, stat: "To IA", detail: "to IA") {
      $0.transitionToIA.map(Value.unixTime)
    },
    ObjectField(
      .transitionToArchiveIR, json: "transitionToArchiveIR", .stat, stat: "To archive IR",
      detail: "to arch IR"
    ) { $0.transitionToArchiveIR.map(Value.unixTime) },
    ObjectField(
      .transitionToArchive, json: "transitionToArchive", .stat, stat: "To archive",
      detail: "to archive"
    ) { $0.transitionToArchive.map(Value.unixTime) },
    ObjectField(
      .transitionToDeepArchive, json: "transitionToDeepArchive", .stat, stat: "To deep archive",
      detail: "to deep"
    ) { $0.transitionToDeepArchive.map(Value.unixTime) },
  ]

  /// `stat`'s rows, top to bottom (after the bucket).
  public static let statOrder: [ObjectField] = order([
    .key, .size, .hash, .etag, .crc64, .mimeType, .putTime, .storageClass, .status, .objectType,
    .lastModified, .restoreStatus, .md5, .endUser, .expiration, .transitionToIA,
    .transitionToArchiveIR, .transitionToArchive, .transitionToDeepArchive, .parts, .meta,
  ])

  /// The detail pane's rows, top to bottom (under the name; the key is shown on its own).
  public static let detailOrder: [ObjectField] = order([
    .size, .mimeType, .putTime, .lastModified, .storageClass, .status, .hash, .etag, .md5, .crc64,
    .objectType, .endUser, .restoreStatus, .parts, .expiration, .transitionToIA,
    .transitionToArchiveIR, .transitionToArchive, .transitionToDeepArchive, .meta,
  ])

  /// The rows of `names`, in that order.
  private static func order(_ names: [Name]) -> [ObjectField] {
    names.compactMap { name in all.first { $0.name == name } }
  }

  /// User metadata as every view shows it: sorted by the bytes of the names (`UserMetadata`'s
  /// own order). The one place that reads `ObjectEntry.meta` for display.
  public static func sortedMetadata(_ meta: UserMetadata) -> [MetadataEntry] {
    meta.entries
  }
}
