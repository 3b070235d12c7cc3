import Foundation
public import StorageCore

/// A multipart part's digests for OSS: the CRC-64 OSS answers for the part, and the MD5 it
/// checks (`Content-MD5`), both computed as the engine reads the part; the MD5s of the parts the
/// engine reads together advance together (``LaneHash``).
public struct OSSPartDigest: RunningDigest {
  /// The part's CRC-64.
  public var crc = CRC64()
  /// The part's MD5.
  public var md5 = LaneHash(.md5)

  /// Adds `bytes` to both.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    crc.update(bytes)
    md5.update(bytes)
  }

  /// Adds `chunks[i]` to `digests[i]`: the MD5s in one pass of the lane kernels, each CRC-64
  /// while its chunk is still in the cache.
  public static func update(
    lanes digests: inout [OSSPartDigest], with chunks: [UnsafeRawBufferPointer]
  ) {
    var md5s = digests.map(\.md5)
    LaneHash.update(&md5s, with: chunks)
    for lane in digests.indices {
      digests[lane].md5 = md5s[lane]
      digests[lane].crc.update(chunks[lane])
    }
  }

  /// The CRC-64, decimal, as OSS writes it.
  public var text: String { crc.decimal }
}

/// OSS's multipart upload for one object, as the transfer engine drives it
/// (`docs/write-protocol.md` §B3): parts of 100 KiB to 5 GiB with `Content-MD5`, each answer's
/// CRC-64 checked, completed in ascending order, the object's CRC-64 checked against the
/// combination of the parts'.
public struct OSSMultipartUpload: MultipartUploading {
  /// The client requests go through.
  public let client: OSSClient
  /// The object made.
  public let destination: ObjectLocation
  /// Whether an existing object may be replaced (else `.exists`).
  public let overwrite: Bool
  /// Headers for the final object: content type, metadata, storage class, forbid-overwrite.
  let objectHeaders: HTTPHeaders

  /// OSS's rules: parts of 100 KiB to 5 GiB (the last may be smaller), at most 10,000.
  public var limits: PartLimits {
    PartLimits(minimumPartSize: 100 << 10, maximumPartSize: 5 << 30, maximumPartCount: 10_000)
  }

  /// An upload of one object; the key, metadata and class are checked at once.
  ///
  /// - Throws: `.invalidInput` for a key, metadata entry or class OSS refuses.
  public init(
    client: OSSClient, destination: ObjectLocation, overwrite: Bool = false,
    contentType: String? = nil, metadata: [MetadataEntry] = [], storageClass: StorageClass? = nil
  ) throws(StorageError) {
    try OSSWriteChecks.validate(destination)
    var headers: HTTPHeaders = ["Content-Type": contentType ?? "application/octet-stream"]
    if !overwrite { headers.add("x-oss-forbid-overwrite", "true") }
    for entry in metadata {
      try OSSWriteChecks.validate(entry)
      headers.add("x-oss-meta-" + entry.name, entry.value)
    }
    if let storageClass {
      headers.add("x-oss-storage-class", try OSSWriteChecks.serviceName(of: storageClass))
    }
    self.client = client
    self.destination = destination
    self.overwrite = overwrite
    objectHeaders = headers
  }

  /// A part's CRC-64 and MD5.
  public func makePartDigest() -> OSSPartDigest { OSSPartDigest() }

  /// InitiateMultipartUpload with the object's headers.
  public func initiate() async throws(StorageError) -> UploadSession {
    UploadSession(
      uploadID: try await client.initiateMultipartUpload(destination, headers: objectHeaders))
  }

  /// UploadPart with `Content-MD5`; the answer's CRC-64 must be the part's.
  public func uploadPart(
    _ session: UploadSession, number: Int, body: RequestBody, digest: OSSPartDigest
  ) async throws(StorageError) -> PartReceipt {
    let what = "part \(number) of the multipart upload to \(destination)"
    let response = try await client.perform(
      OSSWriteRequests.uploadPart(
        bucket: destination.bucket, key: destination.key, uploadID: session.uploadID,
        partNumber: number,
        headers: ["Content-MD5": Data(digest.md5.bytes).base64EncodedString()]),
      what: what, key: destination.key, body: body)
    let result = try OSSWriteChecks.checked(response, crc: digest.crc.value, what: what)
    guard let etag = result.etag, !etag.isEmpty else {
      throw StorageError(
        .protocolError, "OSS answered \(what) without an ETag", requestID: result.requestID)
    }
    return PartReceipt(
      number: number, size: body.length ?? 0, etag: etag, checksum: digest.crc.decimal)
  }

  /// CompleteMultipartUpload; the object's CRC-64 is checked when every part's is known.
  public func complete(_ session: UploadSession, parts: [PartReceipt]) async throws(StorageError)
    -> UploadedObject
  {
    var crcs: [Int: (crc: UInt64, size: Int64)] = [:]
    for part in parts {
      if let text = part.checksum, let crc = UInt64(text) { crcs[part.number] = (crc, part.size) }
    }
    let result = try await client.completeMultipartUpload(
      destination, uploadID: session.uploadID,
      parts: parts.map { OSSWriteRequests.Part(number: $0.number, etag: $0.etag) }, crcs: crcs,
      headers: overwrite ? [:] : ["x-oss-forbid-overwrite": "true"])
    return UploadedObject(
      key: destination.key, size: parts.reduce(0) { $0 + $1.size }, etag: result.etag,
      requestID: result.requestID)
  }

  /// AbortMultipartUpload; a session OSS no longer knows is as good as aborted.
  public func abort(_ session: UploadSession) async throws(StorageError) {
    do {
      try await client.abortMultipartUpload(destination, uploadID: session.uploadID)
    } catch  where isForgotten(error) {
      return
    }
  }

  /// ListParts, every page, with each part's CRC-64 when OSS sends it.
  public func listParts(_ session: UploadSession) async throws(StorageError) -> [PartReceipt] {
    try await client.listParts(destination, uploadID: session.uploadID).map {
      PartReceipt(
        number: $0.number, size: $0.size, etag: $0.etag, checksum: $0.crc64.map { String($0) })
    }
  }

  /// `NoSuchUpload`: the session expired, was aborted or completed.
  public func isForgotten(_ error: StorageError) -> Bool { error.serviceCode == "NoSuchUpload" }
}
