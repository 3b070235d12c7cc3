import Dispatch

/// Computes the digests of a group of parts of a source file before they are sent, in lockstep:
/// each round `pread`s the next chunk of every unfinished part into that part's own slice of one
/// read area, then feeds the chunks to the parts' digests in one
/// ``RunningDigest/update(lanes:with:)`` call (a digest that hashes several streams at once does
/// the whole group in one pass, each chunk while it is still in the cache). It runs on a thread
/// of its own, never on the Swift cooperative pool. The parts' bytes are never all in memory: the
/// requests send them from the file (``RequestBody/file(descriptor:offset:length:)``).
enum PartReader {
  /// Bytes read per part and round: the size of one part's slice of the read area.
  static let chunk = 64 << 10

  /// Reads `ranges` of `descriptor` on a thread of its own, each into a digest made by
  /// `makeDigest`, through `area` (slice `i` of `slice` bytes is part `i`'s), and hands `done`
  /// one result a range, in order, on that thread.
  ///
  /// A part whose read fails or ends before its range fails alone; the others go on. Once
  /// `isStopped` says so (checked before every round) the unfinished parts fail as cancelled.
  /// The area is used only until `done` is called (the reader holds it until then).
  ///
  /// - Precondition: `area` holds at least `ranges.count × slice` bytes, `slice` ≥ 1.
  static func digests<Digest: RunningDigest>(
    _ descriptor: Int32, ranges: [Range<Int64>], makeDigest: @escaping @Sendable () -> Digest,
    through area: ReadBuffer, slice: Int, isStopped: @escaping @Sendable () -> Bool,
    done: @escaping @Sendable ([Result<Digest, StorageError>]) -> Void
  ) {
    precondition(slice >= 1 && area.bytes.count >= ranges.count * slice, "read area too small")
    DispatchQueue(label: "kodo.transfer.read").async {
      done(
        digestsBlocking(
          descriptor, ranges: ranges, makeDigest: makeDigest, area: area, slice: slice,
          isStopped: isStopped))
    }
  }

  private static func digestsBlocking<Digest: RunningDigest>(
    _ descriptor: Int32, ranges: [Range<Int64>], makeDigest: () -> Digest, area: ReadBuffer,
    slice: Int, isStopped: () -> Bool
  ) -> [Result<Digest, StorageError>] {
    var results = [Result<Digest, StorageError>?](repeating: nil, count: ranges.count)
    var read = [Int64](repeating: 0, count: ranges.count)
    // The unfinished parts: `active[i]` is the digest of part `parts[i]` of the group.
    var active: [Digest] = []
    var parts: [Int] = []
    var chunks: [UnsafeRawBufferPointer] = []
    active.reserveCapacity(ranges.count)
    parts.reserveCapacity(ranges.count)
    chunks.reserveCapacity(ranges.count)
    for (part, range) in ranges.enumerated() {
      if range.isEmpty {
        results[part] = .success(makeDigest())
      } else {
        active.append(makeDigest())
        parts.append(part)
      }
    }
    while !parts.isEmpty {
      if isStopped() {
        for part in parts {
          results[part] = .failure(StorageError(.cancelled, "the upload was cancelled"))
        }
        break
      }
      chunks.removeAll(keepingCapacity: true)
      var position = 0
      while position < parts.count {
        let part = parts[position]
        let range = ranges[part]
        let want = Int(min(Int64(slice), Int64(range.count) - read[part]))
        let window = UnsafeMutableRawBufferPointer(
          rebasing: area.bytes[part * slice..<part * slice + want])
        let (got, failure) = PositionalFile.read(
          descriptor, into: window, at: range.lowerBound + read[part])
        read[part] += Int64(got)
        if let error = readError(failure, got: got, want: want, range: range, read: read[part]) {
          results[part] = .failure(error)
          active.remove(at: position)
          parts.remove(at: position)
          continue
        }
        chunks.append(UnsafeRawBufferPointer(window))
        position += 1
      }
      if !chunks.isEmpty { Digest.update(lanes: &active, with: chunks) }
      position = 0
      while position < parts.count {
        let part = parts[position]
        if read[part] == Int64(ranges[part].count) {
          results[part] = .success(active.remove(at: position))
          parts.remove(at: position)
        } else {
          position += 1
        }
      }
    }
    return results.map { $0 ?? .failure(StorageError(.cancelled, "the upload was cancelled")) }
  }

  /// Why a read of `want` bytes that got `got` (and `read` of the part's `range` so far) fails
  /// the part, or `nil` when it did not.
  private static func readError(
    _ failure: Int32?, got: Int, want: Int, range: Range<Int64>, read: Int64
  ) -> StorageError? {
    if let failure {
      return StorageError(.localIO, "cannot read the file being uploaded: " + errnoText(failure))
    }
    if got < want {
      return StorageError(
        .localIO,
        "the file being uploaded ended at byte \(range.lowerBound + read), before the "
          + "\(range.upperBound) bytes it had; it changed during the upload")
    }
    return nil
  }
}

/// Memory the engine reads parts through, allocated once and freed when the last reference
/// goes (never while a read holds it: the reader keeps a reference for the whole read).
///
/// `@unchecked Sendable` invariant: one read uses a buffer at a time (``DigestsAhead`` starts
/// a group's read only once the one before ended, and frees nothing itself).
final class ReadBuffer: @unchecked Sendable {
  /// The buffer's bytes (at least one).
  let bytes: UnsafeMutableRawBufferPointer

  /// A buffer of `capacity` bytes (at least one).
  init(capacity: Int) {
    bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, capacity), alignment: 64)
  }

  deinit { bytes.deallocate() }
}
