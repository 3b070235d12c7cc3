import KodoCore
import NIOCore
import StorageCore

/// A bucket whose objects are given in memory (tests and embedding programs).
struct MemorySource: ObjectSource {
  private struct Entry: Sendable {
    var key: [UInt8]
    var body: [UInt8]
    var metadata: ObjectMetadata
  }

  private let entries: [Entry]

  init(objects: [EmulatorObject]) throws(EmulatorError) {
    var entries = [Entry]()
    entries.reserveCapacity(objects.count)
    for object in objects {
      let metadata = ObjectMetadata(
        fsize: Int64(object.body.count), hash: QETag.hash(of: object.body),
        mimeType: object.mimeType ?? MimeTypes.forKey(object.key), putTime: object.putTime,
        type: object.type, status: object.status, md5: object.md5, endUser: object.endUser,
        meta: object.meta.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
          .map { (name: $0.key, value: $0.value) },
        restoreStatus: object.restoreStatus, lastModify: object.lastModify,
        expiration: object.expiration, transitionToIA: object.transitionToIA,
        transitionToArchiveIR: object.transitionToArchiveIR,
        transitionToArchive: object.transitionToArchive,
        transitionToDeepArchive: object.transitionToDeepArchive)
      entries.append(Entry(key: Array(object.key.utf8), body: object.body, metadata: metadata))
    }
    entries.sort { ByteOrder.compare($0.key, $1.key) < 0 }
    for index in entries.indices.dropFirst() where entries[index].key == entries[index - 1].key {
      throw .duplicateKey(String(decoding: entries[index].key, as: UTF8.self))
    }
    self.entries = entries
  }

  var count: Int { entries.count }

  func key(at index: Int) -> [UInt8] { entries[index].key }

  func metadata(at index: Int) -> ObjectMetadata { entries[index].metadata }

  func body(at index: Int) -> ObjectBody? {
    let body = entries[index].body
    return ObjectBody(length: Int64(body.count)) { offset, count, buffer in
      let start = Int(offset)
      buffer.writeBytes(body[start..<start + count])
    }
  }
}
