public import StorageCore

extension OSSClient: ObjectWriting {
  /// At most 1000 keys a DeleteMultipleObjects.
  public var batchDeleteLimit: Int { 1000 }

  /// PutObject with `Content-MD5` (OSS refuses a body that does not match it), checking the
  /// answer's CRC-64 against the body's. Without `overwrite`, `x-oss-forbid-overwrite: true`:
  /// an existing object is `.exists`, unless it already holds exactly these bytes (as on
  /// Kodo; it also makes a retried upload whose first attempt worked a success).
  public func put(_ request: PutRequest) async throws(StorageError) -> WriteResult {
    let destination = request.destination
    try OSSWriteChecks.validate(destination)
    var headers: HTTPHeaders = [
      "Content-MD5": OSSWriteRequests.contentMD5(request.body),
      "Content-Type": request.contentType ?? "application/octet-stream",
    ]
    if !request.overwrite { headers.add("x-oss-forbid-overwrite", "true") }
    for entry in request.metadata {
      try OSSWriteChecks.validate(entry)
      headers.add("x-oss-meta-" + entry.name, entry.value)
    }
    if let storageClass = request.storageClass {
      headers.add("x-oss-storage-class", try OSSWriteChecks.serviceName(of: storageClass))
    }
    let crc = CRC64.checksum(request.body)
    let what = "the upload of \(destination)"
    let response: HTTPResponse
    do {
      response = try await perform(
        OSSWriteRequests.put(bucket: destination.bucket, key: destination.key, headers: headers),
        what: what, key: destination.key, body: .bytes(request.body))
    } catch  where error.kind == .exists {
      let existing = try await stat(bucket: destination.bucket, key: destination.key)
      guard existing.object.size == Int64(request.body.count), existing.crc64 == String(crc)
      else { throw error }
      return WriteResult(
        etag: existing.object.etag, crc64: existing.crc64, requestID: error.requestID)
    }
    return try OSSWriteChecks.checked(response, crc: crc, what: what)
  }

  /// DeleteObject (OSS answers success for a key that does not exist).
  public func delete(_ object: ObjectLocation) async throws(StorageError) {
    try OSSBucketName.validate(object.bucket)
    _ = try await perform(
      OSSWriteRequests.delete(bucket: object.bucket, key: object.key),
      what: "the delete of \(object)", key: object.key)
  }

  /// DeleteMultipleObjects in verbose mode, at most 1000 keys a request, every key's outcome
  /// read from the answer (a key the answer does not name is an error); keys XML cannot carry
  /// go through DeleteObject one by one.
  public func deleteBatch(bucket: String, keys: [String]) async throws(StorageError)
    -> [DeleteOutcome]
  {
    try OSSBucketName.validate(bucket)
    // By bytes (`ExactKey`): two keys that differ only in their Unicode normalization are two
    // objects, and one's outcome must not be taken for the other's.
    var errors: [ExactKey: StorageError] = [:]
    let batchable = keys.filter(OSSWriteRequests.canBatchDelete)
    var start = 0
    while start < batchable.count {
      let chunk = Array(batchable[start..<min(start + batchDeleteLimit, batchable.count)])
      start += chunk.count
      guard let body = OSSWriteRequests.deleteBody(keys: chunk, quiet: false) else { continue }
      let what = "the delete of \(chunk.count) keys in bucket \(DisplayText.quoted(bucket))"
      var request = OSSWriteRequests.deleteMultiple(bucket: bucket, body: body)
      request.headers.add("Content-Type", "application/xml")
      let response = try await perform(request, what: what, body: .bytes(body))
      let requestID = response.headers[OSSErrors.requestIDHeader]
      let result = try OSSAnswers.deleteResult(response.body, requestID: requestID)
      for failure in result.errors {
        errors[ExactKey(failure.key)] = StorageError(
          OSSErrors.kind(code: failure.code, status: 0, message: failure.message),
          "OSS did not delete \(DisplayText.quoted(failure.key)) in bucket \(DisplayText.quoted(bucket)) (\(DisplayText.escaped(failure.code))\(failure.message.map { ": " + DisplayText.escaped($0) } ?? ""))",
          serviceCode: failure.code, serverMessage: failure.message, requestID: requestID)
      }
      let deleted = Set(result.deleted.map { ExactKey($0) })
      for key in chunk where !deleted.contains(ExactKey(key)) && errors[ExactKey(key)] == nil {
        errors[ExactKey(key)] = StorageError(
          .protocolError,
          "OSS's answer to \(what) does not say whether \(DisplayText.quoted(key)) was deleted",
          requestID: requestID)
      }
    }
    var outcomes: [DeleteOutcome] = []
    outcomes.reserveCapacity(keys.count)
    for key in keys {
      if OSSWriteRequests.canBatchDelete(key) {
        outcomes.append(DeleteOutcome(key: key, error: errors[ExactKey(key)]))
        continue
      }
      do {
        try await delete(ObjectLocation(bucket: bucket, key: key))
        outcomes.append(DeleteOutcome(key: key))
      } catch {
        guard error.kind != .cancelled else { throw error }
        outcomes.append(DeleteOutcome(key: key, error: error))
      }
    }
    return outcomes
  }

