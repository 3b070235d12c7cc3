import Foundation

/// A value guarded by a lock, shared between event-loop threads.
// The value is only ever read or written inside `withLock`, under `lock`; that is what makes the
// unchecked conformance sound.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
