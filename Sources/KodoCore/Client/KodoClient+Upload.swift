public import StorageCore

extension KodoClient {
  /// The put policy kodo uploads with (`docs/write-protocol.md` §A2.2): the key pinned in the
  /// scope, `insertOnly` unless overwriting is allowed (never inferred from the scope's form),
  /// and the storage class as `fileType`.
  ///
  /// - Throws: `.invalidInput` for a storage class Kodo does not have.
  package static func uploadPolicy(
    bucket: String, key: String, deadline: Int64, overwrite: Bool, storageClass: StorageClass?
  ) throws(StorageError) -> String {
    var extra: [JSONValue.Member] = []
    if !overwrite { extra.append(JSONValue.Member("insertOnly", .number("1"))) }
    if let storageClass {
      guard let type = StorageClass.kodoType(named: storageClass) else {
        throw StorageError(
          .invalidInput,
          "Kodo has no storage class \(DisplayText.quoted(storageClass.name)); it has \(StorageClass.kodoNames.joined(separator: ", "))"
        )
      }
      if type != 0 { extra.append(JSONValue.Member("fileType", .number(String(type)))) }
    }
    return try UploadToken.policyJSON(
      scope: bucket + ":" + key, deadline: deadline, extra: extra.isEmpty ? nil : .object(extra))
  }

  /// An upload token for one key, valid for an hour past `seconds` from now on the corrected
  /// clock.
  package func uploadToken(
    for destination: ObjectLocation, overwrite: Bool, storageClass: StorageClass?,
    validFor seconds: Int64 = 3600
  ) throws(StorageError) -> String {
    let deadline = deadline(expiresIn: max(3600, seconds))
    let policy = try Self.uploadPolicy(
      bucket: destination.bucket, key: destination.key, deadline: deadline,
      overwrite: overwrite, storageClass: storageClass)
    return UploadToken.token(policyJSON: policy, credentials: credentials)
  }

  /// Uploads in one form request (`POST /` on the bucket's up host) and checks that the hash
  /// Kodo answers is the qetag of what was sent. An existing key is `.exists` (614) unless
  /// `overwrite`; an upload of the very content already stored succeeds either way.
  public func put(_ request: PutRequest) async throws(StorageError) -> WriteResult {
    let destination = request.destination
    try BucketName.validate(destination.bucket)
    for entry in request.metadata { try KodoOperation.validateMetadataName(entry.name) }
    let token = try uploadToken(
      for: destination, overwrite: request.overwrite, storageClass: request.storageClass)
    let boundary = "kodo" + Hex.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
    let body = KodoForm.body(
      token: token, key: destination.key, crc32: CRC32.checksum(request.body),
      fields: request.metadata.map { (name: "x-qn-meta-" + $0.name, value: $0.value) },
      fileName: request.fileName ?? String(KeySegments.lastSegment(of: destination.key)),
      mimeType: request.contentType, data: request.body, boundary: boundary)
    let context = CallContext(
      what: "the upload of \(DisplayText.quoted(destination.bucket + ":" + destination.key))",
      bucket: destination.bucket, key: destination.key)
    let (response, _) = try await perform(
      method: "POST", bases: bases(for: .up, bucket: destination.bucket), path: "/",
      headers: ["Content-Type": KodoForm.contentType(boundary: boundary)],
      authorization: .none, context: context, body: .bytes(body))
    let hash = try Decode.answer("upload", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try Decode.uploadHash(&reader)
    }
    let expected = QETag.hash(of: request.body)
    guard hash == expected else {
      throw StorageError(
        .protocolError,
        "Kodo stored \(DisplayText.quoted(destination.bucket + ":" + destination.key)) with hash \(DisplayText.quoted(hash ?? "")) but the uploaded data's qetag is \(expected)",
        requestID: response.requestID)
    }
    return WriteResult(hash: hash, requestID: response.requestID)
  }
}

extension Decode {
  /// The `hash` of an upload answer (`{"hash":…,"key":…}`), `nil` when absent.
  static func uploadHash(_ reader: inout JSONReader) throws(Failure) -> String? {
    var hash: String?
    try reader.readObject { (reader, name) throws(Failure) in
      if name == "hash" { hash = try reader.readOptionalString() } else { try reader.skipValue() }
    }
    return hash
  }
}
