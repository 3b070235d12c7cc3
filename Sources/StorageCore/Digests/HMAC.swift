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
    // takes the one-shot path). Used under the mutex: a context is not thread-safe.
    private let context: Mutex<OpaquePointer?>

    /// Schedules `key` for `algorithm`.
    package init(_ key: [UInt8], algorithm: Algorithm = .sha1) {
      self.algorithm = algorithm
      self.key = key
      context = Mutex(
        key.withUnsafeBytes { kodo_hmac_context(algorithm.digest, $0.baseAddress, $0.count) })
    }

    deinit {
      context.withLock { kodo_hmac_free($0) }
    }

    /// The HMAC of `message` under this key.
    package func authenticationCode(_ message: [UInt8]) -> [UInt8] {
      let size = algorithm.outputSize
      var output = [UInt8](repeating: 0, count: size)
      let done = context.withLock { context -> Bool in
        guard let context else { return false }
        return message.withUnsafeBytes { messageBuffer in
          output.withUnsafeMutableBytes { outputBuffer in
            kodo_hmac_keyed(
              context, messageBuffer.baseAddress, messageBuffer.count, outputBuffer.baseAddress,
              size)
          }
        } == 1
      }
      return done ? output : HMAC.authenticationCode(algorithm, key: key, message: message)
    }
  }
}
