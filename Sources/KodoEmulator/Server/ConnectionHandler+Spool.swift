import NIOCore
import NIOHTTP1

/// How a connection takes a request body: in memory, or (an upload past
/// `Payload.inMemorySize`) written to a spool file as it arrives, a chunk at a time on the
/// thread pool, with reading from the socket held while the disk is behind by `heldBehind`. A
/// part with a place in its upload session's file (`PartLayout`) is written there instead.
extension ConnectionHandler {
  /// Bytes gathered before a write to the spool file is started.
  static let spoolChunk = 1 << 20
  /// Reading from the socket stops while this much waits for the spool file.
  static let heldBehind = 4 << 20

  /// Gets ready for the body of `head`.
  func startBody(for head: HTTPRequestHead) {
    resetBody()
    spools = service.spoolsBody(for: head)
    if spools, let spare = spareChunks.popLast() { body = spare }
    bodyLimit = service.maximumBodySize(for: head)
    // A body that stays in memory stays under the in-memory cap, whatever the request limit.
    if !spools { bodyLimit = min(bodyLimit, limits.maximumBodyInMemory) }
    if spools, let declared = head.headers.first(name: "Content-Length").flatMap({ Int64($0) }),
      declared > Int64(Payload.inMemorySize), declared <= Int64(bodyLimit)
    {
      spoolSlot = service.partSlot(for: head, size: declared)
    }
    spoolDigests = spools ? service.spoolDigests(for: head) : []
    if !spoolDigests.isEmpty {
      let declared = head.headers.first(name: "Content-Length").flatMap { Int64($0) }
      spoolPass = DigestPass(spoolDigests, expectedSize: declared)
    }
  }

  /// Forgets the body under way (its spool file goes with its last reference).
  func resetBody() {
    // An emptied chunk buffer is kept for the connection's next spooled body.
    if body.isEmpty, body.capacity >= Self.spoolChunk, spareChunks.count < Self.spareChunkCount {
      spareChunks.append(body)
    }
    body = []
    received = 0
    spools = false
    spoolFile = nil
    spoolSlot = nil
    spoolDigests = []
    spoolPass = nil
    spoolWriting = false
    bodyEnded = false
    bodyGeneration &+= 1
  }

  /// Takes one piece of the body: refused past the request's limit or the budget of bodies in
  /// memory, else kept, and written out when the body spools.
  func receive(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
    let count = buffer.readableBytes
    guard count <= bodyLimit - received, service.bodyBudget.take(Int64(count)) else {
      refuseBody(context: context)
      return
    }
    reserved += count
    received += count
    body.append(contentsOf: buffer.readableBytesView)
    guard spools, spoolFile != nil || spoolWriting || body.count > Payload.inMemorySize else {
      return
    }
    flushToSpool(context: context)
    if spoolWriting && body.count >= Self.heldBehind { readsHeld = true }
  }

  /// Starts writing what is in memory to the spool file when there is a chunk's worth (or the
  /// body has ended); once the body has ended and every byte is written, hands the request on.
  func flushToSpool(context: ChannelHandlerContext) {
    guard !spoolWriting, !discarding else { return }
    guard !body.isEmpty else {
      if bodyEnded, let file = spoolFile {
        let digests = spoolPass.map { SpooledDigests(options: spoolDigests, digests: $0.digests) }
        dispatch(
          content: spoolSlot?.payload ?? .file(file), digests: digests, slot: spoolSlot,
          context: context)
      }
      return
    }
    guard bodyEnded || body.count >= Self.spoolChunk else { return }
    let count = body.count
    // The chunk moves to the thread pool and comes back (the only reference to its memory, so
    // that it is reused, not copied); the next chunk fills the last one's memory, room made for
    // a whole chunk at once.
    let chunk = Locked(body)
    body = spareChunks.popLast() ?? []
    if !bodyEnded { body.reserveCapacity(Self.spoolChunk + Self.spoolChunk / 4) }
    spoolWriting = true
    let generation = bodyGeneration
    let existing = spoolFile
    let spool = service.spool
    let pass = spoolPass
    let slot = spoolSlot
    // The chunk is hashed (what the front end asked for) as it is written, in memory.
    BlockingWork.pool.runIfActive(eventLoop: context.eventLoop) {
      let bytes = chunk.withLock { held -> [UInt8] in
        defer { held = [] }
        return held
      }
      var pass = pass
      if pass != nil { bytes.withUnsafeBytes { pass?.update($0) } }
      let file = try Self.write(bytes, to: existing, slot: slot, in: spool)
      chunk.withLock { $0 = bytes }
      return (file, pass)
    }.assumeIsolated().whenComplete { result in
      // A body refused or abandoned meanwhile gave its whole share back already.
      guard generation == self.bodyGeneration, !self.discarding else { return }
      self.spoolWriting = false
      self.service.bodyBudget.give(Int64(count))
      self.reserved -= count
      guard case .success(let (file, pass)) = result else {
        self.refuseBody(context: context, reply: self.service.unstorableBodyReply())
        return
      }
      self.spoolFile = file
      self.spoolPass = pass
      let spare = chunk.withLock { held -> [UInt8] in
        held.removeAll(keepingCapacity: true)
        defer { held = [] }
        return held
      }
      if self.spareChunks.count < Self.spareChunkCount { self.spareChunks.append(spare) }
      self.flushToSpool(context: context)
      if self.readsHeld && (self.body.count < Self.heldBehind || self.bodyEnded) {
        self.readsHeld = false
        if self.readWanted {
          self.readWanted = false
          context.read()
        }
      }
    }
  }

  /// Appends `chunk` to the part in `slot`, or else to `file` (a new file in `spool` when
  /// `nil`); returns the file.
  private static func write(
    _ chunk: [UInt8], to file: SpoolFile?, slot: PartSlot?, in spool: SpoolDirectory
  ) throws(SpoolDirectory.Failure) -> SpoolFile {
    if let slot {
      let outcome = chunk.withUnsafeBytes { raw in
        Result { () throws(SpoolDirectory.Failure) in try slot.write(raw) }
      }
      try outcome.get()
      return slot.file
    }
    let target: SpoolFile
    if let file {
      target = file
    } else {
      target = try spool.newFile()
    }
    let outcome = chunk.withUnsafeBytes { raw in
      Result { () throws(SpoolDirectory.Failure) in try target.append(raw) }
    }
    try outcome.get()
    return target
  }
}