  /// CopyObject (metadata copied), or above 1 GiB UploadPartCopy in 64 MiB parts. Without
  /// `overwrite`, an existing destination is `.exists` unless it already holds the source's
  /// content. Answers CopyObject's ETag and `x-oss-hash-crc64ecma` (nothing for a copy in
  /// parts, or a destination found to hold the content already).
  @discardableResult
  public func copy(_ request: CopyRequest) async throws(StorageError) -> WriteResult {
    try OSSWriteChecks.validate(request.source)
    try OSSWriteChecks.validate(request.destination)
    let size: Int64
    if let known = request.sourceSize {
      size = known
    } else {
      size = try await stat(bucket: request.source.bucket, key: request.source.key).object.size
    }
    do {
      if size > OSSWriteChecks.copyObjectLimit {
        try await multipartCopy(request, size: size)
        return WriteResult()
      }
      var headers: HTTPHeaders = ["x-oss-metadata-directive": "COPY"]
      if !request.overwrite { headers.add("x-oss-forbid-overwrite", "true") }
      let response = try await perform(
        OSSWriteRequests.copy(
          from: request.source, bucket: request.destination.bucket,
          key: request.destination.key, headers: headers),
        what: "the copy of \(request.source) to \(request.destination)",
        key: request.source.key)
      let requestID = response.headers[OSSErrors.requestIDHeader]
      let etag = try OSSAnswers.resultETag(
        response.body, root: "CopyObjectResult", requestID: requestID)
      return WriteResult(
        etag: etag, crc64: response.headers["x-oss-hash-crc64ecma"], requestID: requestID)
    } catch  where error.kind == .exists {
      let source = try await stat(bucket: request.source.bucket, key: request.source.key)
      let existing = try await stat(
        bucket: request.destination.bucket, key: request.destination.key)
      guard ObjectMoveCheck.sameContent(source, existing) != nil else { throw error }
      return WriteResult(etag: existing.object.etag, crc64: existing.crc64)
    }
  }

  /// A copy onto itself with `x-oss-metadata-directive: REPLACE`, carrying the object's
  /// content type, caching headers, storage class and every `x-oss-meta-` entry as they are,
  /// with `change` applied; only if the object is still the one read (`x-oss-copy-source-if-match`,
  /// else `.preconditionFailed`).
  ///
  /// REPLACE drops whatever the request does not name, so keeping the other entries needs a
  /// read (HEAD) before the write. That read-then-write is acceptable here, unlike a stat
  /// before an upload to decide whether it may overwrite: it creates and replaces no content
  /// (the source and the destination are the same bytes), and the copy is conditional on the
  /// ETag read, so an object replaced in between makes it fail instead of giving the new
  /// content the old object's headers. What remains is a concurrent metadata change of the same
  /// content, where the last change wins, as with Kodo's `chgm`.
  public func changeMetadata(_ object: ObjectLocation, _ change: MetadataChange)
    async throws(StorageError)
  {
    try OSSWriteChecks.validate(object)
    for entry in change.metadata { try OSSWriteChecks.validate(entry) }
    let head = try await perform(
      OSSRequest(method: "HEAD", bucket: object.bucket, key: object.key),
      what: "the details of \(object)", key: object.key)
    var headers = OSSWriteChecks.replacedMetadata(head.headers, change: change)
    headers.add("x-oss-metadata-directive", "REPLACE")
    if let etag = head.headers["ETag"] { headers.add("x-oss-copy-source-if-match", etag) }
    let response = try await perform(
      OSSWriteRequests.copy(from: object, bucket: object.bucket, key: object.key, headers: headers),
      what: "the metadata change of \(object)", key: object.key)
    _ = try OSSAnswers.resultETag(
      response.body, root: "CopyObjectResult",
      requestID: response.headers[OSSErrors.requestIDHeader])
  }

  /// A copy onto itself with the new `x-oss-storage-class` (metadata copied).
  public func changeStorageClass(_ object: ObjectLocation, to storageClass: StorageClass)
    async throws(StorageError)
  {
    try OSSWriteChecks.validate(object)
    let headers: HTTPHeaders = [
      "x-oss-metadata-directive": "COPY",
      "x-oss-storage-class": try OSSWriteChecks.serviceName(of: storageClass),
    ]
    let response = try await perform(
      OSSWriteRequests.copy(from: object, bucket: object.bucket, key: object.key, headers: headers),
      what: "the storage class change of \(object)", key: object.key)
    _ = try OSSAnswers.resultETag(
      response.body, root: "CopyObjectResult",
      requestID: response.headers[OSSErrors.requestIDHeader])
  }

  /// RestoreObject for `days` days (1 to 7); a restore already under way is not an error (it is
  /// also what a retry of a request that worked hears). An object that is not archived is
  /// `.invalidInput` (`OperationNotSupported`), said as such.
  public func restore(_ object: ObjectLocation, days: Int) async throws(StorageError) {
    try OSSWriteChecks.validate(object)
    guard (1...7).contains(days) else {
      throw StorageError(
        .invalidInput, "OSS restores archived objects for 1 to 7 days, not \(days)")
    }
    let body = OSSWriteRequests.restoreBody(days: days)
    do {
      _ = try await perform(
        OSSWriteRequests.restore(bucket: object.bucket, key: object.key, body: body),
        what: "the restore of \(object)", key: object.key, body: .bytes(body))
    } catch  where error.serviceCode == "RestoreAlreadyInProgress" {
      return
    } catch  where error.serviceCode == "OperationNotSupported" {
      var said = error
      said.message =
        "the restore of \(object): only archived objects (Archive, ColdArchive, DeepColdArchive) are restored, and this one is not archived (OperationNotSupported)"
      throw said
    }
  }
}
