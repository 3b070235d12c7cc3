public import StorageCore

/// A Kodo part's digests, both fed by the engine's one read of the part: the MD5 Kodo checks
/// (`Content-MD5`), and the SHA-1 the object's hash is checked against after completion
/// (``KodoClient/verifiedResult(of:parts:partSize:size:read:)``), so that the file is not read
/// a second time for it.
public struct KodoPartDigest: RunningDigest {
  /// The part's MD5.
  public var md5 = LaneHash(.md5)
  /// The part's SHA-1.
  public var sha1 = LaneHash(.sha1)

  /// Adds `bytes` to both.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    md5.update(bytes)
    sha1.update(bytes)
  }

  /// Adds `chunks[i]` to `digests[i]`: every part's MD5 and SHA-1 in one pass of the lane
  /// kernels (``LaneHash``).
  public static func update(
    lanes digests: inout [KodoPartDigest], with chunks: [UnsafeRawBufferPointer]
  ) {
    var hashes = digests.map(\.md5) + digests.map(\.sha1)
    LaneHash.update(&hashes, with: chunks + chunks)
    for lane in digests.indices {
      digests[lane].md5 = hashes[lane]
      digests[lane].sha1 = hashes[digests.count + lane]
    }
  }

  /// The MD5 in hex, as Kodo writes it.
  public var text: String { md5.text }
}

/// Kodo's resumable upload v2 for one object, as the transfer engine drives it
/// (`docs/write-protocol.md` §A5): parts of 1 MiB to 1 GiB with their MD5 in hex, completed with
/// the file name, MIME type and metadata. Every request carries a fresh upload token for the
/// key (insert-only unless overwriting is allowed), so a long upload never outlives its token.
public struct KodoMultipartUpload: MultipartUploading {
  /// The client requests go through.
  public let client: KodoClient
  /// The object made.
  public let destination: ObjectLocation
  /// Whether an existing object may be replaced (else 614, `.exists`, at completion).
  public let overwrite: Bool
  /// The content type; `nil` lets Kodo detect it.
  public let contentType: String?
  /// User metadata.
  public let metadata: [MetadataEntry]
  /// The storage class; `nil` for the bucket's default.
  public let storageClass: StorageClass?
  /// The file name Kodo records (`fname`).
  public let fileName: String?

  /// Kodo v2's rules: parts of 1 MiB to 1 GiB (the last may be smaller), at most 10,000.
  public var limits: PartLimits {
    PartLimits(minimumPartSize: 1 << 20, maximumPartSize: 1 << 30, maximumPartCount: 10_000)
  }

  /// An upload of one object; names and the storage class are checked at once.
  ///
  /// - Throws: `.invalidInput` for an empty key, a metadata name Kodo refuses or a class it
  ///   does not have.
  public init(
    client: KodoClient, destination: ObjectLocation, overwrite: Bool = false,
    contentType: String? = nil, metadata: [MetadataEntry] = [], storageClass: StorageClass? = nil,
    fileName: String? = nil
  ) throws(StorageError) {
    try BucketName.validate(destination.bucket)
    guard !destination.key.isEmpty else {
      throw StorageError(.invalidInput, "a multipart upload to Kodo needs a key")
    }
    for entry in metadata { try KodoOperation.validateMetadataName(entry.name) }
    _ = try KodoClient.uploadPolicy(
      bucket: destination.bucket, key: destination.key, deadline: 0, overwrite: overwrite,
      storageClass: storageClass)
    self.client = client
    self.destination = destination
    self.overwrite = overwrite
    self.contentType = contentType
    self.metadata = metadata
    self.storageClass = storageClass
    self.fileName = fileName
  }

  /// A part's MD5 and SHA-1, hashed as the engine reads it.
  public func makePartDigest() -> KodoPartDigest { KodoPartDigest() }

  /// `POST …/uploads`: a new session (sent once: a repeat would leave an orphan).
  public func initiate() async throws(StorageError) -> UploadSession {
    let (response, _) = try await send(
      "POST", KodoResumableV2.initiatePath(bucket: destination.bucket, key: destination.key),
      what: "the start of a multipart upload", idempotency: .unsafe)
    let (uploadID, expireAt) = try Decode.answer(
      "multipart initiation", response.body, requestID: response.requestID
    ) { (reader) throws(JSONReader.Failure) in
      var uploadID = ""
      var expireAt: Int64?
      try reader.readObject { (reader, name) throws(JSONReader.Failure) in
        switch name {
        case "uploadId": uploadID = try reader.readOptionalString() ?? ""
        case "expireAt": expireAt = try reader.readOptionalInt64()
        default: try reader.skipValue()
        }
      }
      return (uploadID, expireAt)
    }
    guard !uploadID.isEmpty else {
      throw StorageError(
        .protocolError, "Kodo's answer to the start of a multipart upload names no uploadId",
        requestID: response.requestID)
    }
    return UploadSession(uploadID: uploadID, expiresAt: expireAt)
  }

