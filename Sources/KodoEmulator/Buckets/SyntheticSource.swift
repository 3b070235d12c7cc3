import Foundation
import KodoCore
import NIOCore
import StorageCore
import Synchronization

/// A bucket of generated objects for scale tests, computed from the seed and the object's index.
///
/// Keys form a two-level tree, `dir-DDD/sub-SS/file-FFFF.EXT`, with zero-padded numbers so that
/// key order is index order: the i-th key, a lookup and a list page are arithmetic plus a binary
/// search. One key in 50 of each folder needs URL encoding (`hostileNames`). The only memory that grows with the object count is the digest memo (20 bytes per
/// object once it has been listed). From 10,000 objects on there are 64 top-level folders of 16
/// subfolders each. A flat source puts every object in one folder, `dir-000/sub-00/`, for
/// scale tests of one huge folder level (the browser's).
///
/// Every other property comes from a hash of (seed, index): extension and content type, size
/// (mostly under 2 KiB, some up to 64 KiB, a few of 4–16 MiB), put time, storage class, status,
/// and the optional `md5`, `endUser`, `x-qn-meta`, `restoreStatus`, `lastModify` and lifecycle
/// dates. Bodies are generated on demand from (seed, index); `hash` is their real qetag and `md5`
/// their real MD5. Objects of 4 MiB and more are whole blocks drawn from a pool of four
/// seed-generated 4 MiB blocks plus a short per-object tail, so their qetag costs only the tail.
final class SyntheticSource: ObjectSource {
  private struct FileType {
    var ext: [UInt8]
    var mimeType: String
    var isText: Bool
    var weight: UInt64
  }

  private static let fileTypes: [FileType] = [
    FileType(ext: Array(".jpg".utf8), mimeType: "image/jpeg", isText: false, weight: 28),
    FileType(ext: Array(".png".utf8), mimeType: "image/png", isText: false, weight: 10),
    FileType(ext: Array(".txt".utf8), mimeType: "text/plain", isText: true, weight: 14),
    FileType(ext: Array(".log".utf8), mimeType: "text/plain", isText: true, weight: 12),
    FileType(ext: Array(".csv".utf8), mimeType: "text/csv", isText: true, weight: 6),
    FileType(ext: Array(".mp4".utf8), mimeType: "video/mp4", isText: false, weight: 5),
    FileType(ext: Array(".pdf".utf8), mimeType: "application/pdf", isText: false, weight: 8),
    FileType(ext: Array(".gz".utf8), mimeType: "application/gzip", isText: false, weight: 7),
    FileType(
      ext: Array(".bin".utf8), mimeType: "application/octet-stream", isText: false, weight: 10),
  ]

  /// The file type of each `pick` (0..<100) of `profile`: the type whose share of the weights
  /// the pick falls in (type 0 past them), as a table, not a walk over `fileTypes`.
  private static let typeByPick: [Int] = {
    var table: [Int] = []
    for (index, type) in fileTypes.enumerated() {
      table += repeatElement(index, count: Int(type.weight))
    }
    return Array((table + repeatElement(0, count: 100)).prefix(100))
  }()

