import COpenSSL
import Synchronization

/// HMAC through OpenSSL's libcrypto, with SHA-1 (Kodo, OSS V1) or SHA-256 (OSS V4).
package enum HMAC {
  /// The hash function under the MAC.
  package enum Algorithm: Sendable {
    case sha1, sha256

    /// The MAC's length in bytes.
    package var outputSize: Int {
      switch self {
      case .sha1: 20
      case .sha256: 32
      }
    }

    var digest: kodo_digest {
      switch self {
      case .sha1: KODO_DIGEST_SHA1
      case .sha256: KODO_DIGEST_SHA256
      }
    }
  }

  /// The HMAC of `message` under `key`.
  package static func authenticationCode(
    _ algorithm: Algorithm, key: [UInt8], message: [UInt8]
  ) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 64)
    var length: UInt32 = 0
    let ok = key.withUnsafeBytes { keyBuffer in
      message.withUnsafeBytes { messageBuffer in
        output.withUnsafeMutableBytes { outputBuffer in
          kodo_hmac(
            algorithm.digest, keyBuffer.baseAddress, Int32(clamping: keyBuffer.count),
            messageBuffer.baseAddress, messageBuffer.count, outputBuffer.baseAddress, &length)
        }
      }
    }
    // HMAC only fails when libcrypto cannot allocate; there is no useful recovery.
    precondition(ok == 1 && Int(length) == algorithm.outputSize, "libcrypto HMAC failed")
    return Array(output.prefix(algorithm.outputSize))
  }

  /// A key scheduled once for many messages: signing a million URLs with one secret key should
  /// not look up the algorithm and hash the key a million times. Safe to share between tasks.
  package final class Key: Sendable {
    /// The hash function.
    package let algorithm: Algorithm
    private let key: [UInt8]
    // The keyed libcrypto context, `nil` if libcrypto could not make one (then every message
    // takes the one-shot path). Used only while `lock` is held: a context is not thread-safe.
    // (Not the mutex's value: the callers' buffers, which it reads and writes, would then have
    // to be sendable.)
    private nonisolated(unsafe) let context: OpaquePointer?
    private let lock = Mutex(())

    /// Schedules `key` for `algorithm`.
    package init(_ key: [UInt8], algorithm: Algorithm = .sha1) {
      self.algorithm = algorithm
      self.key = key
      context = key.withUnsafeBytes {
        kodo_hmac_context(algorithm.digest, $0.baseAddress, $0.count)
      }
    }

    deinit {
      kodo_hmac_free(context)
    }

    /// The HMAC of `message` under this key.
    package func authenticationCode(_ message: [UInt8]) -> [UInt8] {
      var output = [UInt8](repeating: 0, count: algorithm.outputSize)
      message.withUnsafeBytes { message in
        output.withUnsafeMutableBytes { authenticationCode(of: message, into: $0) }
      }
      return output
    }

    /// Writes the HMAC of `message` under this key to the start of `output`, which must hold
    /// `algorithm.outputSize` bytes; with no array made per message (`url --stdin` signs a
    /// million). Writes nothing when `output` is too small.
    package func authenticationCode(
      of message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) {
      let size = algorithm.outputSize
      guard output.count >= size else { return }
      let done = lock.withLock { _ -> Bool in
        guard let context else { return false }
        return kodo_hmac_keyed(
          context, message.baseAddress, message.count, output.baseAddress, size)
          == 1
      }
      guard !done else { return }
      let code = HMAC.authenticationCode(algorithm, key: key, message: Array(message))
      output.copyBytes(from: code.prefix(size))
    }
  }
}
