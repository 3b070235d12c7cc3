import Foundation
import NIOCore
import OSSCore
import StorageCore

extension OSSFront {
  /// PutObject, CopyObject, DeleteObject, DeleteMultipleObjects and the multipart operations.
  func write(
    _ operation: OSSOperation, store: BucketStore, request: IncomingRequest,
    _ context: AnswerContext
  ) throws(OSSFailure) -> Reply {
    if operation.isWrite, store.writable == nil {
      throw OSSFailure(
        status: 403, code: "AccessDenied",
        message: "The bucket is read-only: start kodo-emulator with --writable \(store.name).")
    }
    switch operation {
    case .putObject(_, let key): return try putObject(store, key: key, request, context)
    case .copyObject(_, let key): return try copyObject(store, key: key, context)
    case .deleteObject(_, let key):
      try Self.validate(key: key)
      do throws(StoreFailure) {
        try store.writable?.delete(key: Array(key.utf8))
      } catch .noSuchKey {
        // OSS answers 204 for a key that is not there.
      } catch {
        throw Self.failure(error, key: key)
      }
      return empty(204, context)
    case .deleteMultiple: return try deleteMultiple(store, request, context)
    case .initiateMultipart(_, let key): return try initiate(store, key: key, context)
    case .uploadPart(_, let key): return try uploadPart(store, key: key, request, context)
    case .completeMultipart(_, let key): return try complete(store, key: key, request, context)
    case .abortMultipart(_, let key):
      _ = try session(store, key: key, context)
      service.uploads.remove(context.incoming.parameter("uploadId") ?? "")
      return empty(204, context)
    case .listParts(_, let key): return try listParts(store, key: key, context)
    case .listMultipartUploads: return listUploads(store, context)
    case .restoreObject(_, let key): return try restoreObject(store, key: key, request, context)
    default:
      throw OSSFailure(status: 501, code: "NotImplemented", message: "Not implemented.")
    }
  }

  // MARK: PutObject

  private func putObject(
    _ store: BucketStore, key: String, _ request: IncomingRequest, _ context: AnswerContext
  ) throws(OSSFailure) -> Reply {
    try Self.validate(key: key)
    let headers = context.incoming.headers
    let body = request.content
    let (read, crc) = try Self.digests(of: request, key: key)
    try Self.checkContentMD5(headers["Content-MD5"], read.md5)
    let forbid = try Self.forbidOverwrite(headers)
    var metadata = try objectMetadata(headers, key: key)
    let digests = ContentDigests(read)
    let md5 = Hex.encode(read.md5).uppercased()
    metadata.fsize = digests.fsize
    metadata.hash = digests.hash
    metadata.md5 = digests.md5
    metadata.crc64 = crc
    metadata.ossETag = md5
    let prepared = try prepare(store, [body], key: key)
    try put(store, key: key, content: prepared.content, metadata: metadata, forbidOverwrite: forbid)
    var answer = empty(200, context)
    answer.headers += [
      ("ETag", "\"" + md5 + "\""),
      ("x-oss-hash-crc64ecma", String(crc)),
      ("Content-MD5", Data(read.md5).base64EncodedString()),
    ]
    return answer
  }

  /// The MD5 and CRC-64 of `request`'s body, computed as it was spooled or read once now (the
  /// qetag is computed when a Kodo read first asks for it).
  static func digests(of request: IncomingRequest, key: String) throws(OSSFailure)
    -> (digests: PartDigests, crc64: UInt64)
  {
    let digests: PartDigests
    do throws(StoreFailure) {
      digests = try request.contentDigests(.oss)
    } catch {
      throw failure(error, key: key)
    }
    guard let crc = digests.crc64 else { throw failure(.io, key: key) }
    return (digests, crc)
  }

  /// `payloads` joined into content `store` can take (see `ObjectStore.prepare`).
  func prepare(
    _ store: BucketStore, _ payloads: [Payload], key: String, digests: DigestPass.Options = []
  ) throws(OSSFailure) -> (content: PreparedContent, digests: PartDigests) {
    guard let writable = store.writable else {
      throw OSSFailure(status: 403, code: "AccessDenied", message: "The bucket is read-only.")
    }
    do throws(StoreFailure) {
      return try writable.prepare(payloads, digests: digests)
    } catch {
      throw Self.failure(error, key: key)
    }
  }

  /// Stores an object, refusing with `FileAlreadyExists` when `forbidOverwrite` and it exists.
  func put(
    _ store: BucketStore, key: String, content: PreparedContent, metadata: ObjectMetadata,
    forbidOverwrite: Bool
  ) throws(OSSFailure) {
    guard let writable = store.writable else {
      throw OSSFailure(status: 403, code: "AccessDenied", message: "The bucket is read-only.")
    }
    do throws(StoreFailure) {
      try writable.put(key: Array(key.utf8), content: content, metadata: metadata) {
        (existing) throws(StoreFailure) in
        if existing != nil && forbidOverwrite { throw .exists }
        return .write
      }
    } catch {
      throw Self.failure(error, key: key)
    }
  }

