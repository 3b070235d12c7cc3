import KodoCore
import NIOCore
import OSSCore
import StorageCore

/// One object of a writable bucket: its key, its metadata, and where its bytes are.
struct StoredObject: Sendable {
  /// Where an object's bytes are.
  enum Content: Sendable {
    /// In memory (an in-memory bucket).
    case bytes([UInt8])
    /// A file below the bucket's directory, one name a folder.
    case file([String])
  }

  var key: [UInt8]
  /// Every field, with the digests of the content (`hash`, `crc64`, `ossETag`).
  var metadata: ObjectMetadata
  var content: Content
}

/// A writable bucket's objects at one moment, for the read paths (listing, stat, download),
/// which address objects by index: one snapshot serves one request, whatever is written
/// meanwhile.
struct StoreSnapshot: ObjectSource {
  let objects: [StoredObject]
  let directory: DirectoryHandle?

  var count: Int { objects.count }

  func key(at index: Int) -> [UInt8] { objects[index].key }

  func metadata(at index: Int) -> ObjectMetadata { objects[index].metadata }

  var readsFiles: Bool { directory != nil }

  func body(at index: Int) -> ObjectBody? {
    let object = objects[index]
    switch object.content {
    case .bytes(let body):
      return ObjectBody(length: Int64(body.count)) { offset, count, buffer in
        let start = Int(offset)
        buffer.writeBytes(body[start..<start + count])
      }
    case .file(let components):
      guard let directory,
        let file = try? ServedFile(in: directory, at: components),
        file.size == object.metadata.fsize
      else { return nil }
      let length = object.metadata.fsize
      return ObjectBody(length: length, readsFiles: true) { offset, count, buffer in
        do {
          let file = try ServedFile(in: directory, at: components)
          try file.read(at: offset, count: count, into: &buffer)
        } catch {
          throw EmulatorError.unreadableFile(components.joined(separator: "/"))
        }
      }
    }
  }
}

/// The digests a write computes over the bytes it stores, in one pass.
struct ContentDigests {
  /// How the Kodo hash is cut: the qetag's 4 MiB blocks, or (a resumable v2 upload with parts of
  /// another size) the parts' own boundaries, combined as the qetag combines blocks.
  enum HashBoundaries {
    case blocks
    case parts
  }

  var fsize: Int64
  var hash: String
  var md5: String
  var crc64: UInt64

  /// The digests of `chunks` taken in order as one content.
  static func of(_ chunks: [[UInt8]], boundaries: HashBoundaries = .blocks) -> ContentDigests {
    var crc = CRC64()
    var size: Int64 = 0
    var blockDigests = [[UInt8]]()
    switch boundaries {
    case .parts:
      for chunk in chunks {
        blockDigests.append(Digest.sha1(chunk))
      }
    case .blocks:
      var block = [UInt8]()
      block.reserveCapacity(min(QETag.blockSize, chunks.reduce(0) { $0 + $1.count }))
      for chunk in chunks {
        var start = 0
        while start < chunk.count {
          let take = min(QETag.blockSize - block.count, chunk.count - start)
          block.append(contentsOf: chunk[start..<start + take])
          start += take
          if block.count == QETag.blockSize {
            blockDigests.append(Digest.sha1(block))
            block.removeAll(keepingCapacity: true)
          }
        }
      }
      if !block.isEmpty || blockDigests.isEmpty { blockDigests.append(Digest.sha1(block)) }
    }
    var md5 = RunningHash(.md5)
    for chunk in chunks {
      chunk.withUnsafeBytes {
        crc.update($0)
        md5.update($0)
      }
      size += Int64(chunk.count)
    }
    return ContentDigests(
      fsize: size, hash: QETag.hash(blockDigests: blockDigests), md5: md5.text, crc64: crc.value)
  }
}
