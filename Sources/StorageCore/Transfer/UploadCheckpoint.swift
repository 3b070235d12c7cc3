/// What identifies the content of an upload's source, so that a checkpoint is only used for the
/// same content: its size and modification time, as the caller read them when it opened it.
public struct SourceIdentity: Sendable, Equatable, Codable {
  /// The size in bytes.
  public var size: Int64
  /// The modification time, in nanoseconds since 1970.
  public var modifiedNanoseconds: Int64

  /// An identity from its parts.
  public init(size: Int64, modifiedNanoseconds: Int64) {
    self.size = size
    self.modifiedNanoseconds = modifiedNanoseconds
  }
}

/// How far a multipart upload got: enough to resume it without sending done parts again.
///
/// The engine hands one to its caller after the session starts and after every part; the caller
/// keeps it where it likes (the command line: a file per source and target under its state
/// directory) and passes it back to resume. Resuming asks the service which parts it holds and
/// trusts only those that the checkpoint and the service agree on.
public struct UploadCheckpoint: Sendable, Equatable, Codable {
  /// The format this build writes; a checkpoint of another version is not used.
  public static let currentVersion = 1

  /// The format's version.
  public var version: Int
  /// The service's session.
  public var session: UploadSession
  /// The part size the upload was planned with.
  public var partSize: Int64
  /// The source the parts were read from.
  public var source: SourceIdentity
  /// The parts done, in ascending number order.
  public var parts: [PartReceipt]

  /// A checkpoint from its parts, at the current version; `parts` are sorted by number.
  public init(
    session: UploadSession, partSize: Int64, source: SourceIdentity, parts: [PartReceipt] = []
  ) {
    version = Self.currentVersion
    self.session = session
    self.partSize = partSize
    self.source = source
    self.parts = parts.sorted { $0.number < $1.number }
  }

  /// The bytes of the parts done.
  public var bytesDone: Int64 { parts.reduce(0) { $0 + $1.size } }
}
