/// One object as a listing or a stat reports it, on any provider.
///
/// The fields every provider has come first; the rest are `nil` where the provider (or the
/// answer) has no such thing: `hash` and `status` are Kodo's, `etag` and `objectType` OSS's.
public struct ObjectEntry: Sendable, Equatable {
  /// The object key.
  public var key: String
  /// The size in bytes.
  public var size: Int64
  /// When the object was last written (Kodo `putTime`, OSS `Last-Modified`).
  ///
  /// The name is the JSON contract's, which calls this field `putTime` for every provider; it
  /// does not mean the value is Kodo's.
  public var putTime: Timestamp
  /// The storage class.
  public var storageClass: StorageClass
  /// The content type, when the answer carried it (Kodo listings do, OSS listings do not).
  public var mimeType: String?
  /// Kodo's qetag of the content, kept inline when short (`hash` is its text).
  package var hashText: InlineText?
  /// OSS's ETag, without quotes, kept inline when short (`etag` is its text).
  package var etagText: InlineText?
  /// Whether the object can be read (enabled or disabled), where the provider has the notion.
  public var status: ObjectStatus?
  /// OSS's object type, lower-case: `normal`, `multipart`, `appendable`, `symlink`.
  public var objectType: String?
  /// The content's MD5 in lower-case hex, when the service sent it, kept inline (`md5` is its
  /// text).
  package var md5Text: InlineText?
  /// Kodo's `endUser`, when sent.
  public var endUser: String?
  /// User metadata (Kodo `x-qn-meta`, OSS `x-oss-meta-*` without the prefix), when sent.
  public var meta: UserMetadata?
  /// An archived object's restore state, when sent.
  public var restoreStatus: RestoreStatus?
  /// Kodo's `lastModify`, when sent.
  public var lastModified: Timestamp?
  /// Kodo's multipart part sizes, when requested and sent.
  public var parts: [Int64]?

  /// An entry from its parts; optional fields default to absent.
  public init(
    key: String, size: Int64, putTime: Timestamp, storageClass: StorageClass,
    mimeType: String? = nil, hash: String? = nil, etag: String? = nil,
    status: ObjectStatus? = nil, objectType: String? = nil, md5: String? = nil,
    endUser: String? = nil, meta: UserMetadata? = nil, restoreStatus: RestoreStatus? = nil,
    lastModified: Timestamp? = nil, parts: [Int64]? = nil
  ) {
    self.key = key
    self.size = size
    self.putTime = putTime
    self.storageClass = storageClass
    self.mimeType = mimeType
    self.hashText = hash.map(InlineText.init)
    self.etagText = etag.map(InlineText.init)
    self.status = status
    self.objectType = objectType
    self.md5Text = md5.map(InlineText.init)
    self.endUser = endUser
    self.meta = meta
    self.restoreStatus = restoreStatus
    self.lastModified = lastModified
    self.parts = parts
  }
}

extension ObjectEntry {
  /// An entry whose digests are already `InlineText` (a decoder's, the sort's records).
  package init(
    key: String, size: Int64, putTime: Timestamp, storageClass: StorageClass,
    mimeType: String?, hashText: InlineText?, etagText: InlineText?, status: ObjectStatus?,
    objectType: String?, md5Text: InlineText?, endUser: String?, meta: UserMetadata?,
    restoreStatus: RestoreStatus?, lastModified: Timestamp?, parts: [Int64]?
  ) {
    self.key = key
    self.size = size
    self.putTime = putTime
    self.storageClass = storageClass
    self.mimeType = mimeType
    self.hashText = hashText
    self.etagText = etagText
    self.status = status
    self.objectType = objectType
    self.md5Text = md5Text
    self.endUser = endUser
    self.meta = meta
    self.restoreStatus = restoreStatus
    self.lastModified = lastModified
    self.parts = parts
  }

  /// Kodo's qetag of the content.
  public var hash: String? {
    get { hashText?.string }
    set { hashText = newValue.map(InlineText.init) }
  }

  /// OSS's ETag, without quotes.
  public var etag: String? {
    get { etagText?.string }
    set { etagText = newValue.map(InlineText.init) }
  }

