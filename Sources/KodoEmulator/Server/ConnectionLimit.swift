import NIOCore
import Synchronization

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

/// The child-channel initialiser's failure for a connection over the cap while every open one
/// is being answered (NIO then closes it).
struct ConnectionRefusedOverCap: Error {}

/// The open connections, and which one gives way when a new one would pass the cap.
///
/// At the cap, a new connection closes the one that has waited longest for a request (silent,
/// or stuck in a request head or body) rather than being turned away: idle connections, however
/// many, cannot keep a new request from being answered. A connection being answered (a slow
/// download, a `hang` fault) is never closed for another; when every open one is, the new one
/// is refused.
final class ConnectionRegistry: Sendable {
  /// One open connection, as its handler reports it.
  final class Entry: Sendable {
    /// The channel, closed when it is reaped.
    let channel: any Channel
    /// Tells entries apart (an `ObjectIdentifier` may be reused once a channel is gone).
    fileprivate let serial: UInt64
    /// When it last received bytes or finished an answer (`NIODeadline` uptime nanoseconds).
    private let lastActivity = Atomic<UInt64>(NIODeadline.now().uptimeNanoseconds)
    /// Whether an answer is under way.
    private let answering = Atomic<Bool>(false)

    fileprivate init(channel: any Channel, serial: UInt64) {
      self.channel = channel
      self.serial = serial
    }

    /// Bytes arrived, or an answer ended.
    func touch() {
      lastActivity.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// An answer started (`true`) or ended (`false`).
    func setAnswering(_ value: Bool) {
      answering.store(value, ordering: .relaxed)
      if !value { touch() }
    }

    fileprivate var isAnswering: Bool { answering.load(ordering: .relaxed) }
    fileprivate var idleSince: UInt64 { lastActivity.load(ordering: .relaxed) }
  }

  private enum Admission {
    case admitted(reaping: Entry?)
    case refused
  }

  private let capacity: Int
  private let open = Mutex([UInt64: Entry]())
  private let serials = Atomic<UInt64>(0)

  /// A registry holding at most `capacity` connections (at least 1).
  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  /// Registers `channel`, closing the idlest open connection when the cap is reached; `nil` when
  /// every open connection is being answered (the caller then refuses `channel`).
  func admit(_ channel: any Channel) -> Entry? {
    let entry = Entry(channel: channel, serial: serials.add(1, ordering: .relaxed).newValue)
    let outcome = open.withLock { open -> Admission in
      var reaped: Entry?
      if open.count >= capacity {
        guard
          let idlest = open.values.lazy.filter({ !$0.isAnswering })
            .min(by: { $0.idleSince < $1.idleSince })
        else { return .refused }
        open.removeValue(forKey: idlest.serial)
        reaped = idlest
      }
      open[entry.serial] = entry
      return .admitted(reaping: reaped)
    }
    guard case .admitted(let reaped) = outcome else { return nil }
    reaped?.channel.close(promise: nil)
    return entry
  }

  /// Forgets `entry` (its channel closed).
  func remove(_ entry: Entry) {
    _ = open.withLock { $0.removeValue(forKey: entry.serial) }
  }

  /// Every open connection's channel.
  var channels: [any Channel] {
    open.withLock { $0.values.map(\.channel) }
  }
}
