/// How a listing's objects are ordered: `kodo ls --sort` (and `find`'s) and the browser's `o`
/// both order through this one comparison, by a field of the object table (``ObjectField``).
///
/// Objects equal in the field fall back to their keys' byte order; `reversed` turns the whole
/// order round, ties included, so a reversed listing is exactly the other read backwards.
public enum ObjectOrder: String, Sendable, CaseIterable {
  case name, size, time

  /// The field of ``ObjectField/all`` it orders by.
  public var field: ObjectField.Name {
    switch self {
    case .name: .key
    case .size: .size
    case .time: .putTime
    }
  }

  /// Whether an object goes before another: `sizes` and `times` (instants, in 100 ns units) are
  /// theirs (first, second); `keys` gives the byte order of their keys (negative, zero or
  /// positive) and is only asked when the field ties. Times are instants, not `Timestamp`s, so
  /// that the same instant given with other digits (Kodo's 7, OSS's 3) ties and the keys decide.
  @inlinable
  public func precedes(
    sizes: (Int64, Int64), times: (Int64, Int64), reversed: Bool, keys: () -> Int
  ) -> Bool {
    var order = 0
    switch self {
    case .name: break
    case .size: order = sizes.0 == sizes.1 ? 0 : (sizes.0 < sizes.1 ? -1 : 1)
    case .time: order = times.0 == times.1 ? 0 : (times.0 < times.1 ? -1 : 1)
    }
    if order == 0 { order = keys() }
    return reversed ? order > 0 : order < 0
  }
}
