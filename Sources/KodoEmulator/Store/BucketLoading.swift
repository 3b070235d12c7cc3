import KodoCore
import OSSCore
import StorageCore

/// Builds the writable stores at start-up.
enum BucketLoading {
  /// An in-memory bucket holding `objects` (none for `--bucket NAME`).
  static func memoryStore(
    _ objects: [EmulatorObject], memory: MemoryBudget, spool: SpoolDirectory
  ) throws(EmulatorError) -> ObjectStore {
    let source = try MemorySource(objects: objects)
    var stored = [StoredObject]()
    stored.reserveCapacity(objects.count)
    let byKey = Dictionary(objects.map { (Array($0.key.utf8), $0) }) { first, _ in first }
    for index in 0..<source.count {
      let key = source.key(at: index)
      guard let object = byKey[key] else { continue }
      var metadata = object.metadata
      metadata.crc64 = CRC64.checksum(object.body)
      stored.append(StoredObject(key: key, metadata: metadata, content: .bytes(object.body)))
    }
    let size = stored.reduce(0) { $0 + $1.metadata.fsize }
    guard memory.take(size) else {
      throw .invalidConfiguration("the in-memory objects are larger than the memory limit")
    }
    return ObjectStore(objects: stored, memory: memory, spool: spool)
  }

  /// A `--writable` directory bucket: the scan's files, with the metadata recorded in
  /// `DIR/.kodo-emulator/objects/` for those whose size and modification time still match, and
  /// the digests of the others read once now.
  static func writableDirectory(path: String, memory: MemoryBudget) throws(EmulatorError)
    -> (store: ObjectStore, modificationSeconds: Int64)
  {
    let source = try DirectorySource(root: path)
    let directory: WritableDirectory
    do {
      directory = try WritableDirectory(root: source.rootHandle)
    } catch .inUse {
      throw .directoryInUse(path)
    } catch {
      throw .invalidConfiguration(
        "cannot write the emulator's metadata into \(path)/\(WritableDirectory.stateFolder)")
    }
    var stored = [StoredObject]()
    stored.reserveCapacity(source.count)
    for index in 0..<source.count {
      let key = source.key(at: index)
      let scanned = source.scanned(at: index)
      if let bytes = StoreRecord.read(
        named: StoreRecord.fileName(for: key), in: directory.records),
        let record = StoreRecord.decode(bytes, components: scanned.components),
        record.object.key == key, record.object.metadata.fsize == scanned.size,
        record.modified == scanned.modified
      {
        stored.append(record.object)
        continue
      }
      // A file the emulator did not write (or changed since): its digests, read once.
      guard let digests = source.digests(at: index) else { continue }
      var metadata = source.metadata(at: index)
      metadata.hash = digests.hash
      metadata.crc64 = digests.crc64
      stored.append(
        StoredObject(key: key, metadata: metadata, content: .file(scanned.components)))
    }
    return (
      ObjectStore(directory: directory, objects: stored, memory: memory),
      source.modificationSeconds
    )
  }
}
