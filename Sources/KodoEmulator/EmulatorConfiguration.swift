import KodoCore
public import StorageCore

/// Everything an emulator needs to start: where to listen, whose signatures to accept, which
/// buckets to serve, and which faults to inject.
public struct EmulatorConfiguration: Sendable {
  /// The access key used when none is given; a throwaway credential for demos.
  public static let defaultAccessKey = "kodo-emulator-access-key"
  /// The secret key used when none is given; a throwaway credential for demos.
  public static let defaultSecretKey = "kodo-emulator-secret-key"

  /// The address to bind (and to name in every URL the emulator hands out).
  public var host: String
  /// The port to bind; 0 picks a free one.
  public var port: Int
  /// The only credentials whose signatures are accepted.
  public var credentials: Credentials
  /// The buckets, each with a unique name.
  public var buckets: [EmulatorBucket]
  /// Names of buckets whose downloads need a valid private-URL token.
  public var privateBuckets: Set<String>
  /// Names of directory buckets that take writes into their directory (`--writable`).
  public var writableBuckets: Set<String> = []
  /// How long an unfinished multipart or resumable upload is kept, seconds (`--upload-ttl`).
  public var uploadTTLSeconds: Int64 = 7 * 86_400
  /// The bytes in-memory buckets and unfinished uploads may hold together (`--memory-limit`).
  public var memoryLimit: Int64 = 1 << 30
  /// A delay added before every API response (not downloads, not `/_emulator/`), milliseconds.
  public var latencyMilliseconds: Int
  /// A delay added before every download's answer, milliseconds (a far object store).
  public var downloadLatencyMilliseconds = 0
  /// The fraction (0...1) of API requests answered with a retryable failure; see
  /// `docs/emulator.md`.
  public var failRate: Double
  /// The seed of synthetic buckets and of the fail-rate sequence.
  public var seed: UInt64
  /// The emulator's clock: `Date` headers, `X-Qiniu-Date` skew and download deadlines.
  public var clock: WallClock
  /// The protocol served: Qiniu Kodo's (the default) or Aliyun OSS's.
  public var wireProtocol: EmulatorProtocol = .kodo
  /// OSS: the region ID V4 signatures must name, and buckets report (`cn-hangzhou`).
  public var region = "cn-hangzhou"
  /// OSS: the STS token every signed request must carry, or `nil` for long-term credentials.
  public var securityToken: String?
  /// What one client may hold; tests shrink them.
  package var limits = EmulatorLimits()

  /// A configuration; every parameter has the command line's default.
  public init(
    host: String = "127.0.0.1", port: Int = 0,
    credentials: Credentials = Credentials(
      accessKey: EmulatorConfiguration.defaultAccessKey,
      secretKey: EmulatorConfiguration.defaultSecretKey),
    buckets: [EmulatorBucket] = [], privateBuckets: Set<String> = [], latencyMilliseconds: Int = 0,
    failRate: Double = 0, seed: UInt64 = 0, clock: WallClock = .system
  ) {
    self.host = host
    self.port = port
    self.credentials = credentials
    self.buckets = buckets
    self.privateBuckets = privateBuckets
    self.latencyMilliseconds = latencyMilliseconds
    self.failRate = failRate
    self.seed = seed
    self.clock = clock
  }
}

/// The protocol an emulator speaks over the same buckets, faults and server.
public enum EmulatorProtocol: String, Sendable, CaseIterable {
  /// Qiniu Kodo: uc, rs, rsf and api endpoints, downloads under `/dl/BUCKET/`.
  case kodo
  /// Aliyun OSS, path style: `http://HOST:PORT/BUCKET/KEY`.
  case oss
}

