public import StorageCore

extension KodoClient {
  /// Runs one rs management operation (`POST https://<rs><path>`, signed `Qiniu`).
  ///
  /// Moves and copies are sent once (another attempt after one that worked would fail with 612
  /// or 614 and misreport it); the others are retried as reads are.
  public func perform(_ operation: KodoOperation) async throws(StorageError) {
    let object = operation.object
    try BucketName.validate(object.bucket)
    let context = CallContext(
      what: Self.describe(operation), bucket: object.bucket, key: object.key)
    _ = try await perform(
      method: "POST", bases: bases(for: .rs, bucket: object.bucket), path: operation.path,
      authorization: .qiniu, context: context, idempotency: Self.idempotency(of: operation))
  }

  /// Runs operations through `/batch`, at most `KodoBatch.limit` a request, all on the rs host
  /// of the first operation's bucket (a batch stays in one region). Answers one result per
  /// operation, in order; a failure of one operation is its result, not an error.
  ///
  /// A batch is sent once: another attempt could repeat operations that already ran.
  ///
  /// - Throws: `StorageError` when a request as a whole failed.
  public func batch(_ operations: [KodoOperation]) async throws(StorageError) -> [KodoBatch.Result]
  {
    guard let first = operations.first else { return [] }
    return try await batch(count: operations.count, bucket: first.object.bucket) {
      KodoBatch.body(operations[$0])
    }
  }

  /// `batch` of `count` operations about `bucket`, whose form body for the operations in a range
  /// `body` writes: a batch of deletes writes it from the keys.
  private func batch(count: Int, bucket: String, body: (Range<Int>) -> [UInt8])
    async throws(StorageError) -> [KodoBatch.Result]
  {
    try BucketName.validate(bucket)
    let bases = try await bases(for: .rs, bucket: bucket)
    var results: [KodoBatch.Result] = []
    results.reserveCapacity(count)
    var start = 0
    while start < count {
      let chunk = start..<min(start + KodoBatch.limit, count)
      let context = CallContext(
        what: "a batch of \(chunk.count) operations in bucket \(DisplayText.quoted(bucket))",
        bucket: bucket)
      let (response, _) = try await perform(
        method: "POST", bases: bases, path: "/batch", authorization: .qiniu, context: context,
        body: .bytes(body(chunk)), idempotency: .unsafe)
      results += try KodoBatch.results(
        response.body, expected: chunk.count, requestID: response.requestID)
      start += chunk.count
    }
    return results
  }

  /// The error for one failed result of a batch about `operation`, worded as if it had been
  /// sent alone.
  package static func error(for result: KodoBatch.Result, of operation: KodoOperation)
    -> StorageError
  {
    var body: [UInt8] = Array(#"{"error":"#.utf8)
    JSONText.appendString(result.error ?? "", to: &body)
    body.append(UInt8(ascii: "}"))
    let object = operation.object
    return error(
      for: HTTPResponse(status: result.code, body: result.error == nil ? [] : body),
      context: CallContext(what: describe(operation), bucket: object.bucket, key: object.key))
  }

  /// Whether another attempt of `operation` after one that may have worked is harmless: a stat
  /// changes nothing; a delete, a move or a copy that may not replace would fail (612, 614)
  /// where the first worked (`docs/write-engine.md`).
  static func idempotency(of operation: KodoOperation) -> Idempotency {
    switch operation {
    case .stat: .safe
    case .copy(_, _, force: true): .idempotent
    case .delete, .move, .copy: .unsafe
    default: .idempotent
    }
  }

  /// What an operation is about, for messages.
  static func describe(_ operation: KodoOperation) -> String {
    func name(_ location: ObjectLocation) -> String {
      DisplayText.quoted(location.bucket + ":" + location.key)
    }
    switch operation {
    case .delete(let object, _): return "the delete of \(name(object))"
    case .move(let source, let destination, _):
      return "the move of \(name(source)) to \(name(destination))"
    case .copy(let source, let destination, _):
      return "the copy of \(name(source)) to \(name(destination))"
    case .changeMetadata(let object, _, _): return "the metadata change of \(name(object))"
    case .changeType(let object, _): return "the storage class change of \(name(object))"
    case .changeStatus(let object, _): return "the status change of \(name(object))"
    case .deleteAfterDays(let object, _), .lifecycle(let object, _, _):
      return "the lifecycle change of \(name(object))"
    case .restoreArchive(let object, _): return "the restore of \(name(object))"
    case .stat(let object): return "the stat of \(name(object))"
    }
  }
}

extension KodoClient: ServerSideMoving {
  /// At most 1000 keys a `/batch`.
  public var batchDeleteLimit: Int { KodoBatch.limit }

