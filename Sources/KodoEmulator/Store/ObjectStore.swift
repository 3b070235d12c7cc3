import KodoCore
import NIOCore
import StorageCore
import Synchronization

/// Why a write to a bucket failed; each front answers it in its service's words.
enum StoreFailure: Error, Equatable {
  /// The bucket is read-only (neither in memory nor `--writable`).
  case readOnly
  /// No object has the key.
  case noSuchKey
  /// An object has the key and the write may not replace it.
  case exists
  /// An in-memory bucket would grow past the emulator's memory limit.
  case memoryFull
  /// A directory bucket cannot hold the key as a path, or a folder is in the way.
  case keyNotAPath
  /// The file system failed.
  case io
}

/// A writable bucket: in memory, or a `--writable` directory. Its objects are kept sorted by key
/// (`SortedObjects`); each write is done (and, in a directory, flushed to the disk) before it is
/// answered, and readers work on snapshots (`StoreSnapshot`), so a listing never sees half a
/// write.
///
/// Each write holds the bucket's writer lock for that one object only (a `/batch` or
/// `DeleteMultipleObjects` takes it once per key), so concurrent batches interleave.
final class ObjectStore: Sendable {
  private struct State {
    var objects: SortedObjects
    /// Bytes held in memory by this bucket's objects.
    var memoryUsed: Int64 = 0
  }

  private let state: Mutex<State>
  /// Serialises writers, so that a check (does the key exist?) and the write that follows are
  /// one step; readers only take `state`'s lock, briefly.
  private let writer = Mutex(())
  let directory: WritableDirectory?
  private let memory: MemoryBudget
  /// Where an in-memory bucket keeps its large objects.
  let spool: SpoolDirectory?

  /// Where the parts of uploads into this bucket are written (`PartLayout`): beside the files
  /// of a directory bucket (a completion renames them into place), in the spool for an
  /// in-memory bucket.
  var partFolder: SpoolDirectory? { directory?.partFolder ?? spool }

  /// An empty in-memory bucket, or one with `objects` (sorted, unique keys).
  init(
    objects: [StoredObject], memory: MemoryBudget, spool: SpoolDirectory,
    chunkLimit: Int = SortedObjects.defaultChunkLimit
  ) {
    directory = nil
    self.spool = spool
    self.memory = memory
    state = Mutex(
      State(
        objects: SortedObjects(sorted: objects, chunkLimit: chunkLimit),
        memoryUsed: objects.reduce(0) { $0 + $1.metadata.fsize }))
  }

  /// A directory bucket taking writes, with the objects its scan found (sorted, unique keys).
  init(directory: WritableDirectory, objects: [StoredObject], memory: MemoryBudget) {
    self.directory = directory
    self.memory = memory
    spool = nil
    state = Mutex(State(objects: SortedObjects(sorted: objects), memoryUsed: 0))
  }

  /// The objects now, for one request's reads.
  func snapshot() -> StoreSnapshot {
    StoreSnapshot(objects: state.withLock { $0.objects }, directory: directory?.root, store: self)
  }

  /// `object`'s metadata with the digests of `wanted` computed now where its write did not
  /// compute them (remembered by the object's slot, not yet in its record): for checks made
  /// while the bucket's writers are held off.
  func metadata(of object: StoredObject, digests wanted: DigestFields) -> ObjectMetadata {
    var metadata = object.metadata
    object.pending?.fill(&metadata, wanted) { snapshot().body(of: object) }
    return metadata
  }

  /// Keeps the digests `object`'s slot has computed on demand in its metadata and, in a
  /// directory, its record (so that they survive a restart), while its key still holds it. A
  /// record that cannot be written keeps its old fields: the digests are computed again after a
  /// restart.
  func remember(_ object: StoredObject) {
    guard let pending = object.pending else { return }
    writer.withLock { _ in
      guard var stored = self.object(object.key), stored.pending === pending else { return }
      stored.takeDigests()
      if let directory, case .file(let components) = stored.content,
        let modified = directory.modificationTime(of: components)
      {
        try? saveRecord(stored, modified: modified)
      }
      replace(stored, memoryDelta: 0)
    }
  }

  /// The object with `key`, if any.
  func object(_ key: [UInt8]) -> StoredObject? {
    state.withLock { $0.objects.object(key) }
  }

  // MARK: Writes

  /// What a write does about the object its key holds.
  enum Admission {
    /// Store the new content.
    case write
    /// Keep the object as it is (an insert-only upload of the same content), and succeed.
    case keepExisting
  }

