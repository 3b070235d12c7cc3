/// A provider that writes objects: single-request uploads, deletes (one or in batches), server-side
/// copies and moves, and changes of metadata, storage class and archive state. Kodo and OSS
/// provide it; commands ask for it with `as?`, like the other capabilities.
///
/// A write that would replace an existing object without being allowed to throws `.exists`; a
/// condition on the object's state that did not hold throws `.preconditionFailed`. Every method
/// throws only `StorageError` and retries only what the protocol makes safe to repeat.
public protocol ObjectWriting: StorageProvider {
  /// The most keys one `deleteBatch` call sends in one request (1000 on Kodo and OSS).
  var batchDeleteLimit: Int { get }

  /// Uploads `request.body` in one request (Kodo's form upload, OSS's PutObject), checking the
  /// service's digest of what arrived against the body's.
  func put(_ request: PutRequest) async throws(StorageError) -> WriteResult

  /// Deletes one object. A key that does not exist throws `.notFound` where the service says so
  /// (Kodo); OSS answers success for it.
  func delete(_ object: ObjectLocation) async throws(StorageError)

  /// Deletes up to `batchDeleteLimit` keys of one bucket, answering one outcome per key in the
  /// order given. A failure of one key is its outcome's error; the call throws only when the
  /// request as a whole failed.
  func deleteBatch(bucket: String, keys: [String]) async throws(StorageError) -> [DeleteOutcome]

  /// Copies an object on the service (nothing is downloaded), answering what the service said
  /// of the copy (OSS: its ETag and CRC-64; Kodo says nothing).
  @discardableResult
  func copy(_ request: CopyRequest) async throws(StorageError) -> WriteResult

  /// Changes the content type and sets the named metadata entries, keeping the others.
  func changeMetadata(_ object: ObjectLocation, _ change: MetadataChange) async throws(StorageError)

  /// Moves the object to another storage class (by the contract's name, such as `ia`).
  func changeStorageClass(_ object: ObjectLocation, to storageClass: StorageClass)
    async throws(StorageError)

  /// Asks the service to make an archived object readable for `days` days.
  func restore(_ object: ObjectLocation, days: Int) async throws(StorageError)
}

/// A provider whose service moves an object in one request (Kodo's `move`). Providers without
/// one get `move` from `ObjectWriting`'s copy, verify and delete.
public protocol ServerSideMoving: ObjectWriting {
  /// Moves the object with the service's own operation.
  func moveOnService(_ request: CopyRequest) async throws(StorageError)
}

/// A bucket and a key, compared and hashed by their bytes: `caf\u{E9}` and `cafe\u{301}` are two
/// objects (see `ExactKey`).
public struct ObjectLocation: Sendable, Hashable, CustomStringConvertible {
  /// The bucket.
  public var bucket: String
  /// The key.
  public var key: String

  /// A location from its parts.
  public init(bucket: String, key: String) {
    self.bucket = bucket
    self.key = key
  }

  /// `bucket/key`, escaped for messages.
  public var description: String { DisplayText.quoted(bucket + "/" + key) }

  public static func == (lhs: ObjectLocation, rhs: ObjectLocation) -> Bool {
    ExactKey.same(lhs.bucket, rhs.bucket) && ExactKey.same(lhs.key, rhs.key)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(ExactKey(bucket))
    hasher.combine(ExactKey(key))
  }
}

/// One user metadata entry, byte-exact: two names that differ only in Unicode normalisation are
/// two entries (compared and hashed by their bytes).
public struct MetadataEntry: Sendable, Hashable {
  /// The name without the service's prefix (`x-qn-meta-`, `x-oss-meta-`).
  public var name: String
  /// The value.
  public var value: String

  /// An entry from its parts.
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }

  /// `NAME=VALUE` cut at its first `=` byte, or `nil` when there is none or the name is empty.
  public init?(assignment text: String) {
    guard let (name, value) = WireText.cut(text, at: "="), !name.isEmpty else { return nil }
    self.init(String(name), String(value))
  }

  public static func == (lhs: MetadataEntry, rhs: MetadataEntry) -> Bool {
    ExactKey.same(lhs.name, rhs.name) && ExactKey.same(lhs.value, rhs.value)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(ExactKey(name))
    hasher.combine(ExactKey(value))
  }
}

