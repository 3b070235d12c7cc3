public import StorageCore

extension OSSClient: MultipartWriting {
  /// OSS's multipart upload for `target`.
  public func multipartUploader(for target: MultipartTarget) throws(StorageError)
    -> OSSMultipartUpload
  {
    try OSSMultipartUpload(
      client: self, destination: target.destination, overwrite: target.overwrite,
      contentType: target.contentType, metadata: target.metadata,
      storageClass: target.storageClass)
  }

  /// The object's CRC-64, combined from the parts' (the uploader has checked the service's
  /// `x-oss-hash-crc64ecma` against it at completion), and its ETag.
  public func verifiedResult(
    of object: UploadedObject, parts: [PartReceipt], partSize: Int64, size: Int64,
    read: (Range<Int64>) throws(StorageError) -> [UInt8]
  ) throws(StorageError) -> WriteResult {
    let crc = CRC64.combine(parts.map { (crc: UInt64($0.checksum ?? "") ?? 0, size: $0.size) })
    return WriteResult(
      etag: object.etag.map(OSSAnswers.unquoted), crc64: String(crc), requestID: object.requestID)
  }
}