  /// `PUT …/uploads/<id>/<n>` with `Content-MD5` in hex; Kodo's `md5` must be the part's.
  public func uploadPart(
    _ session: UploadSession, number: Int, body: RequestBody, digest: KodoPartDigest
  )
    async throws(StorageError) -> PartReceipt
  {
    let md5 = digest.md5.bytes
    let (response, _) = try await send(
      "PUT",
      KodoResumableV2.partPath(
        bucket: destination.bucket, key: destination.key, uploadID: session.uploadID,
        partNumber: number),
      headers: KodoResumableV2.partHeaders(md5: md5), body: body,
      what: "part \(number) of the multipart upload")
    let (etag, answered) = try Decode.answer(
      "part upload", response.body, requestID: response.requestID
    ) { (reader) throws(JSONReader.Failure) in
      var etag = ""
      var answered: String?
      try reader.readObject { (reader, name) throws(JSONReader.Failure) in
        switch name {
        case "etag": etag = try reader.readOptionalString() ?? ""
        case "md5": answered = try reader.readOptionalString()
        default: try reader.skipValue()
        }
      }
      return (etag, answered)
    }
    let hex = Hex.encode(md5)
    guard !etag.isEmpty, answered == nil || answered?.lowercased() == hex else {
      throw StorageError(
        .protocolError,
        "Kodo answered part \(number) of \(destination) with etag \(DisplayText.quoted(etag)) and MD5 \(DisplayText.quoted(answered ?? "")), not the part's \(hex)",
        requestID: response.requestID)
    }
    return PartReceipt(
      number: number, size: body.length ?? 0, etag: etag, checksum: hex,
      contentSHA1: digest.sha1.text)
  }

  /// `POST …/uploads/<id>` with the parts, the file name, MIME type and metadata (sent once).
  public func complete(_ session: UploadSession, parts: [PartReceipt]) async throws(StorageError)
    -> UploadedObject
  {
    let body = KodoResumableV2.completeBody(
      parts: parts.map { KodoResumableV2.Part(number: $0.number, etag: $0.etag) },
      fileName: fileName, mimeType: contentType,
      metadata: metadata.isEmpty
        ? nil : metadata.map { (name: "x-qn-meta-" + $0.name, value: $0.value) })
    let (response, _) = try await send(
      "POST",
      KodoResumableV2.uploadPath(
        bucket: destination.bucket, key: destination.key, uploadID: session.uploadID),
      headers: ["Content-Type": "application/json"], body: .bytes(body),
      what: "the completion of the multipart upload", idempotency: .unsafe)
    let hash = try Decode.answer("upload", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try Decode.uploadHash(&reader)
    }
    return UploadedObject(
      key: destination.key, size: parts.reduce(0) { $0 + $1.size }, etag: hash,
      requestID: response.requestID)
  }

  /// `DELETE …/uploads/<id>`; a session Kodo no longer knows (612) is as good as aborted.
  public func abort(_ session: UploadSession) async throws(StorageError) {
    do {
      _ = try await send(
        "DELETE",
        KodoResumableV2.uploadPath(
          bucket: destination.bucket, key: destination.key, uploadID: session.uploadID),
        what: "the abort of the multipart upload")
    } catch  where isForgotten(error) {
      return
    }
  }

  /// `GET …/uploads/<id>`, every page.
  public func listParts(_ session: UploadSession) async throws(StorageError) -> [PartReceipt] {
    var receipts: [PartReceipt] = []
    var marker: Int?
    while true {
      let (response, _) = try await send(
        "GET",
        KodoResumableV2.listPartsPath(
          bucket: destination.bucket, key: destination.key, uploadID: session.uploadID,
          marker: marker),
        what: "the parts of the multipart upload", idempotency: .safe)
      let (page, next) = try Decode.answer(
        "part listing", response.body, requestID: response.requestID
      ) { (reader) throws(JSONReader.Failure) in try Decode.partListing(&reader) }
      receipts += page
      guard let next, next > (marker ?? 0), !page.isEmpty else { break }
      marker = next
    }
    return receipts.sorted { $0.number < $1.number }
  }

  /// 612: Kodo no longer knows the session (expired, aborted or completed).
  public func isForgotten(_ error: StorageError) -> Bool { error.status == 612 }

  private func send(
    _ method: String, _ path: String, headers: HTTPHeaders = [:], body: RequestBody = .empty,
    what: String, idempotency: Idempotency = .idempotent
  ) async throws(StorageError) -> (response: HTTPResponse, base: String) {
    let token = try client.uploadToken(
      for: destination, overwrite: overwrite, storageClass: storageClass)
    return try await client.perform(
      method: method, bases: client.bases(for: .up, bucket: destination.bucket), path: path,
      headers: headers, authorization: .upToken(token),
      context: CallContext(
        what: "\(what) to \(destination)", bucket: destination.bucket, key: destination.key),
      body: body, idempotency: idempotency)
  }
}

extension Decode {
  /// A list-parts answer: the parts and the marker of the next page (`nil` or 0 when done).
  static func partListing(_ reader: inout JSONReader) throws(Failure) -> ([PartReceipt], Int?) {
    var parts: [PartReceipt] = []
    var marker: Int?
    try reader.readObject { (reader, name) throws(Failure) in
      switch name {
      case "partNumberMarker":
        let value = try reader.readOptionalInt64() ?? 0
        marker = value > 0 ? Int(clamping: value) : nil
      case "parts":
        if reader.readNull() { return }
        try reader.readArray { (reader) throws(Failure) in
          var part = PartReceipt(number: 0, size: 0, etag: "")
          try reader.readObject { (reader, field) throws(Failure) in
            switch field {
            case "partNumber": part.number = Int(clamping: try reader.readInt64())
            case "size": part.size = try reader.readInt64()
            case "etag": part.etag = try reader.readOptionalString() ?? ""
            default: try reader.skipValue()
            }
          }
          parts.append(part)
        }
      default: try reader.skipValue()
      }
    }
    return (parts, marker)
  }
}
