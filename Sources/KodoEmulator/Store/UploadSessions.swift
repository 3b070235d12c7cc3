import KodoCore
import StorageCore
import Synchronization

/// Unfinished multipart uploads (Kodo resumable v1 and v2, OSS multipart): their parts are
/// held (small ones in memory, large ones in their place in the session's file, `PartLayout`,
/// or as spool files of their own), counted against the memory budget, until completed or
/// aborted, or until they expire (`--upload-ttl`).
final class UploadSessions: Sendable {
  struct Part: Sendable {
    var number: Int
    var data: Payload
    /// The digests computed as the part arrived (which ones depends on the protocol).
    var digests: PartDigests
    /// The ETag the part's answer gave (without quotes).
    var etag: String
    /// Unix seconds.
    var putTime: Int64
    /// The place in the session's file `data` lies in, when it does.
    var slot: PartSlot?

    var size: Int64 { data.count }
  }

  struct Session: Sendable {
    var id: String
    var bucket: String
    /// `nil`: Kodo's `~` (the key is decided at completion).
    var key: [UInt8]?
    /// Unix seconds.
    var initiated: Int64
    var expires: Int64
    var parts: [Int: Part] = [:]
    /// What the initiation asked for (OSS headers: content type, meta, storage class, …).
    var metadata: ObjectMetadata?
    var forbidOverwrite = false
    /// A Kodo v1 block being filled (`mkblk`, `bput`).
    var block: KodoBlock?
    /// Where large parts are written as they arrive.
    var layout: PartLayout?

    var sortedParts: [Part] { parts.values.sorted { $0.number < $1.number } }
  }

  /// Why a session operation failed.
  enum Failure: Error {
    case noSuchUpload
    case memoryFull
    /// The spool folder refused a file.
    case unstorable
  }

  private let sessions = Mutex([String: Session]())
  private let memory: MemoryBudget
  let ttlSeconds: Int64
  /// Completions whose parts became the object where they lay, without a copy.
  private let inPlace = Atomic<Int>(0)

  init(memory: MemoryBudget, ttlSeconds: Int64) {
    self.memory = memory
    self.ttlSeconds = ttlSeconds
  }

  /// A new session; its id is 32 random hex digits.
  /// Large parts are written in their place in a file of `store`'s `partFolder`.
  func create(
    bucket: String, key: [UInt8]?, now: Int64, metadata: ObjectMetadata? = nil,
    forbidOverwrite: Bool = false, store: ObjectStore? = nil
  ) -> Session {
    var random = SystemRandomNumberGenerator()
    let id = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
    var session = Session(
      id: id, bucket: bucket, key: key, initiated: now, expires: now + ttlSeconds)
    session.metadata = metadata
    session.forbidOverwrite = forbidOverwrite
    if let store, let folder = store.partFolder {
      session.layout = PartLayout(folder: folder, flushesParts: store.directory != nil)
    }
    sweep(now: now)
    sessions.withLock { $0[id] = session }
    return session
  }

  /// The live session `id` of `bucket`.
  func session(_ id: String, bucket: String, now: Int64) -> Session? {
    sweep(now: now)
    return sessions.withLock { table in
      guard let session = table[id], session.bucket == bucket else { return nil }
      return session
    }
  }

  /// The place of part `number` (`size` bytes) in the file of upload `id`, if it has one and
  /// the part fits (`PartLayout.slot`).
  func slot(upload id: String, part number: Int, size: Int64) -> PartSlot? {
    let layout = sessions.withLock { $0[id]?.layout }
    return layout?.slot(part: number, size: size)
  }

  /// `parts`, a completion's checked list, joined where they lie in their session's file
  /// (`PartLayout.join`); `nil`: they are copied.
  func join(_ parts: [Part], of session: Session) -> JoinedParts? {
    session.layout?.join(parts)
  }

  /// Ends a join: counted when its completion made the file the object, else the session's
  /// file takes parts again.
  func finish(_ joined: JoinedParts?) {
    guard let joined else { return }
    if joined.file.isSealed {
      inPlace.add(1, ordering: .relaxed)
    } else {
      joined.layout.reopen()
    }
  }

  /// How many completions stored their parts where they lay, without a copy.
  var joinedInPlace: Int { inPlace.load(ordering: .relaxed) }