  /// The metadata a PutObject, Initiate or REPLACE copy sets from its headers: content type,
  /// `x-oss-meta-*`, storage class; put time now.
  func objectMetadata(_ headers: HTTPHeaders, key: String) throws(OSSFailure) -> ObjectMetadata {
    var metadata = ObjectMetadata(
      fsize: 0, hash: "", mimeType: headers["Content-Type"] ?? MimeTypes.forKey(key),
      putTime: service.putTimeNow)
    metadata.type = try Self.storageClass(headers) ?? 0
    metadata.meta = Self.userMeta(headers)
    return metadata
  }

  static func userMeta(_ headers: HTTPHeaders) -> [MetaMember] {
    headers.fields.compactMap { MetaMember(ossHeader: $0.name, value: $0.value) }.sorted {
      $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
    }
  }

  /// `x-oss-storage-class` as Kodo's class number, `nil` when absent.
  static func storageClass(_ headers: HTTPHeaders) throws(OSSFailure) -> Int? {
    guard let value = headers["x-oss-storage-class"] else { return nil }
    switch value {
    case "Standard": return 0
    case "IA": return 1
    case "Archive": return 2
    case "ColdArchive", "DeepColdArchive": return 3
    default:
      throw OSSFailure(
        status: 400, code: "InvalidArgument", message: "Invalid storage class \(value).",
        fields: ["ArgumentName": "x-oss-storage-class", "ArgumentValue": value])
    }
  }

  static func forbidOverwrite(_ headers: HTTPHeaders) throws(OSSFailure) -> Bool {
    switch headers["x-oss-forbid-overwrite"]?.lowercased() {
    case nil, "false": return false
    case "true": return true
    case let value?:
      throw OSSFailure(
        status: 400, code: "InvalidArgument",
        message: "Invalid x-oss-forbid-overwrite header: \(value).", ec: "0017-00000279")
    }
  }

  static func checkContentMD5(_ header: String?, _ md5: [UInt8]) throws(OSSFailure) {
    guard let header else { return }
    guard let given = Data(base64Encoded: header), Array(given) == md5 else {
      throw OSSFailure(
        status: 400, code: "InvalidDigest", message: "The Content-MD5 you specified was invalid.",
        fields: ["Content-MD5": header])
    }
  }

  /// OSS's key rules: 1–1023 bytes, not starting with `/` or `\`.
  static func validate(key: String) throws(OSSFailure) {
    let bytes = key.utf8
    guard !bytes.isEmpty, bytes.count <= 1_023, bytes.first != UInt8(ascii: "/"),
      bytes.first != UInt8(ascii: "\\")
    else {
      throw OSSFailure(
        status: 400, code: "InvalidObjectName", message: "The specified object is not valid.",
        ec: "0016-00000002")
    }
  }

  static func failure(_ error: StoreFailure, key: String) -> OSSFailure {
    switch error {
    case .readOnly:
      OSSFailure(status: 403, code: "AccessDenied", message: "The bucket is read-only.")
    case .noSuchKey:
      OSSFailure(
        status: 404, code: "NoSuchKey", message: "The specified key does not exist.",
        ec: "0026-00000001", fields: ["Key": key])
    case .exists:
      OSSFailure(
        status: 409, code: "FileAlreadyExists",
        message: "The object you specified already exists and can not be overwritten.",
        ec: "0026-00000002")
    case .memoryFull:
      OSSFailure(
        status: 400, code: "EntityTooLarge", message: "The emulator's memory limit is reached.")
    case .keyNotAPath:
      OSSFailure(
        status: 400, code: "InvalidObjectName",
        message: "The key cannot be a path in this directory bucket.")
    case .io:
      OSSFailure(status: 500, code: "InternalError", message: "The emulator could not write.")
    }
  }

  /// An answer with no body.
  func empty(_ status: Int, _ context: AnswerContext) -> Reply {
    Reply(
      status: .kodo(status),
      headers: commonHeaders(context.requestID, now: context.now, xml: false),
      body: .buffer(ByteBuffer()))
  }

  // MARK: CopyObject

