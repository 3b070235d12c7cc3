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
    var etag = object.etag
    if let tag = etag, tag.utf8.count >= 2, tag.utf8.first == UInt8(ascii: "\""),
      tag.utf8.last == UInt8(ascii: "\"")
    {
      etag = String(decoding: tag.utf8.dropFirst().dropLast(), as: UTF8.self)
    }
    return WriteResult(etag: etag, crc64: String(crc), requestID: object.requestID)
  }
}
