public import StorageCore

extension OSSClient {
  /// InitiateMultipartUpload: the new upload's id. `headers` apply to the final object (its
  /// content type, `x-oss-forbid-overwrite`, metadata, storage class).
  public func initiateMultipartUpload(
    _ destination: ObjectLocation, headers: HTTPHeaders = [:]
  ) async throws(StorageError) -> String {
    try OSSWriteChecks.validate(destination)
    let response = try await perform(
      OSSWriteRequests.initiate(bucket: destination.bucket, key: destination.key, headers: headers),
      what: "the start of a multipart upload to \(destination)", key: destination.key,
      idempotency: .unsafe)
    return try OSSAnswers.initiatedUploadID(
      response.body, requestID: response.headers[OSSErrors.requestIDHeader])
  }

  /// CompleteMultipartUpload with `parts` (sent in ascending order whatever their order here).
  /// When every part's CRC-64 and size is given (`crcs`, by part number), the object's CRC-64
  /// the answer names must be their combination.
  public func completeMultipartUpload(
    _ destination: ObjectLocation, uploadID: String, parts: [OSSWriteRequests.Part],
    crcs: [Int: (crc: UInt64, size: Int64)] = [:], headers: HTTPHeaders = [:]
  ) async throws(StorageError) -> WriteResult {
    let body = OSSWriteRequests.completeBody(parts)
    let what = "the completion of the multipart upload to \(destination)"
    var all = headers
    all.set("Content-MD5", OSSWriteRequests.contentMD5(body))
    let response = try await perform(
      OSSWriteRequests.complete(
        bucket: destination.bucket, key: destination.key, uploadID: uploadID, headers: all),
      what: what, key: destination.key, body: .bytes(body), idempotency: .unsafe)
    let requestID = response.headers[OSSErrors.requestIDHeader]
    let etag = try OSSAnswers.resultETag(
      response.body, root: "CompleteMultipartUploadResult", requestID: requestID)
    let numbers = parts.map(\.number).sorted()
    let known = numbers.compactMap { crcs[$0] }
    guard known.count == numbers.count, !numbers.isEmpty else {
      return WriteResult(
        etag: etag, crc64: response.headers["x-oss-hash-crc64ecma"], requestID: requestID)
    }
    var result = try OSSWriteChecks.checked(
      response, crc: CRC64.combine(known.map { (crc: $0.crc, size: $0.size) }), what: what)
    result.etag = etag
    return result
  }

  /// AbortMultipartUpload (the upload's parts are dropped).
  public func abortMultipartUpload(_ destination: ObjectLocation, uploadID: String)
    async throws(StorageError)
  {
    try OSSWriteChecks.validate(destination)
    _ = try await perform(
      OSSWriteRequests.abort(bucket: destination.bucket, key: destination.key, uploadID: uploadID),
      what: "the abort of the multipart upload to \(destination)", key: destination.key)
  }

  /// ListParts, every page: the parts already uploaded, by number.
  public func listParts(_ destination: ObjectLocation, uploadID: String)
    async throws(StorageError) -> [OSSPartSummary]
  {
    var parts: [OSSPartSummary] = []
    var marker: Int?
    while true {
      let response = try await perform(
        OSSWriteRequests.listParts(
          bucket: destination.bucket, key: destination.key, uploadID: uploadID, marker: marker),
        what: "the parts of the multipart upload to \(destination)", key: destination.key)
      let page = try OSSAnswers.listParts(
        response.body, requestID: response.headers[OSSErrors.requestIDHeader])
      parts += page.parts
      guard page.isTruncated, let next = page.nextPartNumberMarker else { break }
      guard next > (marker ?? 0) else {
        throw StorageError(
          .protocolError, "OSS's part listing named the marker \(next) again",
          requestID: response.headers[OSSErrors.requestIDHeader])
      }
      marker = next
    }
    return parts.sorted { $0.number < $1.number }
  }

  /// One page of ListMultipartUploads: uploads in progress under `prefix`.
  public func listMultipartUploads(
    bucket: String, prefix: String, keyMarker: String? = nil, uploadIDMarker: String? = nil
  ) async throws(StorageError) -> OSSListUploadsResult {
    try OSSBucketName.validate(bucket)
    let response = try await perform(
      OSSWriteRequests.listUploads(
        bucket: bucket, prefix: prefix, keyMarker: keyMarker, uploadIDMarker: uploadIDMarker),
      what: "the multipart uploads in bucket \(DisplayText.quoted(bucket))")
    return try OSSAnswers.listUploads(
      response.body, requestID: response.headers[OSSErrors.requestIDHeader])
  }

  /// UploadPartCopy: part `partNumber` of the upload from `range` of `source` (all of it when
  /// `nil`); its ETag.
  public func uploadPartCopy(
    from source: ObjectLocation, range: ClosedRange<Int64>?, to destination: ObjectLocation,
    uploadID: String, partNumber: Int
  ) async throws(StorageError) -> String {
    let response = try await perform(
      OSSWriteRequests.uploadPartCopy(
        from: source, range: range, bucket: destination.bucket, key: destination.key,
        uploadID: uploadID, partNumber: partNumber),
      what: "part \(partNumber) of the copy of \(source) to \(destination)", key: source.key)
    return try OSSAnswers.resultETag(
      response.body, root: "CopyPartResult",
      requestID: response.headers[OSSErrors.requestIDHeader])
  }

  /// A copy above CopyObject's limit: a multipart upload of 64 MiB UploadPartCopy parts, in
  /// order; aborted when a part fails.
  func multipartCopy(_ request: CopyRequest, size: Int64) async throws(StorageError) {
    let partSize: Int64 = 64 * 1024 * 1024
    var headers: HTTPHeaders = [:]
    if !request.overwrite { headers.add("x-oss-forbid-overwrite", "true") }
    let destination = request.destination
    let uploadID = try await initiateMultipartUpload(destination, headers: headers)
    do {
      var parts: [OSSWriteRequests.Part] = []
      var offset: Int64 = 0
      while offset < size {
        let last = min(offset + partSize, size) - 1
        let number = parts.count + 1
        let etag = try await uploadPartCopy(
          from: request.source, range: offset...last, to: destination, uploadID: uploadID,
          partNumber: number)
        parts.append(OSSWriteRequests.Part(number: number, etag: etag))
        offset = last + 1
      }
      _ = try await completeMultipartUpload(
        destination, uploadID: uploadID, parts: parts, headers: headers)
    } catch {
      try? await abortMultipartUpload(destination, uploadID: uploadID)
      throw error
    }
  }
}
