import Synchronization

/// A digest that takes bytes as they come (OSS's CRC-64), for checking a download that is
/// streamed rather than written to a file that can be read back (`cat`).
public protocol RunningDigest: Sendable {
  /// Adds `bytes`.
  mutating func update(_ bytes: UnsafeRawBufferPointer)
  /// Adds `chunks[i]` to `digests[i]` (as many digests as chunks): independent digests fed
  /// together, which a digest that can hash several streams at once does in one pass.
  static func update(lanes digests: inout [Self], with chunks: [UnsafeRawBufferPointer])
  /// The digest of the bytes so far, as `IntegrityCheck.expected` spells it.
  var text: String { get }
}

extension RunningDigest {
  /// Adds `chunks[i]` to `digests[i]`, one digest after the other.
  public static func update(lanes digests: inout [Self], with chunks: [UnsafeRawBufferPointer]) {
    for (lane, chunk) in chunks.enumerated() { digests[lane].update(chunk) }
  }
}

/// The running digest of a download's bytes as the transport writes them to the descriptor.
///
/// An attempt that is retried from where the kept bytes end (from the start, once the
/// descriptor is rewound; after the bytes of a resumed download) must not count the bytes of
/// the failed attempt twice: the provider calls `restart` as each attempt begins and `keep`
/// once the bytes written so far stay.
public final class StreamedDigest: Sendable {
  private struct State: Sendable {
    var current: any RunningDigest
    var kept: any RunningDigest
  }

  private let state: Mutex<State>

  /// A digest starting from `initial` (no bytes yet).
  public init(_ initial: any RunningDigest) {
    state = Mutex(State(current: initial, kept: initial))
  }

  /// Adds bytes that reached the descriptor.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    state.withLock { $0.current.update(bytes) }
  }

  /// An attempt begins: back to the digest of the kept bytes.
  public func restart() {
    state.withLock { $0.current = $0.kept }
  }

  /// The bytes written so far stay: an attempt that follows goes on after them.
  public func keep() {
    state.withLock { $0.kept = $0.current }
  }

  /// The digest of the bytes so far.
  public var text: String { state.withLock { $0.current.text } }
}
