import NIOCore
import StorageCore

/// One `x-qn-meta` member, compared by its bytes (two names that differ only by Unicode
/// normalisation are two members, as on the services).
struct MetaMember: Sendable, Equatable {
  var name: String
  var value: String

  static func == (lhs: MetaMember, rhs: MetaMember) -> Bool {
    ExactKey.same(lhs.name, rhs.name) && ExactKey.same(lhs.value, rhs.value)
  }
}

extension MetaMember {
  /// Kodo's `x-qn-meta-NAME` field (a form part, a `mkfile` segment, a `/batch` `chgm` argument,
  /// a resumable v2 `metadata` member) as a member; `nil` for another name. Cut at bytes.
  init?(kodoField name: some StringProtocol, value: String) {
    guard let rest = WireText.dropping(prefix: "x-qn-meta-", from: name) else { return nil }
    self.init(name: String(rest), value: value)
  }

  /// OSS's `x-oss-meta-NAME` header (any ASCII case; the name lower-cased as OSS keeps it) as a
  /// member; `nil` for another header or an empty name.
  init?(ossHeader name: some StringProtocol, value: String) {
    let lowered = WireText.asciiLowercased(name)
    guard let rest = WireText.dropping(prefix: "x-oss-meta-", from: lowered), !rest.isEmpty else {
      return nil
    }
    self.init(name: String(rest), value: value)
  }
}

/// One object's metadata as list and stat report it: the emulator's one list of object fields
/// (an `EmulatorObject` is a key, a body and these).
struct ObjectMetadata: Sendable, Equatable {
  var fsize: Int64
  var hash: String
  var mimeType: String
  /// 100 ns units since the Unix epoch.
  var putTime: Int64
  /// The storage class number.
  var type: Int = 0
  /// 0 enabled, 1 disabled.
  var status: Int = 0
  var md5: String?
  var endUser: String?
  /// `x-qn-meta`, in output order.
  var meta: [MetaMember] = []
  var restoreStatus: Int?
  /// 100 ns units.
  var lastModify: Int64?
  /// Lifecycle dates, Unix seconds.
  var expiration: Int64?
  var transitionToIA: Int64?
  var transitionToArchiveIR: Int64?
  var transitionToArchive: Int64?
  var transitionToDeepArchive: Int64?
  /// Written objects: the CRC-64/ECMA of the content (OSS's `x-oss-hash-crc64ecma`).
  var crc64: UInt64?
  /// Written objects: the ETag OSS reports, without quotes (the MD5 in upper-case hex, or for
  /// an object completed from parts the MD5 of the parts' MD5s and `-N`).
  var ossETag: String?
  /// Written objects: completed from parts (OSS's object type `Multipart`).
  var isMultipart = false
}

/// Reads part of an object's body: appends `count` bytes starting at `offset` to the buffer.
typealias BodyReader =
  @Sendable (_ offset: Int64, _ count: Int, _ buffer: inout ByteBuffer) throws
  -> Void

/// An object's body, read on demand.
struct ObjectBody: Sendable {
  var length: Int64
  /// Whether reading blocks on the file system (then it never runs on an event loop).
  var readsFiles = false
  var read: BodyReader
}

/// A bucket's objects, sorted by key bytes and addressed by index.
///
/// Listing and lookup work by binary search over indices, so a source need not hold its keys in
/// memory (the synthetic source computes them).
protocol ObjectSource: Sendable {
  /// The number of objects.
  var count: Int { get }
  /// The UTF-8 key of the object at `index`; strictly increasing in byte order with `index`.
  func key(at index: Int) -> [UInt8]
  /// The object's metadata (its hash may be computed on first use).
  func metadata(at index: Int) -> ObjectMetadata
  /// The object's metadata with at least the digests of `wanted`: a source that computes some
  /// on demand (a writable store) spares a read the others. By default `metadata(at:)`.
  func metadata(at index: Int, digests wanted: DigestFields) -> ObjectMetadata
  /// The object's body, or `nil` when it can no longer be served (a file replaced by something
  /// other than a regular file, or removed, since the scan).
  func body(at index: Int) -> ObjectBody?
  /// Whether metadata and bodies come from the file system, so that requests touching them
  /// must not run on an event loop.
  var readsFiles: Bool { get }
  /// The first index whose key is not less than `target` (or greater than it, if `strictly`).
  /// By default a binary search over `key(at:)`; a source that can search faster says so.
  func lowerBound(_ target: [UInt8], strictly: Bool) -> Int
}

extension ObjectSource {
  var readsFiles: Bool { false }

  func metadata(at index: Int, digests wanted: DigestFields) -> ObjectMetadata {
    metadata(at: index)
  }

  /// The first index whose key is not less than `target`.
  func lowerBound(_ target: [UInt8]) -> Int {
    lowerBound(target, strictly: false)
  }

  func lowerBound(_ target: [UInt8], strictly: Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = low + (high - low) / 2
      let order = ByteOrder.compare(key(at: middle), target)
      if order < 0 || (strictly && order == 0) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low
  }

  /// The index of the object with exactly this key.
  func index(of key: [UInt8]) -> Int? {
    let index = lowerBound(key)
    guard index < count, self.key(at: index) == key else { return nil }
    return index
  }
}

/// Byte-wise comparison of UTF-8 keys (Kodo's order).
enum ByteOrder {
  /// Negative, zero or positive as `a` sorts before, equal to, or after `b`.
  static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
    let shared = min(a.count, b.count)
    var index = 0
    while index < shared {
      let left = a[index]
      let right = b[index]
      if left != right { return left < right ? -1 : 1 }
      index += 1
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
  }

  /// Whether `bytes` starts with `prefix`.
  static func hasPrefix(_ bytes: [UInt8], _ prefix: [UInt8]) -> Bool {
    guard bytes.count >= prefix.count else { return false }
    var index = 0
    while index < prefix.count {
      if bytes[index] != prefix[index] { return false }
      index += 1
    }
    return true
  }
}