  private static let poolSize = 4
  private static let textAlphabet: [UInt8] = Array(
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,.".utf8)

  /// The number of objects.
  let count: Int
  private let seed: UInt64
  private let dirs: Int
  private let subs: Int
  private let files: Int
  private let dirWidth: Int
  private let subWidth: Int
  private let fileWidth: Int
  private let poolDigests: Locked<[[UInt8]?]>
  private let digestMemo: DigestMemo?

  init(count: Int, seed: UInt64, flat: Bool = false) {
    self.count = count
    self.seed = seed
    if flat {
      dirs = 1
      subs = 1
    } else if count >= 10_000 {
      dirs = 64
      subs = 16
    } else {
      dirs = max(1, (count + 159) / 160)
      subs = 4
    }
    files = max(1, (count + dirs * subs - 1) / (dirs * subs))
    dirWidth = max(3, String(dirs - 1).count)
    subWidth = max(2, String(subs - 1).count)
    fileWidth = max(4, String(files - 1).count)
    poolDigests = Locked([[UInt8]?](repeating: nil, count: Self.poolSize))
    digestMemo = count <= DigestMemo.maximumCount ? DigestMemo(count: count) : nil
  }

  // MARK: Keys

  func key(at index: Int) -> [UInt8] {
    var key = [UInt8]()
    key.reserveCapacity(32)
    let dir = index / (subs * files)
    let sub = index / files % subs
    let file = index % files
    key.append(contentsOf: [0x64, 0x69, 0x72, 0x2D])  // "dir-"
    DecimalText.append(Int64(dir), minimumDigits: dirWidth, to: &key)
    key.append(contentsOf: [0x2F, 0x73, 0x75, 0x62, 0x2D])  // "/sub-"
    DecimalText.append(Int64(sub), minimumDigits: subWidth, to: &key)
    key.append(contentsOf: [0x2F, 0x66, 0x69, 0x6C, 0x65, 0x2D])  // "/file-"
    DecimalText.append(Int64(file), minimumDigits: fileWidth, to: &key)
    let ext = Self.fileTypes[typeIndex(at: index)].ext
    guard file % Self.hostileEvery == Self.hostileAt else {
      key.append(contentsOf: ext)
      return key
    }
    // Text after the fixed-width number cannot change the order: keys differ before it.
    let hostile = Self.hostileNames[
      (dir * subs + sub + file / Self.hostileEvery) % Self.hostileNames.count]
    if hostile.trailing {
      key.append(contentsOf: ext)
      key.append(contentsOf: hostile.bytes)
    } else {
      key.append(contentsOf: hostile.bytes)
      key.append(contentsOf: ext)
    }
    return key
  }

  /// One object in every `hostileEvery` of a folder (the one numbered `hostileAt` modulo it)
  /// has a name that needs URL encoding: after its number comes one of `hostileNames`, in turn.
  /// None holds a `/`, so the tree keeps its shape and a flat bucket stays flat.
  static let hostileEvery = 50
  static let hostileAt = 7
  /// A space, `+`, `%` (also before hex digits, which a lenient decoder would take for an
  /// escape), `~`, CJK, an emoji, XML's `&`, `<` and `>`, and a trailing space (after the
  /// extension, at the very end of the key).
  static let hostileNames: [(bytes: [UInt8], trailing: Bool)] = [
    (Array(" with space".utf8), false),
    (Array("+plus+".utf8), false),
    (Array(" 100%41%".utf8), false),
    (Array("~tilde".utf8), false),
    (Array("-照片".utf8), false),
    (Array("-😀".utf8), false),
    (Array(" a&b<c>".utf8), false),
    (Array(" ".utf8), true),
  ]

  // MARK: Per-object profile

  private struct Profile {
    var word: UInt64
    var typeIndex: Int
    var size: Int64
    /// Whole pool blocks at the start of the body (large objects only).
    var poolBlocks: Int
    /// The first pool block used.
    var poolStart: Int
  }

  private func words(_ index: Int) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
    let base = Mixing.mix(seed, UInt64(index))
    return (
      base, Mixing.splitMix(base ^ 1), Mixing.splitMix(base ^ 2), Mixing.splitMix(base ^ 3),
      Mixing.splitMix(base ^ 4), Mixing.splitMix(base ^ 5)
    )
  }

  /// The object's file type (`profile(at:).typeIndex`), without the rest of the profile.
  private func typeIndex(at index: Int) -> Int {
    Self.typeByPick[Int(Mixing.mix(seed, UInt64(index)) % 100)]
  }

  private func profile(at index: Int) -> Profile {
    let base = Mixing.mix(seed, UInt64(index))
    let sizeWord = Mixing.splitMix(base ^ 1)
    let typeIndex = Self.typeByPick[Int(base % 100)]
    let bucket = sizeWord % 10_000
    var size: Int64
    var poolBlocks = 0
    if bucket < 20 {  // 0.2%: 4–16 MiB, whole pool blocks plus a tail under 64 KiB
      poolBlocks = 1 + Int((sizeWord >> 16) % 3)
      size = Int64(poolBlocks * QETag.blockSize) + Int64((sizeWord >> 24) % 65_536)
    } else if bucket < 120 {  // 1%: empty
      size = 0
    } else if bucket < 220 {  // 1%: 8–64 KiB
      size = 8_192 + Int64((sizeWord >> 16) % 57_344)
    } else {  // the rest: 16 bytes to 2 KiB
      size = 16 + Int64((sizeWord >> 16) % 2_032)
    }
    return Profile(
      word: base, typeIndex: typeIndex, size: size, poolBlocks: poolBlocks,
      poolStart: Int((sizeWord >> 40) % UInt64(Self.poolSize)))
  }

