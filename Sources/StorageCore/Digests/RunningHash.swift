import COpenSSL

/// A hash (MD5, SHA-1, SHA-256) that takes bytes as they come, through libcrypto: the part
/// digests of multipart uploads (`Content-MD5`) fed while a part is read, and what a
/// ``StreamedDigest`` needs on the wire.
///
/// A value type: a copy goes on independently of the original (the libcrypto context is copied
/// when a shared one is about to change).
public struct RunningHash: RunningDigest, @unchecked Sendable {
  /// Which hash.
  public enum Kind: Sendable, Equatable {
    case md5
    case sha1
    case sha256

    var code: kodo_digest {
      switch self {
      case .md5: KODO_DIGEST_MD5
      case .sha1: KODO_DIGEST_SHA1
      case .sha256: KODO_DIGEST_SHA256
      }
    }

    /// The digest's size in bytes.
    public var size: Int {
      switch self {
      case .md5: 16
      case .sha1: 20
      case .sha256: 32
      }
    }
  }

  /// Owns one libcrypto context. Shared between copies only until one of them changes.
  private final class Context {
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) { self.raw = raw }

    deinit { kodo_digest_free(raw) }
  }

  /// Which hash this is.
  public let kind: Kind
  private var context: Context

  /// The hash of no bytes yet.
  public init(_ kind: Kind) {
    self.kind = kind
    // EVP_MD_CTX_new only fails when libcrypto cannot allocate.
    guard let raw = kodo_digest_begin(kind.code) else {
      preconditionFailure("libcrypto could not start a digest")
    }
    context = Context(raw)
  }

  /// MD5 of no bytes yet.
  public static func md5() -> RunningHash { RunningHash(.md5) }

  /// Adds `bytes`.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    if !isKnownUniquelyReferenced(&context) { context = Context(Self.copy(context.raw)) }
    let ok = kodo_digest_update(context.raw, bytes.baseAddress, bytes.count)
    precondition(ok == 1, "libcrypto digest update failed")
  }

  /// The digest of the bytes so far (the running hash goes on).
  public var bytes: [UInt8] {
    let finished = Self.copy(context.raw)
    defer { kodo_digest_free(finished) }
    var output = [UInt8](repeating: 0, count: kind.size)
    let ok = output.withUnsafeMutableBytes { kodo_digest_final(finished, $0.baseAddress) }
    precondition(ok == 1, "libcrypto digest final failed")
    return output
  }

  /// The digest as lower-case hex.
  public var text: String { Hex.encode(bytes) }

  private static func copy(_ raw: OpaquePointer) -> OpaquePointer {
    guard let copy = kodo_digest_copy(raw) else {
      preconditionFailure("libcrypto could not copy a digest")
    }
    return copy
  }
}
