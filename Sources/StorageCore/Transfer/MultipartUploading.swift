/// The multipart protocol of one service, for one object: what a provider implements so that the
/// transfer engine (``MultipartUpload``) can upload a large source in parts, in parallel, with
/// retries and resumption. Kodo's resumable upload v2, OSS's multipart upload and S3's fit it.
///
/// A value is made by the provider for one target (bucket, key and the options of the final
/// object, such as its content type, metadata and whether it may replace an existing object);
/// the engine only moves parts. Every call goes through the provider's request pipeline:
/// ``uploadPart(_:number:body:digest:)`` as an ``Idempotency/idempotent`` request (the service
/// replaces a part sent twice), ``complete(_:parts:)`` as ``Idempotency/unsafe`` (a repeated
/// complete may fail where the first succeeded), ``initiate()`` as unsafe too (a repeat leaves an
/// orphan session).
public protocol MultipartUploading: Sendable {
  /// The digest the service wants of each part (Kodo: MD5 as hex; OSS: MD5 as base64 and
  /// CRC-64), computed by the engine in a read of the part before the part is sent, so the
  /// provider can put it in a header (`Content-MD5`, which also makes the service refuse a part
  /// whose bytes changed in the file since) and check the answer with it.
  associatedtype PartDigest: RunningDigest

  /// The service's rules for part sizes and counts.
  var limits: PartLimits { get }

  /// A digest of no bytes yet, for one part.
  func makePartDigest() -> PartDigest

  /// Starts an upload session.
  func initiate() async throws(StorageError) -> UploadSession

  /// Sends part `number` (1-based) of `session`: `body`'s bytes (the part's range of the source
  /// file, read as it is sent), whose digest is `digest`.
  ///
  /// - Returns: the receipt to list at completion; its `size` is the body's length.
  func uploadPart(_ session: UploadSession, number: Int, body: RequestBody, digest: PartDigest)
    async throws(StorageError) -> PartReceipt

  /// Makes the object from `parts` (in ascending part-number order). The session ends.
  func complete(_ session: UploadSession, parts: [PartReceipt]) async throws(StorageError)
    -> UploadedObject

  /// Ends `session` without making an object; the service drops its parts.
  func abort(_ session: UploadSession) async throws(StorageError)

  /// The parts the service holds for `session` (all pages), for resuming.
  func listParts(_ session: UploadSession) async throws(StorageError) -> [PartReceipt]

  /// Whether `error` says the service no longer knows the session (OSS `NoSuchUpload`, Kodo 612
  /// for v2 and 701 for v1): it expired, was aborted or completed. The engine then starts afresh.
  func isForgotten(_ error: StorageError) -> Bool
}

/// A service's rules for the parts of one upload.
public struct PartLimits: Sendable, Equatable, Codable {
  /// The smallest size of every part but the last (Kodo v2: 1 MiB; OSS: 100 KiB).
  public var minimumPartSize: Int64
  /// The largest size of a part (Kodo v2: 1 GiB; OSS: 5 GiB).
  public var maximumPartSize: Int64
  /// The most parts of one upload (both: 10,000).
  public var maximumPartCount: Int
  /// A part size raised to keep within ``maximumPartCount`` is rounded up to a multiple of this
  /// (Kodo v1's fixed 4 MiB blocks: 4 MiB, with the minimum and maximum both 4 MiB).
  public var sizeStep: Int64

  /// Limits from their values; `sizeStep` defaults to 1 MiB.
  public init(
    minimumPartSize: Int64, maximumPartSize: Int64, maximumPartCount: Int,
    sizeStep: Int64 = 1 << 20
  ) {
    self.minimumPartSize = max(1, minimumPartSize)
    self.maximumPartSize = max(self.minimumPartSize, maximumPartSize)
    self.maximumPartCount = max(1, maximumPartCount)
    self.sizeStep = max(1, sizeStep)
  }
}

/// One upload session as the service named it; saved in checkpoints to resume.
public struct UploadSession: Sendable, Equatable, Codable {
  /// The service's upload id.
  public var uploadID: String
  /// When the service forgets the session (Unix seconds), when it said.
  public var expiresAt: Int64?
  /// Whatever else the provider needs to go on with the session (such as the host it was
  /// started on); the engine only keeps it.
  public var attributes: [String: String]

  /// A session from its parts.
  public init(uploadID: String, expiresAt: Int64? = nil, attributes: [String: String] = [:]) {
    self.uploadID = uploadID
    self.expiresAt = expiresAt
    self.attributes = attributes
  }
}

/// What the service answered for one part: what completion lists.
public struct PartReceipt: Sendable, Equatable, Codable {
  /// The part number, from 1.
  public var number: Int
  /// The part's size in bytes.
  public var size: Int64
  /// The service's tag for the part (OSS `ETag`, Kodo `etag`), as the provider lists it back.
  public var etag: String
  /// The part's digest as the provider spells it (Kodo MD5 hex, OSS CRC-64), when known; OSS
  /// combines the parts' CRC-64 to check the object.
  public var checksum: String?
  /// The SHA-1 of the part's bytes in hex, when the provider computed it in the read that made
  /// the part's digest (Kodo: what the object's hash is checked against, so the file is not read
  /// again after the upload); `nil` in a checkpoint written before it was kept.
  public var contentSHA1: String?

  /// A receipt from its parts.
  public init(
    number: Int, size: Int64, etag: String, checksum: String? = nil, contentSHA1: String? = nil
  ) {
    self.number = number
    self.size = size
    self.etag = etag
    self.checksum = checksum
    self.contentSHA1 = contentSHA1
  }
}

/// The object a completed upload made.
public struct UploadedObject: Sendable, Equatable, Codable {
  /// Its key.
  public var key: String
  /// Its size in bytes.
  public var size: Int64
  /// The service's tag or hash for it (Kodo `hash`, OSS `ETag`), when it said.
  public var etag: String?
  /// The request id of the answer that made it.
  public var requestID: String?

  /// An object from its parts.
  public init(key: String, size: Int64, etag: String? = nil, requestID: String? = nil) {
    self.key = key
    self.size = size
    self.etag = etag
    self.requestID = requestID
  }
}
