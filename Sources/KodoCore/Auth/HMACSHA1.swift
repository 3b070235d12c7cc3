import COpenSSL
import Synchronization

/// HMAC-SHA1, and the SHA-1 and MD5 digests, through OpenSSL's libcrypto. The only file that
/// touches `COpenSSL`.
public enum HMACSHA1 {
  /// The 20-byte HMAC-SHA1 of `message` under `key`.
  public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 20)
    var length: UInt32 = 0
    let ok = key.withUnsafeBytes { keyBuffer in
      message.withUnsafeBytes { messageBuffer in
        output.withUnsafeMutableBytes { outputBuffer in
          kodo_hmac_sha1(
            keyBuffer.baseAddress, Int32(keyBuffer.count), messageBuffer.baseAddress,
            messageBuffer.count, outputBuffer.baseAddress, &length)
        }
      }
    }
    // HMAC with EVP_sha1 only fails when libcrypto cannot allocate; there is no useful recovery.
    precondition(ok == 1 && length == 20, "libcrypto HMAC-SHA1 failed")
    return output
  }

  /// A key scheduled once for many messages: signing a million URLs with one secret key should
  /// not look up the algorithm and hash the key a million times. Safe to share between tasks.
  public final class Key: Sendable {
    private let key: [UInt8]
    // The keyed libcrypto context, `nil` if libcrypto could not make one (then every message
    // takes the one-shot path). Used under the mutex: a context is not thread-safe.
    private let context: Mutex<OpaquePointer?>

    /// Schedules `key`.
    public init(_ key: [UInt8]) {
      self.key = key
      context = Mutex(key.withUnsafeBytes { kodo_hmac_sha1_context($0.baseAddress, $0.count) })
    }

    deinit {
      context.withLock { kodo_hmac_sha1_free($0) }
    }

    /// The 20-byte HMAC-SHA1 of `message` under this key.
    public func authenticationCode(_ message: [UInt8]) -> [UInt8] {
      var output = [UInt8](repeating: 0, count: 20)
      let done = context.withLock { context -> Bool in
        guard let context else { return false }
        return message.withUnsafeBytes { messageBuffer in
          output.withUnsafeMutableBytes { outputBuffer in
            kodo_hmac_sha1_keyed(
              context, messageBuffer.baseAddress, messageBuffer.count, outputBuffer.baseAddress)
          }
        } == 1
      }
      return done ? output : HMACSHA1.authenticationCode(key: key, message: message)
    }
  }

  /// The 20-byte SHA-1 digest of `data`.
  public static func sha1(_ data: UnsafeRawBufferPointer) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 20)
    output.withUnsafeMutableBytes { outputBuffer in
      kodo_sha1(data.baseAddress, data.count, outputBuffer.baseAddress)
    }
    return output
  }

  /// The 16-byte MD5 digest of `data` (objects' `md5` field; not for security).
  public static func md5(_ data: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 16)
    let ok = data.withUnsafeBytes { input in
      output.withUnsafeMutableBytes { kodo_md5(input.baseAddress, input.count, $0.baseAddress) }
    }
    // EVP_Digest with MD5 only fails when libcrypto cannot allocate.
    precondition(ok == 1, "libcrypto MD5 failed")
    return output
  }

  /// The 20-byte SHA-1 digest of `data`.
  public static func sha1(_ data: [UInt8]) -> [UInt8] {
    data.withUnsafeBytes { sha1($0) }
  }
}
