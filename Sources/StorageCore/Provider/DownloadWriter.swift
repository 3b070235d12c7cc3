import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one writer of every download (`get`, `get -r`, `cat`, the browser), for every provider.
///
/// It owns the offset of everything it writes: every attempt starts where the bytes kept so far
/// end, and asks the service for exactly the rest (`Range: bytes=N-`), so a download cut short is
/// resumed and never rewound, emptied or written twice. On a descriptor that can be positioned
/// (a regular file opened without `O_APPEND`) each attempt first puts the descriptor at that
/// offset, and the offset an attempt reached is read back from the descriptor, not taken on
/// trust. On a stream (a pipe, a terminal, `>> file`) the bytes follow one another; an attempt
/// whose count is unknown cannot be resumed. Before a download is reported complete, exactly the
/// expected number of bytes must have been written (`finish`).
public final class DownloadWriter: Sendable {
  /// Where the bytes go.
  public let descriptor: Int32
  /// Takes every byte written, in order (for a digest of the whole download as it streams).
  public let digest: StreamedDigest?
  /// Where the download's first byte went, on a descriptor that can be positioned.
  private let start: Int64?
  private let state = Mutex(State())

  private struct State {
    var written: Int64 = 0
    /// Whether `written` is known (an attempt on a stream that did not say what it wrote).
    var known = true
  }

  /// A writer to `descriptor` from its current offset.
  public init(descriptor: Int32, digest: StreamedDigest? = nil) {
    self.descriptor = descriptor
    self.digest = digest
    var status = stat()
    let flags = fcntl(descriptor, F_GETFL)
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, flags >= 0,
      flags & O_APPEND == 0
    {
      let offset = lseek(descriptor, 0, SEEK_CUR)
      start = offset >= 0 ? Int64(offset) : nil
    } else {
      start = nil
    }
  }

  /// The download's bytes written so far.
  public var written: Int64 { state.withLock { $0.written } }

  /// One attempt of the transport: the descriptor is put at the end of the bytes kept, `body`
  /// writes, and what it wrote is kept. A failure leaves `writtenBytes` saying what this attempt
  /// wrote.
  public func attempt(_ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
    let (before, known) = state.withLock { ($0.written, $0.known) }
    guard known else {
      throw StorageError(
        .localIO, "the download cannot go on: how much of it was written is not known")
    }
    if let start {
      let offset = start + before
      guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
        throw StorageError(
          .localIO,
          "cannot go back to byte \(before) of the download: \(Errno(rawValue: errno))")
      }
    }
    digest?.restart()
    do {
      var response = try await body()
      response.streamedByteCount = keep(reported: response.streamedByteCount, after: before)
      return response
    } catch var error as StorageError {
      let count = keep(reported: error.writtenBytes, after: before)
      if count >= 0 { error.writtenBytes = count }
      throw error
    }
  }

  /// Takes the bytes an attempt wrote after `before` as kept; returns their count (-1: unknown).
  private func keep(reported: Int64?, after before: Int64) -> Int64 {
    var count = reported ?? -1
    if let start {
      // The descriptor says what was really written.
      let offset = lseek(descriptor, 0, SEEK_CUR)
      count = offset >= 0 ? Int64(offset) - start - before : -1
    }
    digest?.keep()
    state.withLock { state in
      if count >= 0 { state.written = before + count } else { state.known = false }
    }
    return count
  }

  /// Runs `call` until the download is complete: first for the whole object (or `range`), then,
  /// after an attempt that wrote bytes and failed as another attempt may mend (a dropped
  /// connection, a body cut short, a 5xx), for the rest, from the byte after the last one kept.
  /// A call that makes no progress ends it, and at most `maxRounds` calls that got less than
  /// `freeProgress` bytes further are made (a call that got that far is not a retry spent).
  ///
  /// - Parameters:
  ///   - range: the object's bytes wanted (`nil`: all of them).
  ///   - expectedSize: the download's length (`range`'s, when given); without it there is no
  ///     resuming.
  ///   - maxRounds: the most calls that count as retries.
  ///   - freeProgress: how far a call must get not to count.
  ///   - call: one request, for the object's bytes from `from` on (`nil`: the whole object, no
  ///     `Range`) with `remaining` bytes expected, every attempt going through `attempt`.
  /// - Returns: `call`'s result, its byte count the whole download's, once `finish` found the
  ///   download whole.
  /// - Throws: `StorageError`: the last call's failure, or `finish`'s.
  public func run(
    range: ClosedRange<Int64>?, expectedSize: Int64?, maxRounds: Int,
    freeProgress: Int64 = 1 << 20,
    _ call: (_ from: Int64?, _ remaining: Int64?) async throws(StorageError) -> DownloadResult
  ) async throws(StorageError) -> DownloadResult {
    var rounds = 1
    while true {
      let before = written
      let from: Int64? = range != nil || before > 0 ? (range?.lowerBound ?? 0) + before : nil
      do {
        var result = try await call(from, expectedSize.map { $0 - before })
        try finish(expectedSize: expectedSize)
        result.byteCount = written
        return result
      } catch {
        let resumable =
          (error.kind == .temporary || error.kind == .unavailable) && expectedSize != nil
          && written > before && state.withLock({ $0.known }) && rounds < maxRounds
        guard resumable else { throw error }
        if written - before < freeProgress { rounds += 1 }
      }
    }
  }

  /// Checks that the download is whole: `expectedSize` bytes written and, on a descriptor that
  /// can be positioned, the descriptor just after them.
  public func finish(expectedSize: Int64?) throws(StorageError) {
    let (written, known) = state.withLock { ($0.written, $0.known) }
    guard known, expectedSize.map({ $0 == written }) ?? true else {
      throw StorageError(
        .protocolError,
        "the download came to \(known ? String(written) : "an unknown number of") bytes where \(expectedSize.map(String.init) ?? "?") were expected"
      )
    }
    if let start, lseek(descriptor, 0, SEEK_CUR) != off_t(start + written) {
      throw StorageError(
        .localIO, "the file written ends elsewhere than the download's \(written) bytes")
    }
  }
}
