import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// SIGINT and SIGTERM caught instead of ending the process, for the executables' clean stops.
///
/// Once one exists, the two signals no longer kill the process: each arrival calls `onSignal`
/// (on a dispatch queue) and wakes whoever waits. Keep it alive as long as signals should be
/// caught. It prints nothing and exits nothing: that is the caller's business.
package final class TerminationSignals: @unchecked Sendable {
  // `@unchecked`: `sources` is written once, in `init`, and only held afterwards; everything
  // that changes is in `state`, a Mutex.
  private let sources: [any DispatchSourceSignal]
  private let state = Mutex(State())

  private struct State {
    var received: Int32?
    var waiters: [CheckedContinuation<Int32, Never>] = []
  }

  /// Starts catching SIGINT and SIGTERM; `onSignal` gets each signal's number as it arrives.
  package init(onSignal: @escaping @Sendable (Int32) -> Void = { _ in }) {
    var sources = [any DispatchSourceSignal]()
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      sources.append(DispatchSource.makeSignalSource(signal: number, queue: .global()))
    }
    self.sources = sources
    for (source, number) in zip(sources, [SIGINT, SIGTERM]) {
      source.setEventHandler { [self] in
        let waiters = self.state.withLock { state in
          state.received = number
          defer { state.waiters = [] }
          return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: number) }
        onSignal(number)
      }
      source.resume()
    }
  }

  /// The last signal that arrived, if any.
  package var received: Int32? { state.withLock { $0.received } }

  /// Returns the number of the first signal to arrive (at once if one already has).
  package func wait() async -> Int32 {
    await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
      let arrived = state.withLock { state -> Int32? in
        if let received = state.received { return received }
        state.waiters.append(continuation)
        return nil
      }
      if let arrived { continuation.resume(returning: arrived) }
    }
  }
}
