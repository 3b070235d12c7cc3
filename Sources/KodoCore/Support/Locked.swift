import Foundation

/// A value guarded by a lock, for the little shared state there is (skew, region cache, signals).
///
/// `@unchecked Sendable` is sound because every access to `value` goes through `withLock`, which
/// holds `lock` for the whole access.
public final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  /// A lock around `value`.
  public init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
