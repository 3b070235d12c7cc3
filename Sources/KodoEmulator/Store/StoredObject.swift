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
  /// Every field, with the digests of the content (`ossETag`, and `hash` and `crc64` unless
  /// `pending` computes them on demand).
  var metadata: ObjectMetadata
  var content: Content
  /// Where the digests the write did not compute (an empty `hash`, a `nil` `crc64`) are
  /// computed and remembered; `nil` when the metadata has them all.
  private(set) var pending: PendingDigests?

  init(key: [UInt8], metadata: ObjectMetadata, content: Content) {
    self.key = key
    self.metadata = metadata
    self.content = content
    pending = DigestFields.missing(in: metadata).isEmpty ? nil : PendingDigests()
  }

  /// Fills the metadata with what the pending slot has computed, and drops the slot once
  /// nothing is missing.
  mutating func takeDigests() {
    pending?.apply(to: &metadata)
    if DigestFields.missing(in: metadata).isEmpty { pending = nil }
  }
}

/// A writable bucket's objects at one moment, for the read paths (listing, stat, download),
/// which address objects by index: one snapshot serves one request, whatever is written
/// meanwhile.
struct StoreSnapshot: ObjectSource {
  let objects: SortedObjects
  let directory: DirectoryHandle?
  /// The store the snapshot was taken of, told of digests computed on demand.
  let store: ObjectStore?

  var count: Int { objects.count }

  func key(at index: Int) -> [UInt8] { objects[index].key }

  func lowerBound(_ target: [UInt8], strictly: Bool) -> Int {
    objects.lowerBound(target, strictly: strictly)
  }

  /// Every field, the Kodo `hash` computed now when the write did not.
  func metadata(at index: Int) -> ObjectMetadata { metadata(at: index, digests: .hash) }

  /// The object's metadata with the digests of `wanted` (those the write did not compute are
  /// computed now, once, and remembered); the others as the write left them. Without an
  /// `ossETag`, the `hash` it derives from is always wanted.
  func metadata(at index: Int, digests wanted: DigestFields) -> ObjectMetadata {
    let object = objects[index]
    var metadata = object.metadata
    guard let pending = object.pending else { return metadata }
    let wanted = metadata.ossETag == nil ? wanted.union(.hash) : wanted
    let computed = pending.fill(&metadata, wanted) { body(at: index) }
    if !computed.isEmpty { store?.remember(object) }
    return metadata
  }

  /// Whether reading may block on files: a directory, or (an in-memory bucket) an object in the
  /// spool, whose digests may be computed on demand. Reads of a body say so for themselves
  /// (`ObjectBody.readsFiles`).
  var readsFiles: Bool { store != nil || directory != nil }

  func body(at index: Int) -> ObjectBody? {
    body(of: objects[index])
  }

  /// The body of `object`, one of this bucket's.
  func body(of object: StoredObject) -> ObjectBody? {
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
  /// Empty when not computed (the store computes it when first asked for).
  var hash: String
  /// Lower-case hex; `nil` for a content combined from parts (its MD5 is never read again).
  var md5: String?
  /// `nil` when not computed (the store computes it when first asked for).
  var crc64: UInt64?

  /// The digests of one content read in one pass.
  init(_ digests: PartDigests) {
    fsize = digests.size
    hash = digests.blocks.isEmpty ? "" : digests.qetag
    md5 = digests.md5.isEmpty ? nil : Hex.encode(digests.md5)
    crc64 = digests.crc64
  }

  /// The digests of `parts` joined in order, from each part's own: the CRC-64s combined (when
  /// every part has one; else it is left to compute on demand), the hash from the parts' SHA-1s
  /// (`.parts`) or their 4 MiB blocks (`.blocks`), left empty (to compute on demand) when the
  /// parts do not have them. `nil` for `.blocks` when a part but the last is not a whole number
  /// of blocks (its blocks do not line up with the content's): the caller hashes the blocks as it
  /// joins the parts.
  static func combining(_ parts: [PartDigests], boundaries: HashBoundaries) -> ContentDigests? {
    let size = parts.reduce(0) { $0 + $1.size }
    var hash = ""
    switch boundaries {
    case .parts:
      if parts.allSatisfy({ !$0.sha1.isEmpty }) {
        hash = QETag.hash(blockDigests: parts.map(\.sha1))
      }
    case .blocks where parts.allSatisfy({ !$0.blocks.isEmpty }):
      guard parts.dropLast().allSatisfy({ $0.size % Int64(QETag.blockSize) == 0 }) else {
        return nil
      }
      var blocks = [[UInt8]]()
      for part in parts where part.size > 0 || parts.count == 1 { blocks += part.blocks }
      hash = QETag.hash(blockDigests: blocks)
    case .blocks:
      break
    }
    var combined = ContentDigests(PartDigests(size: size, crc64: combinedCRC64(parts)))
    combined.hash = hash
    combined.md5 = nil
    return combined
  }

  /// The CRC-64 of `parts` joined, from theirs; `nil` when a part has none.
  static func combinedCRC64(_ parts: [PartDigests]) -> UInt64? {
    var items = [(crc: UInt64, size: Int64)]()
    items.reserveCapacity(parts.count)
    for part in parts {
      guard let crc = part.crc64 else { return nil }
      items.append((crc, part.size))
    }
    return CRC64.combine(items)
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
    digests.crc64 = combinedCRC64(parts.map(\.digests))
    return digests
  }
}