  // MARK: Metadata

  func metadata(at index: Int) -> ObjectMetadata {
    let profile = profile(at: index)
    return metadata(at: index, profile: profile, hash: hash(profile, index: index))
  }

  /// The metadata an OSS listing shows, and no more: size, put time, storage class, restore
  /// state and `md5`, with an empty `hash` and `mimeType`; in `qetag` the bytes the qetag
  /// encodes (a kind byte and a SHA-1): the ETag is derived from those bytes, so the qetag's
  /// text is neither built nor read back. Nothing a listing never shows is built (content type,
  /// status, user fields, lifecycle dates).
  /// `md5(size)` says whether the `md5` is wanted for an object of that size (an OSS listing
  /// shows it only in a "Normal" object's ETag): the MD5 of its body is computed only then.
  func listedMetadata(
    at index: Int, qetag: inout [UInt8], md5 wanted: (_ size: Int64) -> Bool
  ) -> ObjectMetadata {
    let profile = profile(at: index)
    qetag.removeAll(keepingCapacity: true)
    appendQETagBytes(profile, index: index, to: &qetag)
    let base = profile.word
    let timeWord = Mixing.splitMix(base ^ 2)
    var metadata = ObjectMetadata(
      fsize: profile.size, hash: "", mimeType: "", putTime: Self.putTime(timeWord).time)
    setClassAndMD5(
      &metadata, profile, classWord: Mixing.splitMix(base ^ 3),
      extraWord: Mixing.splitMix(base ^ 4), md5: wanted(profile.size))
    return metadata
  }

  private func metadata(at index: Int, profile: Profile, hash: String) -> ObjectMetadata {
    let (_, _, timeWord, classWord, extraWord, lifecycleWord) = words(index)
    let (putSeconds, putTime) = Self.putTime(timeWord)

    var metadata = ObjectMetadata(
      fsize: profile.size, hash: hash, mimeType: Self.fileTypes[profile.typeIndex].mimeType,
      putTime: putTime)
    setClassAndMD5(&metadata, profile, classWord: classWord, extraWord: extraWord)
    if (classWord >> 16) % 200 == 0 { metadata.status = 1 }
    if (extraWord >> 8) % 25 == 0 {
      metadata.endUser = "user-" + String((extraWord >> 16) % 1_000)
    }
    if (extraWord >> 24) % 40 == 0 {
      metadata.meta = [
        MetaMember(name: "author", value: "user-" + String((extraWord >> 32) % 100)),
        MetaMember(name: "origin", value: "synthetic"),
      ]
      if (extraWord >> 40) % 4 == 0 {
        metadata.meta.append(
          MetaMember(name: "camera", value: "相机-" + String((extraWord >> 48) % 10)))
      }
    }
    if lifecycleWord % 5 == 0 {
      metadata.lastModify = putTime + Int64((lifecycleWord >> 8) % 2_592_000) * 10_000_000
    }
    let day: Int64 = 86_400
    let putDay = putSeconds / day * day
    if (lifecycleWord >> 16) % 20 == 0 {
      metadata.expiration = putDay + 365 * day
    }
    if metadata.type == 0 {
      switch (lifecycleWord >> 24) % 40 {
      case 0: metadata.transitionToIA = putDay + 30 * day
      case 1: metadata.transitionToArchiveIR = putDay + 60 * day
      case 2: metadata.transitionToArchive = putDay + 90 * day
      case 3: metadata.transitionToDeepArchive = putDay + 180 * day
      default: break
      }
    }
    return metadata
  }

  /// Put times spread over 2021–2024, with all seven sub-second digits: Unix seconds and
  /// 100 ns units.
  private static func putTime(_ timeWord: UInt64) -> (seconds: Int64, time: Int64) {
    let seconds = 1_609_459_200 + Int64(timeWord % 126_230_400)
    return (seconds, seconds * 10_000_000 + Int64((timeWord >> 32) % 10_000_000))
  }

