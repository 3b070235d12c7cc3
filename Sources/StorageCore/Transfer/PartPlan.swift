/// How a source of known size is cut into parts: every part `partSize` bytes but the last, at
/// most the service's part count, each part within its size limits.
public struct PartPlan: Sendable, Equatable, Codable {
  /// The size of the whole source.
  public let totalSize: Int64
  /// The size of every part but the last (which may be shorter, or empty for an empty source).
  public let partSize: Int64
  /// The number of parts (at least 1: an empty source is one empty part).
  public let count: Int

  /// The plan for `totalSize` bytes in parts of `preferredPartSize`, moved into `limits`: the
  /// size is clamped to the limits' minimum and maximum, then raised (to a multiple of the
  /// limits' step, or to the maximum) until the parts fit the part count.
  ///
  /// - Throws: `StorageError(.invalidInput)` for a negative size or a part size below 1, and
  ///   when even parts of the largest size are too many.
  public init(totalSize: Int64, preferredPartSize: Int64, limits: PartLimits) throws(StorageError) {
    guard totalSize >= 0 else {
      throw StorageError(.invalidInput, "the size of an upload cannot be negative")
    }
    guard preferredPartSize > 0 else {
      throw StorageError(.invalidInput, "the part size must be at least 1 byte")
    }
    let maximumCount = Int64(limits.maximumPartCount)
    var size = min(max(preferredPartSize, limits.minimumPartSize), limits.maximumPartSize)
    let needed = Self.dividedRoundingUp(totalSize, by: maximumCount)
    if size < needed {
      let stepped = Self.dividedRoundingUp(needed, by: limits.sizeStep)
      let (rounded, overflow) = stepped.multipliedReportingOverflow(by: limits.sizeStep)
      size = overflow ? limits.maximumPartSize : min(rounded, limits.maximumPartSize)
    }
    guard size >= needed else {
      throw StorageError(
        .invalidInput,
        "\(totalSize) bytes do not fit in \(limits.maximumPartCount) parts of at most "
          + "\(limits.maximumPartSize) bytes")
    }
    self.totalSize = totalSize
    partSize = size
    count = Int(max(1, Self.dividedRoundingUp(totalSize, by: size)))
  }

  /// The byte range of part `number` (1-based) in the source.
  public func range(ofPart number: Int) -> Range<Int64> {
    precondition((1...count).contains(number), "part number out of range")
    let start = Int64(number - 1) * partSize
    return start..<min(totalSize, start + partSize)
  }

  /// The part numbers, 1 to ``count``.
  public var numbers: ClosedRange<Int> { 1...count }

  private static func dividedRoundingUp(_ value: Int64, by divisor: Int64) -> Int64 {
    value / divisor + (value % divisor == 0 ? 0 : 1)
  }
}
