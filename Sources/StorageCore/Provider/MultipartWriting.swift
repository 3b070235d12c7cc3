/// What an object uploaded in parts is to be: where it goes and the options of the final object.
public struct MultipartTarget: Sendable {
  /// The bucket and key.
  public var destination: ObjectLocation
  /// Whether it may replace an existing object (the service enforces the refusal otherwise).
  public var overwrite: Bool
  /// Its content type (`nil`: the service's default).
  public var contentType: String?
  /// Its user metadata, byte-exact.
  public var metadata: [MetadataEntry]
  /// Its storage class (`nil`: the bucket's default).
  public var storageClass: StorageClass?
  /// The source's file name, for providers that record it.
  public var fileName: String?

  /// A target from its parts.
  public init(
    destination: ObjectLocation, overwrite: Bool = false, contentType: String? = nil,
    metadata: [MetadataEntry] = [], storageClass: StorageClass? = nil, fileName: String? = nil
  ) {
    self.destination = destination
    self.overwrite = overwrite
    self.contentType = contentType
    self.metadata = metadata
    self.storageClass = storageClass
    self.fileName = fileName
  }
}

/// A provider that uploads large objects in parts through the transfer engine
/// (``MultipartUpload``): it makes the multipart protocol for one target and checks the object
/// the service made against the source. The CLI asks for this capability and names no provider.
public protocol MultipartWriting: ObjectWriting {
  /// The provider's multipart protocol.
  associatedtype Uploader: MultipartUploading

  /// The multipart protocol for `target`; names, metadata and class are checked at once.
  ///
  /// - Throws: `.invalidInput` for what the service would refuse.
  func multipartUploader(for target: MultipartTarget) throws(StorageError) -> Uploader

  /// The result of an upload the service completed as `object` from `parts` (each but the last
  /// of `partSize` bytes), after checking the whole object against the source, whose `size`
  /// bytes `read` gives by range.
  ///
  /// - Throws: `.protocolError` when the service's digest of the object is not the source's
  ///   (the object is kept: nothing of the user's is deleted); what `read` throws.
  func verifiedResult(
    of object: UploadedObject, parts: [PartReceipt], partSize: Int64, size: Int64,
    read: (Range<Int64>) throws(StorageError) -> [UInt8]
  ) throws(StorageError) -> WriteResult
}
