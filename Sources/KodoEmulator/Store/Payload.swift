import KodoCore
import NIOCore
import OSSCore
import StorageCore

/// Bytes a write stores or a part holds: in memory (small), a range of a spool file, or a range
/// of an object's body (a copy). Read a chunk at a time, never whole.
enum Payload: Sendable {
  case bytes([UInt8])
  case spooled(SpoolFile, offset: Int64, count: Int64)
  case object(ObjectBody, offset: Int64, count: Int64)

  /// Bytes up to this size stay in memory; larger bodies, parts and objects go to the spool.
  static let inMemorySize = 1 << 20
  /// How much one read of a spooled or object payload takes.
  static let chunkSize = 1 << 20

  /// All of `file`.
  static func file(_ file: SpoolFile) -> Payload {
    .spooled(file, offset: 0, count: file.size)
  }

  /// All of `body`.
  static func whole(_ body: ObjectBody) -> Payload {
    .object(body, offset: 0, count: body.length)
  }

  var count: Int64 {
    switch self {
    case .bytes(let bytes): Int64(bytes.count)
    case .spooled(_, _, let count), .object(_, _, let count): count
    }
  }

  /// `count` bytes from `offset` of this payload.
  func slice(_ offset: Int64, _ count: Int64) -> Payload {
    switch self {
    case .bytes(let bytes):
      .bytes(Array(bytes[Int(offset)..<Int(offset + count)]))
    case .spooled(let file, let start, _):
      .spooled(file, offset: start + offset, count: count)
    case .object(let body, let start, _):
      .object(body, offset: start + offset, count: count)
    }
  }

  /// The whole payload in memory, when it is at most `limit` bytes.
  func bytes(limit: Int = Payload.inMemorySize) -> [UInt8]? {
    if case .bytes(let bytes) = self { return bytes }
    guard count <= Int64(limit) else { return nil }
    var result = [UInt8]()
    result.reserveCapacity(Int(count))
    do throws(StoreFailure) {
      try forEachChunk { result.append(contentsOf: $0) }
    } catch {
      return nil
    }
    return result
  }

  /// Calls `body` with the bytes in order, a chunk (at most `chunkSize`) at a time; a read that
  /// fails or ends early is `.io`.
  func forEachChunk(_ body: (UnsafeRawBufferPointer) throws(StoreFailure) -> Void)
    throws(StoreFailure)
  {
    switch self {
    case .bytes(let bytes):
      let outcome = bytes.withUnsafeBytes { raw in
        Result { () throws(StoreFailure) in try body(raw) }
      }
      try outcome.get()
    case .spooled(let file, let offset, let count):
      let buffer = UnsafeMutableRawBufferPointer.allocate(
        byteCount: Int(min(Int64(Self.chunkSize), max(count, 1))), alignment: 16)
      defer { buffer.deallocate() }
      var done: Int64 = 0
      while done < count {
        let want = Int(min(Int64(buffer.count), count - done))
        let window = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])
        let got: Int
        do throws(SpoolDirectory.Failure) {
          got = try file.read(at: offset + done, into: window)
        } catch {
          throw .io
        }
        guard got == want else { throw .io }
        try body(UnsafeRawBufferPointer(window))
        done += Int64(got)
      }
    case .object(let object, let offset, let count):
      var buffer = ByteBuffer()
      var done: Int64 = 0
      while done < count {
        let want = Int(min(Int64(Self.chunkSize), count - done))
        buffer.clear()
        guard (try? object.read(offset + done, want, &buffer)) != nil,
          buffer.readableBytes == want
        else { throw .io }
        let outcome = buffer.withUnsafeReadableBytes { raw in
          Result { () throws(StoreFailure) in try body(raw) }
        }
        try outcome.get()
        done += Int64(want)
      }
    }
  }
}

/// The digests of one part (or one content), each fed from the same bytes in one pass.
struct PartDigests: Sendable {
  var size: Int64 = 0
  /// MD5 (empty when not asked for).
  var md5: [UInt8] = []
  /// `nil` when not asked for.
  var crc64: UInt64?
  /// The SHA-1 of each 4 MiB block, counted from the part's start (the qetag's blocks).
  var blocks: [[UInt8]] = []
  /// The SHA-1 of the whole part, when asked for (empty otherwise).
  var sha1: [UInt8] = []

  /// The part's qetag.
  var qetag: String { QETag.hash(blockDigests: blocks) }
}

