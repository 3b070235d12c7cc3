import Foundation

/// A lock with a closure API, for test doubles.
final class NSLockShim: @unchecked Sendable {
  private let lock = NSLock()

  func with<T>(_ body: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }
}
