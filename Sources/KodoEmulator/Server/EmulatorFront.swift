import NIOHTTP1

/// A protocol front end: what the server asks to turn one complete request into a decision.
///
/// Every front end works over the same shared parts, held by `EmulatorService`: the buckets
/// (the store and its listing), the request counters, the fault engine (scheduled faults,
/// `--fail-rate`, `--latency-ms`), the limits and the control API. `EmulatorService` itself is
/// the Kodo front end; `OSSFront` answers as Aliyun OSS does.
protocol EmulatorFront: Sendable {
  /// Decides what to answer to `request`.
  func handle(_ request: IncomingRequest) -> Decision
  /// Whether handling `request` may read files (then it runs on a thread pool).
  func mayReadFiles(_ request: IncomingRequest) -> Bool
  /// The answer to a request the HTTP decoder rejected (bad syntax, oversized headers).
  func malformedRequestReply() -> Reply
  /// The answer to a request whose body is over the limit, sent before the body is read.
  func bodyTooLargeReply() -> Reply
  /// The largest body `head`'s request may carry: `EmulatorLimits.maximumBodySize`, or for a
  /// write (an upload, a part, a batch) `maximumWriteBodySize`.
  func maximumBodySize(for head: HTTPRequestHead) -> Int
  /// Whether `head`'s body goes to a spool file past `Payload.inMemorySize` (an upload's: a
  /// form, a part, a block, an object) rather than staying in memory.
  func spoolsBody(for head: HTTPRequestHead) -> Bool
  /// The digests computed while `head`'s body is written to its spool file (those its answer
  /// needs), handed over in `IncomingRequest.spooledDigests`; none for a body in memory.
  func spoolDigests(for head: HTTPRequestHead) -> DigestPass.Options
  /// The place in its upload session's file that `head`'s body, a part of `size` bytes, is
  /// written to as it arrives (`PartLayout`), if it is a part and it fits; else it is spooled
  /// to a file of its own.
  func partSlot(for head: HTTPRequestHead, size: Int64) -> PartSlot?
  /// The answer to a request whose body could not be written to the spool folder.
  func unstorableBodyReply() -> Reply
  /// The private folder of spooled bodies, parts and large in-memory objects.
  var spool: SpoolDirectory { get }
  /// What the request bodies being received on every connection may hold together
  /// (`EmulatorLimits.maximumBodiesInFlight`): a body that would pass it gets 413.
  var bodyBudget: MemoryBudget { get }
}

extension EmulatorService: EmulatorFront {}
