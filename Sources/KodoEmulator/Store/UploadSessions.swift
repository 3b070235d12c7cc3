import StorageCore
import Synchronization

/// Unfinished multipart uploads (Kodo resumable v2, OSS multipart): their parts are held in
/// memory, counted against the memory budget, until completed or aborted, or until they expire
/// (`--upload-ttl`).
final class UploadSessions: Sendable {
  struct Part: Sendable {
    var number: Int
    var bytes: [UInt8]
    /// The ETag the part's answer gave (without quotes).
    var etag: String
    var md5: [UInt8]
    var crc64: UInt64
    /// Unix seconds.
    var putTime: Int64
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

    var sortedParts: [Part] { parts.values.sorted { $0.number < $1.number } }
  }

  /// Why a session operation failed.
  enum Failure: Error {
    case noSuchUpload
    case memoryFull
  }

  private let sessions = Mutex([String: Session]())
  private let memory: MemoryBudget
  let ttlSeconds: Int64

  init(memory: MemoryBudget, ttlSeconds: Int64) {
    self.memory = memory
    self.ttlSeconds = ttlSeconds
  }

  /// A new session; its id is 32 random hex digits.
  func create(
    bucket: String, key: [UInt8]?, now: Int64, metadata: ObjectMetadata? = nil,
    forbidOverwrite: Bool = false
  ) -> Session {
    var random = SystemRandomNumberGenerator()
    let id = Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
    var session = Session(
      id: id, bucket: bucket, key: key, initiated: now, expires: now + ttlSeconds)
    session.metadata = metadata
    session.forbidOverwrite = forbidOverwrite
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
    guard memory.take(Int64(part.bytes.count)) else { throw .memoryFull }
    let replaced = sessions.withLock { table -> Int64? in
      guard table[id] != nil else { return nil }
      let old = table[id]?.parts[part.number].map { Int64($0.bytes.count) } ?? 0
      table[id]?.parts[part.number] = part
      return old
    }
    guard let replaced else {
      memory.give(Int64(part.bytes.count))
      throw .noSuchUpload
    }
    memory.give(replaced)
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
    session.parts.values.reduce(0) { $0 + Int64($1.bytes.count) }
  }
}
