import KodoCore
import NIOCore
import OSSCore
import StorageCore

/// One object of a writable bucket: its key, its metadata, and where its bytes are.
struct StoredObject: Sendable {
  /// Where an object's bytes are.
  enum Content: Sendable {
    /// In memory (a small object of an in-memory bucket).
    case bytes([UInt8])
    /// A spool file (a large object of an in-memory bucket), removed when the object goes.
    case spooled(SpoolFile)
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
  let objects: SortedObjects
  let directory: DirectoryHandle?

  var count: Int { objects.count }

  func key(at index: Int) -> [UInt8] { objects[index].key }

  func lowerBound(_ target: [UInt8], strictly: Bool) -> Int {
    objects.lowerBound(target, strictly: strictly)
  }

  func metadata(at index: Int) -> ObjectMetadata { objects[index].metadata }

  /// Whether reading may block on files: a directory, or an object in the spool. Reads of a
  /// body say so for themselves (`ObjectBody.readsFiles`).
  var readsFiles: Bool { directory != nil }

  func body(at index: Int) -> ObjectBody? {
    let object = objects[index]
    switch object.content {
    case .bytes(let body):
      return ObjectBody(length: Int64(body.count)) { offset, count, buffer in
        let start = Int(offset)
        buffer.writeBytes(body[start..<start + count])
      }
    case .spooled(let file):
      return ObjectBody(length: file.size, readsFiles: true) { offset, count, buffer in
        let got = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
          try file.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
        }
        guard got == count else { throw EmulatorError.unreadableFile(file.name) }
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

/// The digests of a stored content: its size, Kodo hash, MD5 (when known) and CRC-64.
struct ContentDigests {
  /// How the Kodo hash is cut: the qetag's 4 MiB blocks, or (a resumable v2 upload with parts of
  /// another size) the parts' own boundaries, combined as the qetag combines blocks.
  enum HashBoundaries {
    case blocks
    case parts
  }

  var fsize: Int64
  var hash: String
  /// Lower-case hex; `nil` for a content combined from parts (its MD5 is never read again).
  var md5: String?
  var crc64: UInt64

  /// The digests of one content read in one pass.
  init(_ digests: PartDigests) {
    fsize = digests.size
    hash = digests.qetag
    md5 = digests.md5.isEmpty ? nil : Hex.encode(digests.md5)
    crc64 = digests.crc64
  }

  /// The digests of `parts` joined in order, from each part's own: the CRC-64s combined, the
  /// hash from the parts' SHA-1s (`.parts`) or their 4 MiB blocks (`.blocks`). `nil` for
  /// `.blocks` when a part but the last is not a whole number of blocks (its blocks do not
  /// line up with the content's): the caller hashes the blocks as it joins the parts.
  static func combining(_ parts: [PartDigests], boundaries: HashBoundaries) -> ContentDigests? {
    let size = parts.reduce(0) { $0 + $1.size }
    let crc = CRC64.combine(parts.map { (crc: $0.crc64, size: $0.size) })
    let hash: String
    switch boundaries {
    case .parts:
      hash = QETag.hash(blockDigests: parts.map(\.sha1))
    case .blocks:
      guard parts.dropLast().allSatisfy({ $0.size % Int64(QETag.blockSize) == 0 }) else {
        return nil
      }
      var blocks = [[UInt8]]()
      for part in parts where part.size > 0 || parts.count == 1 { blocks += part.blocks }
      hash = QETag.hash(blockDigests: blocks)
    }
    var combined = ContentDigests(PartDigests(size: size, crc64: crc))
    combined.hash = hash
    combined.md5 = nil
    return combined
  }

  /// The digests of `parts` joined in order: combined from their own, and when their blocks do
  /// not line up, the qetag's blocks read once more across the parts.
  static func joining(_ parts: [(data: Payload, digests: PartDigests)]) throws(StoreFailure)
    -> ContentDigests
  {
    if let combined = combining(parts.map(\.digests), boundaries: .blocks) { return combined }
    var pass = DigestPass(.blocks)
    for part in parts { try part.data.forEachChunk { pass.update($0) } }
    var digests = ContentDigests(pass.digests)
    digests.crc64 = CRC64.combine(parts.map { (crc: $0.digests.crc64, size: $0.digests.size) })
    return digests
  }
}