  /// `/delete`; a missing key is `.notFound` (612).
  public func delete(_ object: ObjectLocation) async throws(StorageError) {
    try await perform(.delete(object))
  }

  /// `/batch` of deletes; each key's 612 or other code is its outcome's error.
  public func deleteBatch(bucket: String, keys: [String]) async throws(StorageError)
    -> [DeleteOutcome]
  {
    guard !keys.isEmpty else { return [] }
    // Written from the keys: no operation is made for each (a failed one names its own).
    let results = try await batch(count: keys.count, bucket: bucket) {
      KodoBatch.deleteBody(bucket: bucket, keys: keys[$0])
    }
    var outcomes: [DeleteOutcome] = []
    outcomes.reserveCapacity(keys.count)
    for (key, result) in zip(keys, results) {
      outcomes.append(
        DeleteOutcome(
          key: key,
          error: result.code == 200
            ? nil
            : Self.error(for: result, of: .delete(ObjectLocation(bucket: bucket, key: key)))))
    }
    return outcomes
  }

  /// `/copy` with `force` when overwriting is allowed (else 614 → `.exists`); Kodo's answer
  /// carries nothing of the copy.
  @discardableResult
  public func copy(_ request: CopyRequest) async throws(StorageError) -> WriteResult {
    try BucketName.validate(request.destination.bucket)
    try await perform(.copy(request.source, to: request.destination, force: request.overwrite))
    return WriteResult()
  }

  /// `/move`, Kodo's own (across buckets of one region too).
  public func moveOnService(_ request: CopyRequest) async throws(StorageError) {
    try BucketName.validate(request.destination.bucket)
    try await perform(.move(request.source, to: request.destination, force: request.overwrite))
  }

  /// `/chgm`: the MIME type and the named `x-qn-meta-` entries; Kodo keeps the others.
  public func changeMetadata(_ object: ObjectLocation, _ change: MetadataChange)
    async throws(StorageError)
  {
    for entry in change.metadata { try KodoOperation.validateMetadataName(entry.name) }
    guard change.contentType != nil || !change.metadata.isEmpty else { return }
    try await perform(
      .changeMetadata(object, mimeType: change.contentType, metadata: change.metadata))
  }

  /// `/chtype` with Kodo's number for the class.
  public func changeStorageClass(_ object: ObjectLocation, to storageClass: StorageClass)
    async throws(StorageError)
  {
    guard let type = StorageClass.kodoType(named: storageClass) else {
      throw StorageError(
        .invalidInput,
        "Kodo has no storage class \(DisplayText.quoted(storageClass.name)); it has \(StorageClass.kodoNames.joined(separator: ", "))"
      )
    }
    try await perform(.changeType(object, type: type))
  }

  /// `/restoreAr` for 1 to 7 days.
  public func restore(_ object: ObjectLocation, days: Int) async throws(StorageError) {
    guard (1...7).contains(days) else {
      throw StorageError(
        .invalidInput, "Kodo restores archived objects for 1 to 7 days, not \(days)")
    }
    try await perform(.restoreArchive(object, days: days))
  }
}

extension KodoClient: ObjectStatusChanging {
  /// `/chstatus` with 0 (enabled) or 1 (disabled).
  public func changeStatus(_ object: ObjectLocation, to status: ObjectStatus)
    async throws(StorageError)
  {
    let number: Int
    switch status {
    case .enabled: number = 0
    case .disabled: number = 1
    case .unknown:
      throw StorageError(
        .invalidInput, "an object's status is enabled or disabled, not \(status.name)")
    }
    try await perform(.changeStatus(object, status: number))
  }
}

extension KodoClient: BatchTransferring {
  /// `/batch` of `move` or `copy` operations with `force` as each request allows (614 →
  /// `.exists`), at most `KodoBatch.limit` a request.
  public func transferOnService(_ requests: [CopyRequest], move: Bool) async throws(StorageError)
    -> [TransferOutcome]
  {
    for request in requests { try BucketName.validate(request.destination.bucket) }
    let operations = requests.map { request in
      move
        ? KodoOperation.move(request.source, to: request.destination, force: request.overwrite)
        : KodoOperation.copy(request.source, to: request.destination, force: request.overwrite)
    }
    let results = try await batch(operations)
    return zip(requests, zip(operations, results)).map { request, pair in
      let (operation, result) = pair
      return TransferOutcome(
        request: request,
        error: result.code == 200 ? nil : Self.error(for: result, of: operation))
    }
  }
}
