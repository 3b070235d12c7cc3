/// A storage service as the commands see it: buckets, pages of listings, an object's details,
/// links and downloads. Qiniu Kodo (`KodoCore`) and Aliyun OSS provide it; `ls`, `stat`, `cat`,
/// `get`, `url` and the browser talk to this protocol only. What only some services have is a
/// capability, a protocol of its own that a command asks for with `as?` (`DomainListing`,
/// `TokenSigning`).
///
/// Every method throws only `StorageError`, retries what is worth retrying, and honours task
/// cancellation (throwing `.cancelled`).
public protocol StorageProvider: Sendable {
  /// The service's name for messages: `Kodo`, `OSS`.
  var serviceName: String { get }

  /// Throws `.invalidInput` when `name` cannot be one of this service's buckets.
  func validateBucketName(_ name: String) throws(StorageError)

  /// The account's buckets.
  func buckets() async throws(StorageError) -> [Bucket]

  /// One page of a listing.
  func listPage(_ request: ListRequest) async throws(StorageError) -> ListPage

  /// One page of a listing as answered, its marker read before the page is decoded (the
  /// default decodes at once; a provider whose answers name the marker first does better).
  func listPageAnswer(_ request: ListRequest) async throws(StorageError) -> PageAnswer

  /// One object's details.
  func stat(bucket: String, key: String) async throws(StorageError) -> ObjectDetails

  /// What makes download URLs for `bucket`'s objects: on `domain` (an explicit or configured
  /// base URL, else the service's own choice), signed unless `signed` is false.
  func linkSigner(bucket: String, domain: DomainChoice, signed: Bool) async throws(StorageError)
    -> LinkSigner

  /// Streams one object's bytes through `writer`, checking that exactly `expectedSize` bytes
  /// arrive when it is given.
  ///
  /// Every attempt goes through the writer, which owns the offset of what it wrote: a failed
  /// attempt that wrote nothing is retried as it was; one that wrote bytes is resumed with a
  /// `Range` from the byte after them (`DownloadWriter.run`), never rewound. The download is
  /// reported complete only after `DownloadWriter.finish` found all of it written.
  func download(_ request: DownloadRequest, to writer: DownloadWriter) async throws(StorageError)
    -> DownloadResult

  /// How a downloaded file is checked against `details` (Kodo's qetag, OSS's CRC-64), or `nil`
  /// when the service gave nothing to check against.
  func integrityCheck(for details: ObjectDetails) -> IntegrityCheck?
}

extension StorageProvider {
  /// A download to `fileDescriptor` from its current offset, `digest` taking the bytes.
  public func download(
    _ request: DownloadRequest, to fileDescriptor: Int32, digest: StreamedDigest? = nil
  ) async throws(StorageError) -> DownloadResult {
    try await download(request, to: DownloadWriter(descriptor: fileDescriptor, digest: digest))
  }

  /// Decodes the page at once.
  public func listPageAnswer(_ request: ListRequest) async throws(StorageError) -> PageAnswer {
    PageAnswer(try await listPage(request))
  }

  /// `listPageAnswer` as the paging code calls it.
  public var pageFetcher: PageFetcher {
    { request throws(StorageError) in try await listPageAnswer(request) }
  }
}

/// Which base URL downloads and links use: one given for this command, else one configured for
/// the bucket, else the service's own (a bound domain, an endpoint).
public struct DomainChoice: Sendable, Equatable {
  /// Given for this command.
  public var explicit: String?
  /// Configured for the bucket.
  public var configured: String?

  /// A choice from its parts.
  public init(explicit: String? = nil, configured: String? = nil) {
    self.explicit = explicit
    self.configured = configured
  }
}

/// A base URL objects can be fetched from, and where it came from.
public struct DownloadDomain: Sendable, Equatable {
  /// Where the domain came from.
  public enum Source: String, Sendable {
    /// Given for this command.
    case explicit
    /// Configured for the bucket.
    case configured
    /// The service's own: a bound domain (Kodo), the bucket's endpoint (OSS).
    case service
  }

  /// The base URL, scheme included; the key follows after one `/`.
  public var baseURL: String
  /// Where it came from.
  public var source: Source
  /// Other base URLs the service offered that were not picked.
  public var alternatives: [String]

  /// A domain from its parts.
  public init(baseURL: String, source: Source, alternatives: [String] = []) {
    self.baseURL = baseURL
    self.source = source
    self.alternatives = alternatives
  }
}