  /// The storage class, the restore state of archived objects, and the MD5 of one small object
  /// in ten.
  private func setClassAndMD5(
    _ metadata: inout ObjectMetadata, _ profile: Profile, classWord: UInt64, extraWord: UInt64,
    md5: Bool = true
  ) {
    metadata.type =
      switch classWord % 1_000 {
      case 0..<800: 0
      case 800..<880: 1
      case 880..<930: 2
      case 930..<960: 3
      case 960..<990: 4
      default: 5
      }
    if metadata.type == 2 || metadata.type == 3 {
      switch (classWord >> 32) % 4 {
      case 0: metadata.restoreStatus = 1
      case 1: metadata.restoreStatus = 2
      default: break
      }
    }
    if md5 && extraWord % 10 == 0 && profile.size <= 65_536 {
      metadata.md5 = MD5.hex(bodyBytes(profile))
    }
  }

  private func hash(_ profile: Profile, index: Int) -> String {
    var bytes = [UInt8]()
    bytes.reserveCapacity(21)
    appendQETagBytes(profile, index: index, to: &bytes)
    return URLSafeBase64.encode(bytes)
  }

  /// Appends what the qetag encodes, as `QETag.hash(blockDigests:)` builds it: 0x16 and the one
  /// block's SHA-1, or 0x96 and the SHA-1 of the blocks' SHA-1s (into the caller's buffer: an
  /// OSS listing reuses one for every item).
  private func appendQETagBytes(_ profile: Profile, index: Int, to bytes: inout [UInt8]) {
    if profile.poolBlocks == 0 {
      // One block: the tag is its SHA-1, remembered after the first listing (hashing every
      // generated body was most of the emulator's CPU per page).
      bytes.append(0x16)
      if digestMemo?.appendDigest(at: index, to: &bytes) == true { return }
      let digest = bodyBytes(profile).withUnsafeBytes { Digest.sha1($0) }
      digestMemo?.remember(digest, at: index)
      bytes += digest
      return
    }
    var digests = [[UInt8]]()
    for block in 0..<profile.poolBlocks {
      digests.append(poolDigest((profile.poolStart + block) % Self.poolSize))
    }
    let tailLength = Int(profile.size) - profile.poolBlocks * QETag.blockSize
    if tailLength > 0 {
      var tail = [UInt8](repeating: 0, count: tailLength)
      tail.withUnsafeMutableBytes { fill($0, word: profile.word, offset: 0, isText: false) }
      digests.append(Digest.sha1(tail))
    }
    if digests.count == 1 {
      bytes += [0x16] + digests[0]
    } else {
      bytes += [0x96] + Digest.sha1(Array(digests.joined()))
    }
  }

  private func poolDigest(_ block: Int) -> [UInt8] {
    if let cached = poolDigests.withLock({ $0[block] }) { return cached }
    var bytes = [UInt8](repeating: 0, count: QETag.blockSize)
    bytes.withUnsafeMutableBytes {
      fill($0, word: poolWord(block), offset: 0, isText: false)
    }
    let digest = Digest.sha1(bytes)
    poolDigests.withLock { $0[block] = digest }
    return digest
  }

  private func poolWord(_ block: Int) -> UInt64 {
    Mixing.mix(seed ^ 0x706F_6F6C, UInt64(block))
  }

  // MARK: Bodies

