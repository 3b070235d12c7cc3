import Synchronization

/// A `Mutex`-guarded value in a class, for state that copies of a struct or several closures
/// share (a `Mutex` itself cannot be copied). Final classes hold a `Mutex` directly.
final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  init(_ value: Value) {
    mutex = Mutex(value)
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
    mutex.withLock { body(&$0) }
  }
}
