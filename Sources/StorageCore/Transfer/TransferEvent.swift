/// What a transfer tells its caller as it goes: plans, sessions, parts, progress. Delivered to a
/// `@Sendable` callback, possibly from several threads at once (progress comes from the
/// transfers' own threads); the command line turns events into its progress display and
/// `--verbose` lines.
public enum TransferEvent: Sendable, Equatable {
  /// The source is cut into `parts` parts of `partSize` bytes (the last may be shorter).
  case planned(totalBytes: Int64, partSize: Int64, parts: Int)
  /// A new session started.
  case started(UploadSession)
  /// A checkpoint's session goes on: `partsDone` parts (`bytesDone` bytes) the service still
  /// holds are not sent again.
  case resumed(UploadSession, partsDone: Int, bytesDone: Int64)
  /// The checkpoint given cannot be used (`reason`), so the upload starts afresh.
  case checkpointIgnored(reason: String)
  /// The service no longer knows the session (it expired, or was aborted or completed): the
  /// upload starts afresh with a new session.
  case sessionForgotten(uploadID: String)
  /// Part `number` is being read and sent.
  case partStarted(number: Int)
  /// Part `number` failed (`error`) and is sent again (its attempt `attempt` follows).
  case partRetrying(number: Int, attempt: Int, error: StorageError)
  /// Part `number` is done.
  case partDone(PartReceipt)
  /// Bytes done: the parts done plus the bytes of parts on the wire in their current attempt.
  case progress(bytesDone: Int64, totalBytes: Int64)
  /// All parts are done; the object is being made from `parts` parts.
  case completing(parts: Int)
  /// The object is made.
  case completed(UploadedObject)
}
