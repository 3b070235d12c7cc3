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
  /// Part `number` is being read and sent (a download's range: fetched and written).
  case partStarted(number: Int)
  /// Part `number` failed (`error`) and is sent again (its attempt `attempt` follows).
  case partRetrying(number: Int, attempt: Int, error: StorageError)
  /// Part `number` is done.
  case partDone(PartReceipt)
  /// Range `number` of a download, `bytes` long, is written.
  case rangeDone(number: Int, bytes: Int64)
  /// Bytes done: the parts done plus the bytes of parts on the wire in their current attempt.
  case progress(bytesDone: Int64, totalBytes: Int64)
  /// All parts are done; the object is being made from `parts` parts.
  case completing(parts: Int)
  /// The object is made.
  case completed(UploadedObject)
}

extension TransferEvent {
  /// Events as an `AsyncStream`, for a caller that would rather iterate than take a callback:
  /// pass `send` as a run's `events` and call `finish` when the run returns. At most `limit`
  /// undelivered events are kept; past that the oldest are dropped (a slow reader loses old
  /// progress, never the latest state).
  public static func stream(limit: Int = 4096) -> (
    events: AsyncStream<TransferEvent>, send: @Sendable (TransferEvent) -> Void,
    finish: @Sendable () -> Void
  ) {
    let (events, continuation) = AsyncStream.makeStream(
      of: TransferEvent.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
    return (events, { continuation.yield($0) }, { continuation.finish() })
  }
}