/// The bounds that keep clients from holding the emulator's connections, memory or threads.
package struct EmulatorLimits: Sendable {
  /// A connection that has not sent a complete request this long after it opened, or after its
  /// previous answer ended, is closed (milliseconds). Slow answers are not cut.
  package var requestTimeoutMilliseconds = 30_000
  /// A connection whose request head (request line and headers) is not complete this long after
  /// it opened, or after its previous answer ended, is closed (milliseconds).
  package var headTimeoutMilliseconds = 10_000
  /// Open connections at most. One more closes the connection that has waited longest for a
  /// request (never one being answered); when every one is being answered, the new one is closed.
  package var maximumConnections = 512
  /// The largest request body; a longer one gets 413 at once and a close. API and control bodies
  /// are a few hundred bytes.
  package var maximumBodySize = 64 * 1_024
  /// The largest body of a write (an upload, a part, a batch). An upload's body past
  /// `Payload.inMemorySize` is written to the spool folder as it arrives; other bodies stay in
  /// memory, up to `maximumBodyInMemory`.
  package var maximumWriteBodySize = 64 * 1_024 * 1_024
  /// The most of any one body held in memory: a body that is not spooled and is longer gets 413.
  package var maximumBodyInMemory = 64 * 1_024 * 1_024
  /// What the bodies being received on every connection may hold in memory together, so that
  /// many connections sending large bodies cannot exhaust memory.
  package var maximumBodiesInFlight: Int64 = 256 * 1_024 * 1_024

  /// The defaults.
  package init() {}
}

/// A bucket the emulator serves.
public struct EmulatorBucket: Sendable {
  /// Where a bucket's objects come from.
  public enum Source: Sendable {
    /// A local directory, scanned at start-up; read-only unless named in `writableBuckets`.
    case directory(path: String)
    /// An empty bucket in memory, taking writes.
    case memory
    /// `count` generated objects (see `docs/emulator.md`), deterministic for the seed.
    case synthetic(count: Int)
    /// `count` generated objects, all in one folder (`dir-000/sub-00/`).
    case flatSynthetic(count: Int)
    /// Objects given in memory; the bucket takes writes.
    case objects([EmulatorObject])

    /// Whether a synthetic source puts every object in one folder.
    var isFlat: Bool {
      if case .flatSynthetic = self { return true }
      return false
    }
  }

  /// The bucket's name: 1–63 characters of `a–z A–Z 0–9 - _`.
  public var name: String
  /// Its objects.
  public var source: Source

  /// A bucket from a name and a source.
  public init(name: String, source: Source) {
    self.name = name
    self.source = source
  }

  /// A bucket serving the directory at `path`.
  public static func directory(_ name: String, path: String) -> EmulatorBucket {
    EmulatorBucket(name: name, source: .directory(path: path))
  }

  /// A bucket of `count` generated objects, all in one folder when `flat`.
  public static func synthetic(_ name: String, count: Int, flat: Bool) -> EmulatorBucket {
    EmulatorBucket(
      name: name, source: flat ? .flatSynthetic(count: count) : .synthetic(count: count))
  }

  /// A bucket of `count` generated objects.
  public static func synthetic(_ name: String, count: Int) -> EmulatorBucket {
    EmulatorBucket(name: name, source: .synthetic(count: count))
  }

  /// An empty in-memory bucket that takes writes.
  public static func memory(_ name: String) -> EmulatorBucket {
    EmulatorBucket(name: name, source: .memory)
  }

  /// A bucket of the given objects.
  public static func objects(_ name: String, _ objects: [EmulatorObject]) -> EmulatorBucket {
    EmulatorBucket(name: name, source: .objects(objects))
  }
}

/// An object given in memory, with every field Kodo can report.
///
/// The fields are kept as list and stat write them (`ObjectMetadata`); `fsize` and `hash` (the
/// qetag) come from the body, once, here.
public struct EmulatorObject: Sendable, Equatable {
  /// The key (any UTF-8).
  public let key: String
  /// The content.
  public let body: [UInt8]
  /// Every other field.
  let metadata: ObjectMetadata