  /// Stores `content` (made by `prepare`) under `key`. `admit` sees the object the key now
  /// holds (if any) and throws to refuse the write (insert-only, forbid-overwrite); it runs with
  /// the bucket's writers held off, so nothing changes between its check and the write. In a
  /// directory the file and its folder are flushed to the disk before this returns.
  @discardableResult
  func put(
    key: [UInt8], content: PreparedContent, metadata: ObjectMetadata,
    admit: (StoredObject?) throws(StoreFailure) -> Admission = { _ in .write }
  ) throws(StoreFailure) -> StoredObject {
    try writer.withLock { _ throws(StoreFailure) in
      let existing = object(key)
      if try admit(existing) == .keepExisting, let existing { return existing }
      var stored = StoredObject(key: key, metadata: metadata, content: .bytes([]))
      switch content {
      case .pending(let file):
        guard let directory else { throw .io }
        guard let components = DirectoryHandle.components(ofKey: key) else { throw .keyNotAPath }
        do throws(WritableDirectory.Failure) {
          let modified = try directory.commit(file, to: components)
          stored.content = .file(components)
          try saveRecord(stored, modified: modified)
        } catch {
          throw Self.failure(error)
        }
        replace(stored, memoryDelta: 0)
      case .inPlace(let file, let size):
        if let directory {
          guard let components = DirectoryHandle.components(ofKey: key) else {
            throw .keyNotAPath
          }
          do throws(WritableDirectory.Failure) {
            let modified = try directory.commit(file, size: size, to: components)
            stored.content = .file(components)
            try saveRecord(stored, modified: modified)
          } catch {
            throw Self.failure(error)
          }
          replace(stored, memoryDelta: 0)
        } else {
          let delta = metadata.fsize - (existing?.metadata.fsize ?? 0)
          guard memory.take(delta) else { throw .memoryFull }
          do throws(SpoolDirectory.Failure) {
            try file.seal(size: size)
          } catch {
            memory.give(delta)
            throw .io
          }
          stored.content = .spooled(file)
          replace(stored, memoryDelta: delta)
        }
      case .bytes, .spooled:
        guard directory == nil else { throw .io }
        let delta = metadata.fsize - (existing?.metadata.fsize ?? 0)
        guard memory.take(delta) else { throw .memoryFull }
        if case .spooled(let file) = content {
          stored.content = .spooled(file)
        } else if case .bytes(let bytes) = content {
          stored.content = .bytes(bytes)
        }
        replace(stored, memoryDelta: delta)
      }
      return stored
    }
  }

  /// Changes the metadata of the object at `key` in place.
  func update(key: [UInt8], _ change: (inout StoredObject) throws(StoreFailure) -> Void)
    throws(StoreFailure)
  {
    try writer.withLock { _ throws(StoreFailure) in
      guard var stored = object(key) else { throw .noSuchKey }
      try change(&stored)
      if let directory, case .file(let components) = stored.content {
        do throws(WritableDirectory.Failure) {
          try saveRecord(stored, modified: try Self.modified(components, in: directory))
        } catch {
          throw Self.failure(error)
        }
      }
      replace(stored, memoryDelta: 0)
    }
  }

  /// Removes the object at `key`; returns it.
  @discardableResult
  func delete(key: [UInt8]) throws(StoreFailure) -> StoredObject {
    try writer.withLock { _ throws(StoreFailure) in
      guard let existing = object(key) else { throw .noSuchKey }
      if let directory, case .file(let components) = existing.content {
        do throws(WritableDirectory.Failure) {
          try directory.remove(components)
        } catch {
          throw Self.failure(error)
        }
        directory.removeRecord(named: StoreRecord.fileName(for: key))
      }
      let freed = directory == nil ? existing.metadata.fsize : 0
      memory.give(freed)
      state.withLock { state in
        state.objects.remove(key)
        state.memoryUsed -= freed
      }
      return existing
    }
  }

  // MARK: Helpers

  private func replace(_ stored: StoredObject, memoryDelta: Int64) {
    state.withLock { state in
      state.objects.upsert(stored)
      state.memoryUsed += memoryDelta
    }
  }

  private func saveRecord(_ stored: StoredObject, modified: Int64) throws(WritableDirectory.Failure)
  {
    guard let directory else { return }
    try directory.writeRecord(
      StoreRecord(object: stored, modified: modified).encoded(),
      named: StoreRecord.fileName(for: stored.key))
  }

  private static func modified(_ components: [String], in directory: WritableDirectory)
    throws(WritableDirectory.Failure) -> Int64
  {
    guard let modified = directory.modificationTime(of: components) else { throw .pathConflict }
    return modified
  }

  private static func failure(_ error: WritableDirectory.Failure) -> StoreFailure {
    switch error {
    case .keyNotAPath, .pathConflict: .keyNotAPath
    case .io, .inUse: .io
    }
  }
}

/// A count of bytes held against a limit: what in-memory buckets and unfinished uploads hold
/// (`--memory-limit`), or what request bodies being received hold in memory.
final class MemoryBudget: Sendable {
  private struct Count {
    var used: Int64 = 0
    var peak: Int64 = 0
  }

  let limit: Int64
  private let count = Mutex(Count())

  init(limit: Int64) {
    self.limit = limit
  }

  /// Takes `bytes` (a negative count gives back); `false`, taking nothing, when over the limit.
  func take(_ bytes: Int64) -> Bool {
    count.withLock { count in
      guard bytes <= 0 || count.used + bytes <= limit else { return false }
      count.used = max(0, count.used + bytes)
      count.peak = max(count.peak, count.used)
      return true
    }
  }

  func give(_ bytes: Int64) {
    _ = take(-bytes)
  }

  /// The bytes held now, and the most ever held at once.
  var usage: (used: Int64, peak: Int64) {
    count.withLock { ($0.used, $0.peak) }
  }
}
