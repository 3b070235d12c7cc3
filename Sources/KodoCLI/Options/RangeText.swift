import StorageCore

/// `cat --range`: bytes as in HTTP, offsets from 0 and both ends included; `START-END`,
/// `START-` (to the end) or `-COUNT` (the last COUNT bytes).
struct RangeText: Sendable, Equatable {
  var start: Int64?
  var end: Int64?

  init(_ text: String) throws(StorageError) {
    func invalid(_ why: String) -> StorageError {
      StorageError(
        .invalidInput,
        "invalid range \(DisplayText.quoted(text)) for --range: \(why); give START-END (bytes, both included), START- or -COUNT"
      )
    }
    let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2 else { throw invalid("it has no -") }
    func number(_ part: Substring) throws(StorageError) -> Int64? {
      guard !part.isEmpty else { return nil }
      guard part.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
        let value = Int64(part)
      else { throw invalid("\(DisplayText.quoted(String(part))) is not a byte offset") }
      return value
    }
    start = try number(parts[0])
    end = try number(parts[1])
    switch (start, end) {
    case (nil, nil): throw invalid("both ends are empty")
    case (nil, let count?) where count == 0: throw invalid("the last 0 bytes are no bytes")
    case (let first?, let last?) where last < first: throw invalid("it ends before it starts")
    default: break
    }
  }

  /// The absolute bytes of an object of `size` bytes (the end clamped to the last byte).
  ///
  /// - Throws: `.invalidInput` when the range starts at or past the end.
  func resolve(size: Int64) throws(StorageError) -> ClosedRange<Int64> {
    guard size > 0 else {
      throw StorageError(.invalidInput, "the object is empty: no byte range of it exists")
    }
    guard let start else {
      let count = Swift.min(end ?? size, size)
      return (size - count)...(size - 1)
    }
    guard start < size else {
      throw StorageError(
        .invalidInput,
        "the range starts at byte \(start), but the object has \(size) bytes (the last is \(size - 1))"
      )
    }
    return start...Swift.min(end ?? (size - 1), size - 1)
  }
}
