/// One object as a listing or a stat reports it.
public struct ObjectEntry: Sendable, Equatable {
  /// The object key.
  public var key: String
  /// `fsize`: the size in bytes.
  public var size: Int64
  /// `hash`: Kodo's qetag of the content.
  public var hash: String
  /// `mimeType`.
  public var mimeType: String
  /// `putTime`: upload time in 100 ns units since the Unix epoch.
  public var putTime: Int64
  /// `type`: the storage class.
  public var storageClass: StorageClass
  /// `status`: enabled or disabled (absent means enabled).
  public var status: ObjectStatus
  /// `md5`, when Kodo sent it.
  public var md5: String?
  /// `endUser`, when Kodo sent it.
  public var endUser: String?
  /// `x-qn-meta`: custom metadata, when Kodo sent it.
  public var meta: [String: String]?
  /// `restoreStatus`: archive restore state, when Kodo sent it.
  public var restoreStatus: RestoreStatus?
  /// `lastModify`: 100 ns units, when Kodo sent it.
  public var lastModify: Int64?
  /// `parts`: multipart part sizes, when requested and sent.
  public var parts: [Int64]?

  /// An entry from its parts; optional fields default to absent.
  public init(
    key: String, size: Int64, hash: String, mimeType: String, putTime: Int64,
    storageClass: StorageClass = .standard, status: ObjectStatus = .enabled, md5: String? = nil,
    endUser: String? = nil, meta: [String: String]? = nil, restoreStatus: RestoreStatus? = nil,
    lastModify: Int64? = nil, parts: [Int64]? = nil
  ) {
    self.key = key
    self.size = size
    self.hash = hash
    self.mimeType = mimeType
    self.putTime = putTime
    self.storageClass = storageClass
    self.status = status
    self.md5 = md5
    self.endUser = endUser
    self.meta = meta
    self.restoreStatus = restoreStatus
    self.lastModify = lastModify
    self.parts = parts
  }
}

/// Archive restore state (`restoreStatus`): 1 restoring, 2 restored.
public enum RestoreStatus: Sendable, Equatable, Hashable {
  case restoring, restored
  case unknown(Int)

  /// The state for Kodo's number.
  public init(code: Int) {
    switch code {
    case 1: self = .restoring
    case 2: self = .restored
    default: self = .unknown(code)
    }
  }

  /// `restoring`, `restored`, or `status_N`.
  public var name: String {
    switch self {
    case .restoring: "restoring"
    case .restored: "restored"
    case .unknown(let code): "status_\(code)"
    }
  }
}

/// One object's metadata from `/stat`: the entry fields plus lifecycle dates (Unix seconds).
public struct ObjectStat: Sendable, Equatable {
  /// The object fields, as in a listing.
  public var object: ObjectEntry
  /// `expiration`: when a lifecycle rule deletes the object.
  public var expiration: Int64?
  /// `transitionToIA`.
  public var transitionToIA: Int64?
  /// `transitionToArchiveIR`.
  public var transitionToArchiveIR: Int64?
  /// `transitionToARCHIVE`.
  public var transitionToArchive: Int64?
  /// `transitionToDeepArchive`.
  public var transitionToDeepArchive: Int64?

  /// A stat from its parts.
  public init(
    object: ObjectEntry, expiration: Int64? = nil, transitionToIA: Int64? = nil,
    transitionToArchiveIR: Int64? = nil, transitionToArchive: Int64? = nil,
    transitionToDeepArchive: Int64? = nil
  ) {
    self.object = object
    self.expiration = expiration
    self.transitionToIA = transitionToIA
    self.transitionToArchiveIR = transitionToArchiveIR
    self.transitionToArchive = transitionToArchive
    self.transitionToDeepArchive = transitionToDeepArchive
  }
}

/// One page of `/list`.
public struct ListPage: Sendable, Equatable {
  /// The marker that continues the listing; empty exactly when the listing is complete.
  public var marker: String
  /// `commonPrefixes` ("folders") on this page, when listing with a delimiter.
  public var commonPrefixes: [String]
  /// The objects on this page (may be empty even when more follow).
  public var items: [ObjectEntry]

  /// A page from its parts.
  public init(marker: String, commonPrefixes: [String] = [], items: [ObjectEntry] = []) {
    self.marker = marker
    self.commonPrefixes = commonPrefixes
    self.items = items
  }

  /// Whether this is the last page.
  public var isLast: Bool { marker.isEmpty }
}

/// A bucket as the bucket listing reports it.
public struct Bucket: Sendable, Equatable {
  /// The bucket's name.
  public var name: String
  /// The region id (`z0`, …), when known.
  public var region: String?
  /// Whether the bucket is private, when known.
  public var isPrivate: Bool?
  /// Creation time, Unix seconds, when known.
  public var createdAt: Int64?
  /// Share permission: `rd` (read-only share) or `rw`; `nil` for the account's own buckets.
  public var shared: String?
  /// The bucket's remark, when set.
  public var remark: String?

  /// A bucket from its parts.
  public init(
    name: String, region: String? = nil, isPrivate: Bool? = nil, createdAt: Int64? = nil,
    shared: String? = nil, remark: String? = nil
  ) {
    self.name = name
    self.region = region
    self.isPrivate = isPrivate
    self.createdAt = createdAt
    self.shared = shared
    self.remark = remark
  }
}

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
