public import StorageCore

extension KodoClient: MultipartWriting {
  /// Kodo's resumable upload v2 for `target`.
  public func multipartUploader(for target: MultipartTarget) throws(StorageError)
    -> KodoMultipartUpload
  {
    try KodoMultipartUpload(
      client: self, destination: target.destination, overwrite: target.overwrite,
      contentType: target.contentType, metadata: target.metadata,
      storageClass: target.storageClass, fileName: target.fileName)
  }

  /// Checks Kodo's `hash` of the object against the source's, computed in the upload's part
  /// boundaries (the SHA-1 of each part combined as the qetag combines its 4 MiB blocks: with
  /// 4 MiB parts, the qetag).
  public func verifiedResult(
    of object: UploadedObject, parts: [PartReceipt], partSize: Int64, size: Int64,
    read: (Range<Int64>) throws(StorageError) -> [UInt8]
  ) throws(StorageError) -> WriteResult {
    var digests: [[UInt8]] = []
    var offset: Int64 = 0
    while offset < size {
      let end = min(size, offset + max(1, partSize))
      digests.append(Digest.sha1(try read(offset..<end)))
      offset = end
    }
    let local = QETag.hash(blockDigests: digests)
    guard object.etag == local else {
      throw StorageError(
        .protocolError,
        "Kodo's hash \(DisplayText(escaping: object.etag ?? "(none)")) of \(object.key) does not match the file's \(local); the object was kept",
        requestID: object.requestID)
    }
    return WriteResult(hash: object.etag, requestID: object.requestID)
  }
}