  /// Every live session of `bucket`, by key then initiation.
  func sessions(of bucket: String, now: Int64) -> [Session] {
    sweep(now: now)
    return sessions.withLock { table in
      table.values.filter { $0.bucket == bucket }.sorted { left, right in
        let order = ByteOrder.compare(left.key ?? [], right.key ?? [])
        return order != 0 ? order < 0 : left.initiated < right.initiated
      }
    }
  }

  /// Stores (or replaces) a part.
  func put(_ part: Part, in id: String, bucket: String, now: Int64) throws(Failure) {
    guard session(id, bucket: bucket, now: now) != nil else { throw .noSuchUpload }
    guard memory.take(part.size) else { throw .memoryFull }
    let replaced = sessions.withLock { table -> Int64? in
      guard table[id] != nil else { return nil }
      let old = table[id]?.parts[part.number]?.size ?? 0
      table[id]?.parts[part.number] = part
      return old
    }
    guard let replaced else {
      memory.give(part.size)
      throw .noSuchUpload
    }
    memory.give(replaced)
  }

  /// A new session for a Kodo v1 block of `size` bytes, its size taken from the budget at once.
  func createBlock(bucket: String, size: Int64, spool: SpoolDirectory, now: Int64)
    throws(Failure) -> Session
  {
    let file: SpoolFile
    do throws(SpoolDirectory.Failure) {
      file = try spool.newFile()
    } catch {
      throw .unstorable
    }
    guard memory.take(size) else { throw .memoryFull }
    var session = create(bucket: bucket, key: nil, now: now)
    session.block = KodoBlock(file: file, declaredSize: size)
    let stored = session
    let live = sessions.withLock { table -> Bool in
      guard table[stored.id] != nil else { return false }
      table[stored.id] = stored
      return true
    }
    guard live else {
      memory.give(size)
      throw .noSuchUpload
    }
    return session
  }

  /// Ends the session (completed or aborted), giving its memory back.
  @discardableResult
  func remove(_ id: String) -> Session? {
    let removed = sessions.withLock { $0.removeValue(forKey: id) }
    if let removed { memory.give(Self.size(of: removed)) }
    return removed
  }

  private func sweep(now: Int64) {
    let expired = sessions.withLock { table -> [Session] in
      let gone = table.values.filter { $0.expires <= now }
      for session in gone { table.removeValue(forKey: session.id) }
      return gone
    }
    for session in expired { memory.give(Self.size(of: session)) }
  }

  private static func size(of session: Session) -> Int64 {
    session.parts.values.reduce(session.block?.declaredSize ?? 0) { $0 + $1.size }
  }
}

/// A Kodo v1 block being filled chunk by chunk (`mkblk`, then `bput`s): its bytes in a spool
/// file, its digests kept running, so that each chunk is read once and never the block again.
final class KodoBlock: Sendable {
  /// What a chunk's answer reports.
  struct Progress {
    var size: Int64
    /// The SHA-1 of the block so far (its one qetag block).
    var sha1: [UInt8]
    var crc32: UInt32
  }

  let file: SpoolFile
  /// The size `mkblk` announced.
  let declaredSize: Int64
  private let pass = Mutex(DigestPass(.kodo))

  init(file: SpoolFile, declaredSize: Int64) {
    self.file = file
    self.declaredSize = declaredSize
  }

  /// Appends `chunk` where the block now ends, which must be `offset`; chunks of one block are
  /// taken one at a time.
  func append(_ chunk: Payload, at offset: Int64) throws(StoreFailure) -> Progress {
    try pass.withLock { (pass: inout DigestPass) throws(StoreFailure) -> Progress in
      guard offset == file.size, offset + chunk.count <= declaredSize else { throw .noSuchKey }
      var crc: UInt32 = 0
      try chunk.forEachChunk { (bytes) throws(StoreFailure) in
        do throws(SpoolDirectory.Failure) {
          try file.append(bytes)
        } catch {
          throw .io
        }
        pass.update(bytes)
        crc = CRC32.checksum(bytes, continuing: crc)
      }
      return Progress(size: file.size, sha1: pass.digests.blocks.first ?? [], crc32: crc)
    }
  }

  /// The finished block's contents and digests, when it holds as many bytes as announced.
  var finished: (data: Payload, digests: PartDigests)? {
    pass.withLock { pass in
      guard file.size == declaredSize else { return nil }
      return (Payload.file(file), pass.digests)
    }
  }
}
