import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads one part of a source file into memory with `pread`, feeding its digest in the same pass
/// (each chunk is hashed while it is still in the cache), on a thread of its own: never on the
/// Swift cooperative pool.
enum PartReader {
  /// Bytes read (and hashed) per `pread`.
  static let chunk = 1 << 20

  /// The bytes of `range` of `descriptor`, and `digest` fed with them.
  ///
  /// - Throws: `StorageError(.localIO)` when the file cannot be read or ends before the range.
  static func read<Digest: RunningDigest>(
    _ descriptor: Int32, range: Range<Int64>, digest: Digest
  ) async throws(StorageError) -> ([UInt8], Digest) {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<([UInt8], Digest), StorageError>, Never>) in
      DispatchQueue(label: "kodo.transfer.read").async {
        continuation.resume(returning: readBlocking(descriptor, range: range, digest: digest))
      }
    }
    return try result.get()
  }

  private static func readBlocking<Digest: RunningDigest>(
    _ descriptor: Int32, range: Range<Int64>, digest: Digest
  ) -> Result<([UInt8], Digest), StorageError> {
    var digest = digest
    var failure: StorageError?
    let count = Int(range.upperBound - range.lowerBound)
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      var done = 0
      while done < count {
        let want = min(chunk, count - done)
        let target = UnsafeMutableRawBufferPointer(
          UnsafeMutableBufferPointer(rebasing: buffer[done..<(done + want)]))
        let got = pread(descriptor, target.baseAddress, want, off_t(range.lowerBound + Int64(done)))
        if got < 0 {
          let number = errno
          if number == EINTR { continue }
          failure = StorageError(
            .localIO, "cannot read the file being uploaded: " + errnoText(number))
          break
        }
        if got == 0 {
          failure = StorageError(
            .localIO,
            "the file being uploaded ended at byte \(range.lowerBound + Int64(done)), before the "
              + "\(range.upperBound) bytes it had; it changed during the upload")
          break
        }
        digest.update(UnsafeRawBufferPointer(rebasing: target[..<got]))
        done += got
      }
      // What was not read is never used: the array is dropped with the failure.
      if failure != nil, done < count {
        UnsafeMutableBufferPointer(rebasing: buffer[done...]).initialize(repeating: 0)
      }
      initialized = count
    }
    if let failure { return .failure(failure) }
    return .success((bytes, digest))
  }
}