/// Feeds bytes, in order, to the digests a write needs.
struct DigestPass: Sendable {
  struct Options: OptionSet, Sendable {
    let rawValue: Int
    static let md5 = Options(rawValue: 1)
    static let crc64 = Options(rawValue: 2)
    /// The SHA-1 of each 4 MiB block.
    static let blocks = Options(rawValue: 4)
    /// The SHA-1 of everything (with `.blocks`: for content of one block, it is that block's
    /// SHA-1, and is not computed twice).
    static let wholeSHA1 = Options(rawValue: 8)

    static let all: Options = [.md5, .crc64, .blocks]
    /// What a Kodo upload answers with and keeps: the MD5 and the qetag's blocks (the CRC-64 is
    /// computed when an OSS read first asks for it, `PendingDigests`).
    static let kodo: Options = [.md5, .blocks]
    /// What an OSS upload answers with: the MD5 and the CRC-64 (the qetag is computed when a
    /// Kodo read first asks for it).
    static let oss: Options = [.md5, .crc64]
  }

  let options: Options
  private var size: Int64 = 0
  private var md5 = RunningHash(.md5)
  private var crc = CRC64()
  private var blocks = [[UInt8]]()
  private var block = RunningHash(.sha1)
  private var inBlock = 0
  private var whole = RunningHash(.sha1)

  /// A pass computing `options`; `expectedSize`, when known, spares the whole content's SHA-1
  /// for content of one block (it is the block's).
  init(_ options: Options = .all, expectedSize: Int64? = nil) {
    var options = options
    if options.contains(.wholeSHA1), options.contains(.blocks),
      let expectedSize, expectedSize <= Int64(QETag.blockSize)
    {
      options.remove(.wholeSHA1)
      wholeIsFirstBlock = true
    }
    self.options = options
  }

  /// The whole content's SHA-1 is asked for and is its one block's.
  private var wholeIsFirstBlock = false

  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    size += Int64(bytes.count)
    if options.contains(.md5) { md5.update(bytes) }
    if options.contains(.crc64) { crc.update(bytes) }
    if options.contains(.wholeSHA1) { whole.update(bytes) }
    guard options.contains(.blocks) else { return }
    var start = 0
    while start < bytes.count {
      let take = min(QETag.blockSize - inBlock, bytes.count - start)
      block.update(UnsafeRawBufferPointer(rebasing: bytes[start..<start + take]))
      start += take
      inBlock += take
      if inBlock == QETag.blockSize {
        blocks.append(block.bytes)
        block = RunningHash(.sha1)
        inBlock = 0
      }
    }
  }

  /// The digests of the bytes so far (the pass can go on).
  var digests: PartDigests {
    var result = PartDigests(size: size)
    if options.contains(.md5) { result.md5 = md5.bytes }
    if options.contains(.crc64) { result.crc64 = crc.value }
    if options.contains(.blocks) {
      result.blocks = blocks
      if inBlock > 0 || blocks.isEmpty { result.blocks.append(block.bytes) }
    }
    if options.contains(.wholeSHA1) {
      result.sha1 = whole.bytes
    } else if wholeIsFirstBlock {
      result.sha1 = result.blocks.first ?? []
    }
    return result
  }

  /// The digests of `payload`, read once.
  static func of(_ payload: Payload, _ options: Options = .all) throws(StoreFailure)
    -> PartDigests
  {
    var pass = DigestPass(options, expectedSize: payload.count)
    try payload.forEachChunk { pass.update($0) }
    return pass.digests
  }
}

extension Payload {
  /// This payload as a part keeps it, with its digests from one read: bytes and spool files as
  /// they are (a request's spool file becomes the part's), a range of an object (a part copied
  /// from one) copied into memory or a new spool file, so that the part outlives the object.
  func held(digests options: DigestPass.Options, spool: SpoolDirectory) throws(StoreFailure)
    -> (data: Payload, digests: PartDigests)
  {
    guard case .object = self else { return (self, try DigestPass.of(self, options)) }
    var pass = DigestPass(options)
    guard count > Int64(Payload.inMemorySize) else {
      var bytes = [UInt8]()
      bytes.reserveCapacity(Int(count))
      try forEachChunk { chunk in
        pass.update(chunk)
        bytes.append(contentsOf: chunk)
      }
      return (.bytes(bytes), pass.digests)
    }
    let file: SpoolFile
    do throws(SpoolDirectory.Failure) {
      file = try spool.newFile()
    } catch {
      throw .io
    }
    try forEachChunk { (chunk) throws(StoreFailure) in
      pass.update(chunk)
      do throws(SpoolDirectory.Failure) {
        try file.append(chunk)
      } catch {
        throw .io
      }
    }
    return (.file(file), pass.digests)
  }
}
