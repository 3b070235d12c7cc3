/// One object's outcome in a batch of server-side copies or moves.
public struct TransferOutcome: Sendable, Equatable {
  /// The copy or move.
  public var request: CopyRequest
  /// Why it was not done, or `nil` when it was.
  public var error: StorageError?

  /// An outcome from its parts.
  public init(request: CopyRequest, error: StorageError? = nil) {
    self.request = request
    self.error = error
  }
}

/// A provider whose service copies or moves many objects in one request (Kodo's `/batch`).
/// Providers without one get `transferBatch` from `ObjectWriting`: a copy of each object, a
/// check of each copy, and for a move the checked sources deleted in batches.
public protocol BatchTransferring: ObjectWriting {
  /// Copies or moves every request with the service's own operations, answering one outcome
  /// per request in order; an existing destination that may not be replaced is that request's
  /// `.exists`.
  ///
  /// - Throws: `StorageError` when a request as a whole failed.
  func transferOnService(_ requests: [CopyRequest], move: Bool) async throws(StorageError)
    -> [TransferOutcome]
}

extension ObjectWriting {
  /// How many copies run at once where each object is its own request (OSS).
  static var transferConcurrency: Int { 8 }

  /// The most requests one `transferBatch` call should get: a service batch's limit (1000 on
  /// Kodo), else 100, so that an interruption leaves few copies whose sources are still to
  /// be deleted (their deletes go in one batch at the end of each call).
  public var transferBatchLimit: Int {
    self is any BatchTransferring ? batchDeleteLimit : min(100, batchDeleteLimit)
  }

  /// Copies or moves `requests` on the service (nothing is downloaded), answering one outcome
  /// per request in order. Nothing is lost at any moment: a source is deleted only after its
  /// destination holds the same content, by the service's own move or by a copy checked
  /// against the source (size, then CRC-64, hash or ETag).
  ///
  /// An existing destination that may not be replaced is `.exists`, unless it already holds
  /// the source's content: then the request counts as done (a rerun after an interruption),
  /// and for a move its source is deleted.
  ///
  /// - Throws: `StorageError` when the service's batch request failed as a whole (which of its
  ///   operations ran is unknown; none lost anything, and a rerun finishes them), or
  ///   `.cancelled`.
  public func transferBatch(_ requests: [CopyRequest], move: Bool) async throws(StorageError)
    -> [TransferOutcome]
  {
    var outcomes: [TransferOutcome]
    // The outcomes whose source is still to be deleted.
    var sourcesLeft: [Int] = []
    if let service = self as? any BatchTransferring {
      outcomes = try await service.transferOnService(requests, move: move)
      for index in outcomes.indices {
        let outcome = outcomes[index]
        guard let error = outcome.error, error.kind == .exists, !outcome.request.overwrite
        else { continue }
        do {
          guard try await holdsSource(outcome.request) else { continue }
        } catch {
          if error.kind == .cancelled { throw error }
          outcomes[index].error = error
          continue
        }
        outcomes[index].error = nil
        if move { sourcesLeft.append(index) }
      }
    } else {
      outcomes = try await copyEach(requests, move: move)
      if move { sourcesLeft = outcomes.indices.filter { outcomes[$0].error == nil } }
    }
    try await deleteSources(of: sourcesLeft, in: &outcomes)
    return outcomes
  }

  /// Copies each request, up to `transferConcurrency` at once (an existing destination that
  /// already holds the source's content counts as copied); for a move, each copy is then
  /// checked against its source: by the copy's answer where it carries the listed source's
  /// ETag (one request per object), else by reading both objects' details.
  private func copyEach(_ requests: [CopyRequest], move: Bool) async throws(StorageError)
    -> [TransferOutcome]
  {
    var outcomes = requests.map { TransferOutcome(request: $0) }
    let limit = Self.transferConcurrency
    await withTaskGroup(of: (Int, StorageError?).self) { group in
      var next = 0
      func start() {
        guard next < requests.count else { return }
        let index = next
        let request = requests[index]
        next += 1
        group.addTask {
          do throws(StorageError) {
            let shown = try await self.copyOrFindCopied(request)
            if move, !shown, !(try await self.holdsSource(request)) {
              throw StorageError(
                .protocolError,
                "the copy \(request.destination) cannot be shown to hold the content of \(request.source) (size, CRC-64, hash or ETag differ or are missing); the source was kept"
              )
            }
            return (index, nil)
          } catch {
            return (index, error)
          }
        }
      }
      for _ in 0..<min(limit, requests.count) { start() }
      while let (index, error) = await group.next() {
        outcomes[index].error = error
        start()
      }
    }
    if Task.isCancelled || outcomes.contains(where: { $0.error?.kind == .cancelled }) {
      throw StorageError(.cancelled, "cancelled")
    }
    return outcomes
  }

  /// Copies `request`; an existing destination that may not be replaced but already holds the
  /// source's content counts as copied. Answers whether the copy is shown to hold the source's
  /// content already: the service's answer carries the ETag the listing gave the source
  /// (`sourceETag`; the service copies the ETag with the content), or the destination was
  /// compared with the source. Otherwise a move must compare them (`holdsSource`).
  private func copyOrFindCopied(_ request: CopyRequest) async throws(StorageError) -> Bool {
    do {
      let copied = try await copy(request)
      guard let listed = request.sourceETag, !listed.isEmpty, let etag = copied.etag else {
        return false
      }
      return etag == listed
    } catch  where error.kind == .exists && !request.overwrite {
      guard try await holdsSource(request) else { throw error }
      return true
    }
  }

  /// Whether the destination of `request` holds its source's content (size, then CRC-64, hash
  /// or ETag); `false` when either is missing.
  private func holdsSource(_ request: CopyRequest) async throws(StorageError) -> Bool {
    do {
      let source = try await stat(bucket: request.source.bucket, key: request.source.key)
      let copied = try await stat(
        bucket: request.destination.bucket, key: request.destination.key)
      return ObjectMoveCheck.sameContent(source, copied) != nil
    } catch  where error.kind == .notFound {
      return false
    }
  }

  /// Deletes the sources of the outcomes at `indices`, in batches per bucket; a source that
  /// could not be deleted makes its outcome's error (its copy is in place).
  private func deleteSources(of indices: [Int], in outcomes: inout [TransferOutcome])
    async throws(StorageError)
  {
    var start = 0
    while start < indices.count {
      let bucket = outcomes[indices[start]].request.source.bucket
      var chunk: [Int] = []
      var position = start
      while position < indices.count, chunk.count < batchDeleteLimit,
        outcomes[indices[position]].request.source.bucket == bucket
      {
        chunk.append(indices[position])
        position += 1
      }
      start = position
      let keys = chunk.map { outcomes[$0].request.source.key }
      do {
        let deleted = try await deleteBatch(bucket: bucket, keys: keys)
        for (index, result) in zip(chunk, deleted) {
          // A source gone already is what a move wants.
          if let error = result.error, error.kind != .notFound { outcomes[index].error = error }
        }
      } catch {
        if error.kind == .cancelled { throw error }
        for index in chunk { outcomes[index].error = error }
      }
    }
  }
}