/// One base URL of a bucket, as `domains` lists them.
public struct BucketDomain: Sendable, Equatable {
  /// The domain as the service names it (a host name, possibly with a scheme).
  public var domain: String
  /// The base URL it means, scheme included.
  public var baseURL: String
  /// What kind of domain it is (`bound`, `public`, `internal`, `custom`), when the service says.
  public var kind: String?

  /// A domain from its parts.
  public init(domain: String, baseURL: String, kind: String? = nil) {
    self.domain = domain
    self.baseURL = baseURL
    self.kind = kind
  }
}

/// Makes download URLs of one bucket's objects without further requests.
public struct LinkSigner: Sendable {
  /// The base URL the links use.
  public var domain: DownloadDomain
  /// The longest a signed link may last, in seconds, when the service limits it.
  public var maximumLifetime: Int64?
  /// The current time on the service's clock (corrected for any skew learnt), Unix seconds.
  public var now: @Sendable () -> Int64
  /// The URL of `key`, signed to work until `deadline` (Unix seconds); unsigned when `nil`.
  public var url: @Sendable (_ key: String, _ deadline: Int64?) throws(StorageError) -> String

  /// A signer from its parts.
  public init(
    domain: DownloadDomain, maximumLifetime: Int64? = nil, now: @escaping @Sendable () -> Int64,
    url: @escaping @Sendable (_ key: String, _ deadline: Int64?) throws(StorageError) -> String
  ) {
    self.domain = domain
    self.maximumLifetime = maximumLifetime
    self.now = now
    self.url = url
  }
}

/// One object to download.
public struct DownloadRequest: Sendable, Equatable {
  /// The bucket.
  public var bucket: String
  /// The key.
  public var key: String
  /// Which base URL to fetch from (Kodo downloads go through a domain; OSS's through the
  /// endpoint unless a custom domain is chosen).
  public var domain: DomainChoice
  /// The object's size from its details: more or fewer bytes is an error. With `range`, the
  /// range's length.
  public var expectedSize: Int64?
  /// Only these bytes of the object (offsets from 0, both ends included; `Range: bytes=A-B`).
  public var range: ClosedRange<Int64>?

  /// A request from its parts.
  public init(
    bucket: String, key: String, domain: DomainChoice = DomainChoice(), expectedSize: Int64? = nil,
    range: ClosedRange<Int64>? = nil
  ) {
    self.bucket = bucket
    self.key = key
    self.domain = domain
    self.expectedSize = expectedSize
    self.range = range
  }
}

/// What a finished download produced.
public struct DownloadResult: Sendable, Equatable {
  /// Body bytes written to the file descriptor.
  public var byteCount: Int64
  /// The final HTTP status.
  public var status: Int
  /// The service's request id, when the answer had one.
  public var requestID: String?
  /// `Content-Type`, when sent.
  public var contentType: String?

  /// A result from its parts.
  public init(byteCount: Int64, status: Int, requestID: String? = nil, contentType: String? = nil) {
    self.byteCount = byteCount
    self.status = status
    self.requestID = requestID
    self.contentType = contentType
  }
}

/// How a downloaded file is checked: a named digest of its bytes against the service's value.
public struct IntegrityCheck: Sendable {
  /// The digest's name for messages: `qetag`, `CRC-64`.
  public var name: String
  /// The service's value.
  public var expected: String
  /// Computes the value over the bytes of an open, readable file, read from its start with
  /// positional reads (its offset is not moved), never through a path: the caller opened the
  /// file itself (without following a link) and keeps it open.
  public var compute: @Sendable (_ file: Int32) throws(StorageError) -> String
  /// The digest before any byte, for computing the value while the bytes stream (`cat`), when
  /// the digest can be computed that way.
  public var running: (any RunningDigest)?

  /// A check from its parts.
  public init(
    name: String, expected: String,
    compute: @escaping @Sendable (_ file: Int32) throws(StorageError) -> String,
    running: (any RunningDigest)? = nil
  ) {
    self.name = name
    self.expected = expected
    self.compute = compute
    self.running = running
  }

  /// The failure of downloaded data whose value came out as `digest`: `.protocolError` naming
  /// both values, then `consequence` (what became of the data) when given.
  public func mismatch(_ digest: String, consequence: String? = nil) -> StorageError {
    StorageError(
      .protocolError,
      "the downloaded data's \(name) \(digest) does not match the service's \(DisplayText(escaping: expected))"
        + (consequence.map { "; " + $0 } ?? ""))
  }
}