  /// The whole body of a small object (never a pooled one).
  private func bodyBytes(_ profile: Profile) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: Int(profile.size))
    let isText = Self.fileTypes[profile.typeIndex].isText
    bytes.withUnsafeMutableBytes { fill($0, word: profile.word, offset: 0, isText: isText) }
    return bytes
  }

  func body(at index: Int) -> ObjectBody? {
    let profile = profile(at: index)
    let isText = Self.fileTypes[profile.typeIndex].isText && profile.poolBlocks == 0
    let pooledLength = Int64(profile.poolBlocks * QETag.blockSize)
    return ObjectBody(length: profile.size) { [self] offset, count, buffer in
      buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
        let target = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
        var position = offset
        var written = 0
        while written < count {
          let chunk = UnsafeMutableRawBufferPointer(rebasing: target[written...])
          if position < pooledLength {
            let block = Int(position / Int64(QETag.blockSize))
            let within = position % Int64(QETag.blockSize)
            let length = min(chunk.count, Int(Int64(QETag.blockSize) - within))
            fill(
              UnsafeMutableRawBufferPointer(rebasing: chunk[0..<length]),
              word: poolWord((profile.poolStart + block) % Self.poolSize), offset: within,
              isText: false)
            written += length
            position += Int64(length)
          } else {
            fill(chunk, word: profile.word, offset: position - pooledLength, isText: isText)
            written += chunk.count
            position += Int64(chunk.count)
          }
        }
        return count
      }
    }
  }

  /// Fills `target` with the generated stream for `word`, starting at byte `offset` of it.
  ///
  /// Byte `n` of a stream depends only on (`word`, `n`), so any range can be produced alone.
  /// Text streams map each byte into a printable alphabet and end every 64th byte with a newline.
  private func fill(
    _ target: UnsafeMutableRawBufferPointer, word: UInt64, offset: Int64, isText: Bool
  ) {
    Self.textAlphabet.withUnsafeBufferPointer { alphabet in
      var position = UInt64(offset)
      var index = 0
      while index < target.count {
        var value = Mixing.splitMix(word &+ (position / 8) &* 0xD1B5_4A32_D192_ED03)
        if position % 8 == 0 && target.count - index >= 8 {
          // Whole lanes: eight bytes at once.
          if isText {
            var lane: UInt64 = 0
            // A plain loop: `stride` is generic and dominates unoptimised (debug) builds here.
            var shift: UInt64 = 0
            while shift < 64 {
              lane |= UInt64(alphabet[Int((value >> shift) & 63)]) << shift
              shift += 8
            }
            if position % 64 == 56 {  // the lane's last byte is the 64th of the line
              lane = (lane & 0x00FF_FFFF_FFFF_FFFF) | (UInt64(UInt8(ascii: "\n")) << 56)
            }
            value = lane
          }
          target.storeBytes(of: value.littleEndian, toByteOffset: index, as: UInt64.self)
          index += 8
          position += 8
          continue
        }
        value >>= (position % 8) * 8
        let take = min(Int(8 - position % 8), target.count - index)
        for _ in 0..<take {
          var byte = UInt8(truncatingIfNeeded: value)
          if isText {
            byte = position % 64 == 63 ? UInt8(ascii: "\n") : alphabet[Int(byte & 63)]
          }
          target[index] = byte
          value >>= 8
          index += 1
          position += 1
        }
      }
    }
  }
}

/// The SHA-1 digests of one-block synthetic bodies, by object index, filled as objects are
/// listed or read. 20 bytes an object in memory the kernel commits only when a digest is written,
/// so a million objects cost at most 20 MiB, and only once they have all been seen.
private final class DigestMemo: @unchecked Sendable {
  /// Larger synthetic buckets hash every time rather than grow the memo.
  static let maximumCount = 10_000_000

  private let lock = Mutex(())
  private let digests: UnsafeMutablePointer<UInt8>
  private let known: UnsafeMutablePointer<UInt64>
  private let count: Int

  init?(count: Int) {
    guard count > 0,
      let digests = calloc(count, 20)?.assumingMemoryBound(to: UInt8.self),
      let known = calloc((count + 63) / 64, 8)?.assumingMemoryBound(to: UInt64.self)
    else { return nil }
    self.count = count
    self.digests = digests
    self.known = known
  }

  deinit {
    free(digests)
    free(known)
  }

  /// Appends the digest at `index` to `bytes` when it is known (one copy, no array of its own).
  func appendDigest(at index: Int, to bytes: inout [UInt8]) -> Bool {
    guard index >= 0 && index < count else { return false }
    return lock.withLock { _ in
      guard known[index / 64] & (1 << UInt64(index % 64)) != 0 else { return false }
      bytes.append(contentsOf: UnsafeBufferPointer(start: digests + index * 20, count: 20))
      return true
    }
  }

  func remember(_ digest: [UInt8], at index: Int) {
    guard index >= 0 && index < count && digest.count == 20 else { return }
    lock.withLock { _ in
      digest.withUnsafeBufferPointer { source in
        guard let base = source.baseAddress else { return }
        (digests + index * 20).update(from: base, count: 20)
      }
      known[index / 64] |= 1 << UInt64(index % 64)
    }
  }
}
