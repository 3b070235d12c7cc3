public import Foundation

/// Where the library reads the current time; tests fix it so every signature is reproducible.
public struct WallClock: Sendable {
  private let read: @Sendable () -> Date

  /// A clock that reads `read`.
  public init(_ read: @escaping @Sendable () -> Date) {
    self.read = read
  }

  /// The current time.
  public func now() -> Date { read() }

  /// The system clock.
  public static let system = WallClock { Date() }

  /// A clock stopped at `date`.
  public static func fixed(_ date: Date) -> WallClock { WallClock { date } }

  /// A clock stopped at `unixSeconds`.
  public static func fixed(unixSeconds: Int64) -> WallClock {
    fixed(Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
  }

  /// This clock moved by `offset` seconds (how clock-skew correction is applied).
  public func offset(by seconds: TimeInterval) -> WallClock {
    let base = self
    return WallClock { base.now().addingTimeInterval(seconds) }
  }

  /// The current Unix time in whole seconds.
  public var unixSeconds: Int64 { Int64(now().timeIntervalSince1970.rounded(.down)) }
}
