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
      entries.append(
        Entry(key: Array(object.key.utf8), body: object.body, metadata: object.metadata))
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
