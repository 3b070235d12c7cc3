import NIOCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How many connections the server keeps, and how socket errors read.
enum ConnectionLimit {
  /// Descriptors left for files, the listener and the runtime when the cap follows the
  /// process's descriptor limit.
  private static let reservedDescriptors = 64

  /// The cap actually applied: `configured`, lowered below the process's soft `RLIMIT_NOFILE` so
  /// that accepting never runs out of descriptors (at least 1).
  static func effective(_ configured: Int) -> Int {
    var limit = rlimit()
    #if canImport(Glibc)
      let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
      let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else {
      return max(1, configured)
    }
    let available = Int(clamping: limit.rlim_cur) - reservedDescriptors
    return max(1, min(configured, available))
  }

  /// A bind failure for people: `address already in use`, not NIO's error dump.
  static func reason(_ error: any Error) -> String {
    if let error = error as? IOError {
      return describe(errno: error.errnoCode)
    }
    if error is SocketAddressError {
      return "not an address or a host name this machine can resolve"
    }
    return "\(error)"
  }

  /// `strerror`'s text with a lower-case first letter: `address already in use`.
  static func describe(errno code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    let message = String(cString: text)
    return message.prefix(1).lowercased() + message.dropFirst()
  }
}

/// The child-channel initialiser's failure for a connection over the cap (NIO then closes it).
struct ConnectionRefusedOverCap: Error {}
