public import Foundation

/// How long a test waits for what takes milliseconds on an idle machine.
///
/// `make test` must pass on a 2-core machine while other work keeps both cores busy, with
/// hundreds of tests queued on the cooperative pool; there, waits of 30 s to 2 minutes have run
/// out (`ListPagesTests`, `ParallelListingTests`, a killed `mv -r` that reached its own idle
/// limit first). Every wait polls its condition and ends as soon as it holds, so a long bound
/// costs nothing when things go well: it only bounds a hang.
public enum Patience {
  /// The bound on any wait: 10 minutes.
  public static let bound: Duration = .seconds(600)
  /// The bound in seconds, for the APIs that take a `Double`.
  public static var seconds: Double { Double(bound.components.seconds) }

  /// When a wait that starts now gives up.
  public static var deadline: ContinuousClock.Instant { .now + bound }
  /// The same, as a `Date`.
  public static var deadlineDate: Date { Date().addingTimeInterval(seconds) }
}