/// One object to upload in a single request.
public struct PutRequest: Sendable, Equatable {
  /// Where it goes.
  public var destination: ObjectLocation
  /// The content.
  public var body: [UInt8]
  /// The content type; `nil` lets the service choose.
  public var contentType: String?
  /// User metadata, in order.
  public var metadata: [MetadataEntry]
  /// The storage class (by the contract's name); `nil` for the bucket's default.
  public var storageClass: StorageClass?
  /// Whether an existing object at the destination may be replaced; when not, the upload
  /// throws `.exists` if one exists.
  public var overwrite: Bool
  /// The local file's name, for services that record it (Kodo's `fname`).
  public var fileName: String?

  /// A request from its parts.
  public init(
    destination: ObjectLocation, body: [UInt8], contentType: String? = nil,
    metadata: [MetadataEntry] = [], storageClass: StorageClass? = nil, overwrite: Bool = false,
    fileName: String? = nil
  ) {
    self.destination = destination
    self.body = body
    self.contentType = contentType
    self.metadata = metadata
    self.storageClass = storageClass
    self.overwrite = overwrite
    self.fileName = fileName
  }
}

/// What a finished upload produced.
public struct WriteResult: Sendable, Equatable {
  /// Kodo's `hash` of the stored content.
  public var hash: String?
  /// OSS's ETag, without quotes.
  public var etag: String?
  /// OSS's CRC-64/ECMA of the stored content, decimal.
  public var crc64: String?
  /// The service's request id.
  public var requestID: String?

  /// A result from its parts.
  public init(
    hash: String? = nil, etag: String? = nil, crc64: String? = nil, requestID: String? = nil
  ) {
    self.hash = hash
    self.etag = etag
    self.crc64 = crc64
    self.requestID = requestID
  }
}

/// A server-side copy or move.
public struct CopyRequest: Sendable, Equatable {
  /// The object copied.
  public var source: ObjectLocation
  /// Where the copy goes (the same service and region).
  public var destination: ObjectLocation
  /// Whether an existing destination may be replaced; when not, the copy throws `.exists`
  /// if one exists.
  public var overwrite: Bool
  /// The source's size when already known (from a listing): a provider that copies large
  /// objects another way (OSS above 1 GiB) then need not ask.
  public var sourceSize: Int64?
  /// The source's ETag (without quotes) when already known (from an OSS listing): a copy
  /// whose answer carries the same ETag is shown to hold the source's content without
  /// reading either object's details.
  public var sourceETag: String?

  /// A request from its parts.
  public init(
    source: ObjectLocation, destination: ObjectLocation, overwrite: Bool = false,
    sourceSize: Int64? = nil, sourceETag: String? = nil
  ) {
    self.source = source
    self.destination = destination
    self.overwrite = overwrite
    self.sourceSize = sourceSize
    self.sourceETag = sourceETag
  }
}

/// A change of an object's content type and metadata: what it names changes, the rest stays.
public struct MetadataChange: Sendable, Equatable {
  /// The new content type, or `nil` to keep it.
  public var contentType: String?
  /// Entries to set (added, or replacing the entry of the same name); the others are kept.
  public var metadata: [MetadataEntry]

  /// A change from its parts.
  public init(contentType: String? = nil, metadata: [MetadataEntry] = []) {
    self.contentType = contentType
    self.metadata = metadata
  }
}

/// One key's outcome in a batch delete.
public struct DeleteOutcome: Sendable, Equatable {
  /// The key.
  public var key: String
  /// Why it was not deleted, or `nil` when it was.
  public var error: StorageError?

  /// An outcome from its parts.
  public init(key: String, error: StorageError? = nil) {
    self.key = key
    self.error = error
  }
}
