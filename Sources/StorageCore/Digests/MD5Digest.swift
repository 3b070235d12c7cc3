import COpenSSL
import Synchronization

/// An MD5 computed as the bytes arrive, through libcrypto: the `Content-MD5` of a multipart part,
/// hashed while the engine reads the part (not for security).
///
/// A reference: copies share the running state, so make one per part (`MultipartUploading`'s
/// `makePartDigest`).
public final class MD5Digest: RunningDigest {
  // The libcrypto context, used only while `lock` is held (a context is not thread-safe); not
  // the mutex's value, or the callers' buffers it reads would have to be sendable (as
  // `HMAC.Key`).
  private nonisolated(unsafe) let context: OpaquePointer?
  private let lock = Mutex(())

  /// The MD5 of no bytes yet.
  public init() {
    context = EVP_MD_CTX_new()
    // Fails only when libcrypto cannot allocate.
    precondition(
      context != nil && EVP_DigestInit_ex(context, kodo_digest_md(KODO_DIGEST_MD5), nil) == 1,
      "libcrypto MD5 failed")
  }

  deinit {
    EVP_MD_CTX_free(context)
  }

  /// Adds `bytes`.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    let ok = lock.withLock { _ in
      EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1
    }
    precondition(ok, "libcrypto MD5 failed")
  }

  /// The 16 bytes of the MD5 of the bytes so far (more may follow).
  public var bytes: [UInt8] {
    var output = [UInt8](repeating: 0, count: 16)
    var length: UInt32 = 0
    let ok = output.withUnsafeMutableBytes { buffer in
      lock.withLock { _ -> Bool in
        let copy = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(copy) }
        return EVP_MD_CTX_copy_ex(copy, context) == 1
          && EVP_DigestFinal_ex(
            copy, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
      }
    }
    precondition(ok && length == 16, "libcrypto MD5 failed")
    return output
  }

  /// The MD5 in lower-case hex.
  public var text: String { Hex.encode(bytes) }
}
