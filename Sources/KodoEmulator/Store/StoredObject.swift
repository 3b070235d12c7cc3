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

  /// The digests of `chunks` taken in order as one content: CRC-64, MD5 and the SHA-1 of each
  /// block (or part) fed from the same bytes, with no copy of them.
  static func of(_ chunks: [[UInt8]], boundaries: HashBoundaries = .blocks) -> ContentDigests {
    var crc = CRC64()
    var md5 = RunningHash(.md5)
    var size: Int64 = 0
    var blockDigests = [[UInt8]]()
    var block = RunningHash(.sha1)
    var inBlock = 0
    for chunk in chunks {
      chunk.withUnsafeBytes { bytes in
        crc.update(bytes)
        md5.update(bytes)
        switch boundaries {
        case .parts:
          var part = RunningHash(.sha1)
          part.update(bytes)
          blockDigests.append(part.bytes)
        case .blocks:
          var start = 0
          while start < bytes.count {
            let take = min(QETag.blockSize - inBlock, bytes.count - start)
            block.update(UnsafeRawBufferPointer(rebasing: bytes[start..<start + take]))
            start += take
            inBlock += take
            if inBlock == QETag.blockSize {
              blockDigests.append(block.bytes)
              block = RunningHash(.sha1)
              inBlock = 0
            }
          }
        }
      }
      size += Int64(chunk.count)
    }
    if case .blocks = boundaries, inBlock > 0 || blockDigests.isEmpty {
      blockDigests.append(block.bytes)
    }
    return ContentDigests(
      fsize: size, hash: QETag.hash(blockDigests: blockDigests), md5: md5.text, crc64: crc.value)
  }
}