  /// An object; by default a standard, enabled object put at 2024-01-01T00:00:00Z.
  ///
  /// `mimeType` `nil` picks one from the key's extension. `putTime` and `lastModify` are 100 ns
  /// units since the Unix epoch, `expiration` and the `transitionTo…` dates (stat only) Unix
  /// seconds. `type` is the storage class (0 standard, 1 IA, 2 archive, 3 deep archive,
  /// 4 archive IR, 5 tiering), `status` 0 enabled or 1 disabled, `restoreStatus` 1 restoring or
  /// 2 restored; `md5` is reported as given, `meta` (`x-qn-meta`) in key byte order.
  public init(
    key: String, body: [UInt8] = [], mimeType: String? = nil,
    putTime: Int64 = 17_040_672_000_000_000, type: Int = 0, status: Int = 0, md5: String? = nil,
    endUser: String? = nil, meta: UserMetadata = [:], restoreStatus: Int? = nil,
    lastModify: Int64? = nil, expiration: Int64? = nil, transitionToIA: Int64? = nil,
    transitionToArchiveIR: Int64? = nil, transitionToArchive: Int64? = nil,
    transitionToDeepArchive: Int64? = nil
  ) {
    self.key = key
    self.body = body
    metadata = ObjectMetadata(
      fsize: Int64(body.count), hash: QETag.hash(of: body),
      mimeType: mimeType ?? MimeTypes.forKey(key), putTime: putTime, type: type, status: status,
      md5: md5, endUser: endUser,
      meta: meta.entries.map { MetaMember(name: $0.name, value: $0.value) },
      restoreStatus: restoreStatus, lastModify: lastModify, expiration: expiration,
      transitionToIA: transitionToIA, transitionToArchiveIR: transitionToArchiveIR,
      transitionToArchive: transitionToArchive, transitionToDeepArchive: transitionToDeepArchive)
  }
}

/// Why an emulator could not start.
public enum EmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A bucket's directory does not exist.
  case directoryNotFound(String)
  /// A bucket's directory is not a directory.
  case notADirectory(String)
  /// A bucket's directory cannot be read.
  case unreadableDirectory(String)
  /// A file vanished or became unreadable after the scan.
  case unreadableFile(String)
  /// A bucket name outside 1–63 characters of `a–z A–Z 0–9 - _`.
  case invalidBucketName(String)
  /// Two buckets with one name.
  case duplicateBucket(String)
  /// A private bucket that is not configured.
  case unknownPrivateBucket(String)
  /// A `--writable` bucket that is not a configured directory bucket.
  case notAWritableBucket(String)
  /// Two in-memory objects with one key.
  case duplicateKey(String)
  /// Another configuration value out of range.
  case invalidConfiguration(String)
  /// The address could not be bound.
  case bindFailed(address: String, reason: String)
  /// Another emulator serves this directory as a writable bucket (it holds the claim on it).
  case directoryInUse(String)

  /// A one-line explanation.
  public var description: String {
    switch self {
    case .directoryNotFound(let path): "no such directory: \(path)"
    case .notADirectory(let path): "not a directory: \(path)"
    case .unreadableDirectory(let path): "cannot read directory: \(path)"
    case .unreadableFile(let path): "cannot read file: \(path)"
    case .invalidBucketName(let name):
      "invalid bucket name '\(name)': use 1-63 characters of a-z A-Z 0-9 - _"
    case .duplicateBucket(let name): "bucket '\(name)' is defined twice"
    case .unknownPrivateBucket(let name): "private bucket '\(name)' is not defined"
    case .notAWritableBucket(let name):
      "writable bucket '\(name)' is not a directory bucket (--bucket \(name)=DIR)"
    case .duplicateKey(let key): "two objects have the key '\(key)'"
    case .invalidConfiguration(let reason): reason
    case .bindFailed(let address, let reason): "cannot listen on \(address): \(reason)"
    case .directoryInUse(let path):
      "another kodo-emulator is serving \(path) as a writable bucket (it holds the lock on "
        + "\(path)/\(WritableDirectory.stateFolder)); stop it first"
    }
  }
}