  /// The content's MD5 in lower-case hex, when the service sent it.
  public var md5: String? {
    get { md5Text?.string }
    set { md5Text = newValue.map(InlineText.init) }
  }
}

/// One object's metadata from a stat: the entry's fields plus what only a stat answers.
public struct ObjectDetails: Sendable, Equatable {
  /// The object fields, as in a listing.
  public var object: ObjectEntry
  /// OSS's `x-oss-hash-crc64ecma`: CRC-64/ECMA of the content, as a decimal string.
  public var crc64: String?
  /// When a lifecycle rule deletes the object (Unix seconds).
  public var expiration: Int64?
  /// When a lifecycle rule moves it to infrequent access (Unix seconds).
  public var transitionToIA: Int64?
  /// When a lifecycle rule moves it to archive (instant retrieval) (Unix seconds).
  public var transitionToArchiveIR: Int64?
  /// When a lifecycle rule moves it to archive (Unix seconds).
  public var transitionToArchive: Int64?
  /// When a lifecycle rule moves it to deep archive (Unix seconds).
  public var transitionToDeepArchive: Int64?

  /// Details from their parts.
  public init(
    object: ObjectEntry, crc64: String? = nil, expiration: Int64? = nil,
    transitionToIA: Int64? = nil, transitionToArchiveIR: Int64? = nil,
    transitionToArchive: Int64? = nil, transitionToDeepArchive: Int64? = nil
  ) {
    self.object = object
    self.crc64 = crc64
    self.expiration = expiration
    self.transitionToIA = transitionToIA
    self.transitionToArchiveIR = transitionToArchiveIR
    self.transitionToArchive = transitionToArchive
    self.transitionToDeepArchive = transitionToDeepArchive
  }
}

/// One page of a listing.
public struct ListPage: Sendable, Equatable {
  /// Common prefixes ("folders") on this page, when listing with a delimiter.
  public var commonPrefixes: [String]
  /// The objects on this page (may be empty even when more follow).
  public var items: [ObjectEntry]
  /// The marker that continues the listing after this page; `nil` when the listing is complete.
  public var nextMarker: String?
  /// The bucket the answer says it lists, when it names one (OSS does, Kodo does not): the paging
  /// driver refuses an answer about another bucket.
  public var bucket: String?
  /// The prefix the answer says it lists, when it names one (OSS does, Kodo does not).
  public var prefix: String?

  /// A page from its parts.
  public init(
    commonPrefixes: [String] = [], items: [ObjectEntry] = [], nextMarker: String? = nil,
    bucket: String? = nil, prefix: String? = nil
  ) {
    self.commonPrefixes = commonPrefixes
    self.items = items
    self.nextMarker = nextMarker
    self.bucket = bucket
    self.prefix = prefix
  }

  /// Prefixes and objects together.
  public var entryCount: Int { commonPrefixes.count + items.count }
}

/// A bucket as the bucket listing reports it.
public struct Bucket: Sendable, Equatable {
  /// The bucket's name.
  public var name: String
  /// The region (Kodo's `z0`, OSS's `oss-cn-hangzhou`), when known.
  public var region: String?
  /// Whether the bucket is private, when known.
  public var isPrivate: Bool?
  /// Creation time, Unix seconds, when known.
  public var createdAt: Int64?
  /// Kodo's share permission: `rd` (read-only share) or `rw`; `nil` for the account's own.
  public var shared: String?
  /// Kodo's remark, when set.
  public var remark: String?
  /// The bucket's default storage class (OSS), when known.
  public var storageClass: StorageClass?

  /// A bucket from its parts.
  public init(
    name: String, region: String? = nil, isPrivate: Bool? = nil, createdAt: Int64? = nil,
    shared: String? = nil, remark: String? = nil, storageClass: StorageClass? = nil
  ) {
    self.name = name
    self.region = region
    self.isPrivate = isPrivate
    self.createdAt = createdAt
    self.shared = shared
    self.remark = remark
    self.storageClass = storageClass
  }
}
