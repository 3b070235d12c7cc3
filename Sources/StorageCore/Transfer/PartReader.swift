import Dispatch
import Synchronization

/// Computes the digest of one part of a source file before the part is sent: reads the part
/// with `pread` in chunks through one reused buffer (each chunk hashed while it is still in the
/// cache), on a thread of its own, never on the Swift cooperative pool. The part's bytes are
/// never all in memory: the request sends them from the file (``RequestBody/file(descriptor:offset:length:)``).
enum PartReader {
  /// Bytes read (and hashed) per `pread`: the most a read buffer holds.
  static let chunk = 1 << 20

  /// `digest` fed with the bytes of `range` of `descriptor`, read through `buffer`.
  ///
  /// The buffer is used only until this returns (the read runs to its end even when the task
  /// is cancelled, so no pointer into it outlives the call).
  ///
  /// - Throws: `StorageError(.localIO)` when the file cannot be read or ends before the range.
  static func digest<Digest: RunningDigest>(
    _ descriptor: Int32, range: Range<Int64>, into digest: Digest, through buffer: ReadBuffer
  ) async throws(StorageError) -> Digest {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<Digest, StorageError>, Never>) in
      DispatchQueue(label: "kodo.transfer.read").async {
        continuation.resume(
          returning: digestBlocking(descriptor, range: range, digest: digest, buffer: buffer))
      }
    }
    return try result.get()
  }

  private static func digestBlocking<Digest: RunningDigest>(
    _ descriptor: Int32, range: Range<Int64>, digest: Digest, buffer: ReadBuffer
  ) -> Result<Digest, StorageError> {
    var digest = digest
    let count = range.upperBound - range.lowerBound
    var done: Int64 = 0
    while done < count {
      let want = Int(min(Int64(buffer.bytes.count), count - done))
      let window = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[..<want])
      let (got, failure) = PositionalFile.read(
        descriptor, into: window, at: range.lowerBound + done)
      digest.update(UnsafeRawBufferPointer(rebasing: window[..<got]))
      done += Int64(got)
      if let failure {
        return .failure(
          StorageError(.localIO, "cannot read the file being uploaded: " + errnoText(failure)))
      }
      if got < want {
        return .failure(
          StorageError(
            .localIO,
            "the file being uploaded ended at byte \(range.lowerBound + done), before the "
              + "\(range.upperBound) bytes it had; it changed during the upload"))
      }
    }
    return .success(digest)
  }
}

/// Memory the engine reads parts through, allocated once and freed when the last reference
/// goes (never while a read holds it: the reader keeps a reference for the whole read).
///
/// `@unchecked Sendable` invariant: one reader uses a buffer at a time; it is taken from its
/// ``ReadBuffers`` pool and only given back once that read ended.
final class ReadBuffer: @unchecked Sendable {
  /// The buffer's bytes (at least one).
  let bytes: UnsafeMutableRawBufferPointer

  /// A buffer of `capacity` bytes (at least one).
  init(capacity: Int) {
    bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, capacity), alignment: 16)
  }

  deinit { bytes.deallocate() }
}

/// The read buffers of one upload: a buffer is made only when none is free, so the pool holds
/// at most as many as were in use at once (at most ``MultipartUpload/Options/parallel``).
final class ReadBuffers: Sendable {
  /// The size of every buffer.
  let capacity: Int
  private let make: @Sendable (Int) -> ReadBuffer
  private let free = Mutex<[ReadBuffer]>([])
  private let gauge: BufferGauge

  /// Buffers of `capacity` bytes from `make`, each counted in `gauge` when made.
  init(capacity: Int, make: @escaping @Sendable (Int) -> ReadBuffer, gauge: BufferGauge) {
    self.capacity = max(1, capacity)
    self.make = make
    self.gauge = gauge
  }

  /// A free buffer, or a new one.
  func take() -> ReadBuffer {
    if let buffer = free.withLock({ $0.popLast() }) { return buffer }
    gauge.hold(Int64(capacity))
    return make(capacity)
  }

  /// `buffer` is free again (its read ended).
  func give(_ buffer: ReadBuffer) {
    free.withLock { $0.append(buffer) }
  }
}