  private func copyObject(_ store: BucketStore, key: String, _ context: AnswerContext)
    throws(OSSFailure) -> Reply
  {
    try Self.validate(key: key)
    let headers = context.incoming.headers
    let (source, sourceKey, index) = try copySource(headers)
    try checkCopySourceMatch(headers, source: source, key: sourceKey, index: index)
    let forbid = try Self.forbidOverwrite(headers)
    var metadata = source.metadata(at: index, digests: [])
    let replace = headers["x-oss-metadata-directive"] == "REPLACE"
    if replace {
      let given = try objectMetadata(headers, key: key)
      metadata.mimeType = given.mimeType
      metadata.meta = given.meta
    }
    if let type = try Self.storageClass(headers) { metadata.type = type }
    metadata.putTime = service.putTimeNow
    let sourceBucket = headers["x-oss-copy-source"].flatMap(Self.sourceBucket) ?? ""
    if ExactKey.same(sourceBucket, store.name) && ExactKey.same(sourceKey, key) {
      // A copy onto itself changes metadata or class in place (OSS's update_object_meta).
      do throws(StoreFailure) {
        try store.writable?.update(key: Array(key.utf8)) { object in
          let (fsize, hash, md5, crc, etag, multipart) = (
            object.metadata.fsize, object.metadata.hash, object.metadata.md5,
            object.metadata.crc64, object.metadata.ossETag, object.metadata.isMultipart
          )
          object.metadata = metadata
          object.metadata.fsize = fsize
          object.metadata.hash = hash
          object.metadata.md5 = md5
          object.metadata.crc64 = crc
          object.metadata.ossETag = etag
          object.metadata.isMultipart = multipart
        }
      } catch {
        throw Self.failure(error, key: key)
      }
    } else {
      guard let body = source.body(at: index) else {
        throw Self.failure(.noSuchKey, key: sourceKey)
      }
      // The copy has the source's digests; its CRC-64, when the source has none yet, computed
      // as the bytes are copied (a hash not known stays to compute on demand).
      let prepared = try prepare(
        store, [.whole(body)], key: sourceKey, digests: metadata.crc64 == nil ? .crc64 : [])
      if metadata.crc64 == nil { metadata.crc64 = prepared.digests.crc64 }
      // The copy keeps the source's ETag, as OSS's does (whatever made the source).
      if metadata.ossETag == nil {
        metadata.ossETag = self.etag(of: source, key: sourceKey, index: index)
      }
      try put(
        store, key: key, content: prepared.content, metadata: metadata, forbidOverwrite: forbid)
    }
    var writer = XMLWriter()
    writer.open("CopyObjectResult")
    let etag = metadata.ossETag ?? self.etag(of: source, key: sourceKey, index: index)
    writer.element("ETag", "\"" + etag + "\"")
    writer.element(
      "LastModified",
      OSSTime.iso8601(Timestamp(unixSeconds: metadata.putTime / 10_000_000)))
    writer.close("CopyObjectResult")
    var answer = xml(writer.bytes, context)
    if let writable = store.writable, let object = writable.object(Array(key.utf8)),
      let crc = writable.metadata(of: object, digests: .crc64).crc64
    {
      answer.headers.append(("x-oss-hash-crc64ecma", String(crc)))
    }
    return answer
  }

  /// The bucket of an `x-oss-copy-source` value (`/bucket/key`).
  static func sourceBucket(_ value: String) -> String? {
    let trimmed = value.utf8.first == UInt8(ascii: "/") ? value.dropFirst() : value[...]
    guard let slash = trimmed.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
    return String(trimmed[..<slash])
  }

  /// The object `x-oss-copy-source` names: `/bucket/key`, the key percent-encoded (with or
  /// without its `/` encoded), an optional `?versionId=` ignored.
  func copySource(_ headers: HTTPHeaders) throws(OSSFailure)
    -> (source: any ObjectSource, key: String, index: Int)
  {
    guard let value = headers["x-oss-copy-source"], let bucketName = Self.sourceBucket(value)
    else {
      throw OSSFailure(
        status: 400, code: "InvalidArgument",
        message: "Copy Source must mention the source bucket and key: /sourcebucket/sourcekey.")
    }
    var encodedKey = value.utf8.first == UInt8(ascii: "/") ? value.dropFirst() : value[...]
    encodedKey = encodedKey.dropFirst(bucketName.utf8.count + 1)
    if let question = encodedKey.utf8.firstIndex(of: UInt8(ascii: "?")) {
      encodedKey = encodedKey[..<question]
    }
    guard let key = PercentEncoding.decode(String(encodedKey)), !key.isEmpty else {
      throw OSSFailure(status: 400, code: "InvalidArgument", message: "The copy source is invalid.")
    }
    guard let bucket = service.buckets[bucketName] else { throw Self.noSuchBucket(bucketName) }
    let source = bucket.source
    guard let index = source.index(of: Array(key.utf8)) else {
      throw Self.failure(.noSuchKey, key: key)
    }
    return (source, key, index)
  }
}
