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
  /// 4 MiB parts, the qetag). A part's SHA-1 comes from its receipt, computed in the read that
  /// made its MD5 (which Kodo checked against the bytes it stored); only a part without one (a
  /// checkpoint's from before it was kept) is read again.
  public func verifiedResult(
    of object: UploadedObject, parts: [PartReceipt], partSize: Int64, size: Int64,
    read: (Range<Int64>) throws(StorageError) -> [UInt8]
  ) throws(StorageError) -> WriteResult {
    var known: [Int: [UInt8]] = [:]
    for part in parts {
      if let text = part.contentSHA1, let bytes = Hex.decode(text), bytes.count == 20 {
        known[part.number] = bytes
      }
    }
    let sizes = Dictionary(parts.map { ($0.number, $0.size) }, uniquingKeysWith: { $1 })
    var digests: [[UInt8]] = []
    var offset: Int64 = 0
    while offset < size {
      let end = min(size, offset + max(1, partSize))
      let number = digests.count + 1
      if let digest = known[number], sizes[number] == end - offset {
        digests.append(digest)
      } else {
        digests.append(Digest.sha1(try read(offset..<end)))
      }
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
