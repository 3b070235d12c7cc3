import KodoCore
import NIOCore
import StorageCore

/// A request refused before its work began, with the answer to send.
struct RefusedRequest: Error {
  var reply: Reply
}

/// A finished upload's content and what the request said about it.
struct UploadContent {
  /// The bytes, in order (a form's file part, or the parts or blocks of a resumable upload).
  var payloads: [Payload]
  /// Their digests, computed as they arrived.
  var digests: ContentDigests
  /// The ETag OSS would report, when not the content's MD5 (an object joined from parts).
  var ossETag: String?
  var askedKey: String?
  var fileName: String?
  /// The MIME type the client asserted, if any.
  var mimeType: String?
  var meta: [MetaMember] = []
  var variables: [(String, String)] = []
  /// Form uploads: the object's `md5` (Kodo reports it for them).
  var recordsMD5 = false
  /// The payloads (a resumable upload's parts) where they lie in their session's file, stored
  /// as they are rather than copied.
  var joined: JoinedParts?
}

extension EmulatorService {
  /// `POST /` (form) and the resumable v1 and v2 endpoints.
  func upload(_ route: Route, request: IncomingRequest, reqid: String) -> Reply {
    switch route {
    case .formUpload:
      guard request.head.method == .POST else {
        return error(405, "method not allowed", reqid: reqid)
      }
      return formUpload(request, reqid: reqid)
    case .upload(let path) where WireText.hasPrefix(path, "/buckets/"):
      return resumableV2(path, request: request, reqid: reqid)
    case .upload(let path):
      return resumableV1(path, request: request, reqid: reqid)
    default:
      return error(404, "no such API", reqid: reqid)
    }
  }

  /// The policy of the request's `Authorization: UpToken …`, or the refusal to send.
  func uploadPolicy(_ token: String?, reqid: String) -> Result<UploadPolicy, RefusedRequest> {
    guard let token else {
      return .failure(RefusedRequest(reply: error(401, "token not specified", reqid: reqid)))
    }
    do throws(UploadPolicy.Refusal) {
      return .success(
        try UploadPolicy(
          token: token, credentials: configuration.credentials,
          now: configuration.clock.unixSeconds))
    } catch .expired {
      return .failure(RefusedRequest(reply: error(401, "token out of date", reqid: reqid)))
    } catch {
      return .failure(RefusedRequest(reply: self.error(401, "bad token", reqid: reqid)))
    }
  }

  /// The token of `Authorization: UpToken <token>`.
  static func upToken(_ request: IncomingRequest) -> String? {
    guard let value = request.head.headers.first(name: "Authorization"),
      let token = WireText.dropping(prefix: "UpToken ", from: value)
    else { return nil }
    return String(token)
  }

  private func formUpload(_ request: IncomingRequest, reqid: String) -> Reply {
    guard
      let boundary = FormData.boundary(
        contentType: request.head.headers.first(name: "Content-Type")),
      let form = FormData(request.content, boundary: boundary)
    else { return error(400, "invalid multipart form", reqid: reqid) }
    let policy: UploadPolicy
    switch uploadPolicy(form.field("token"), reqid: reqid) {
    case .failure(let refused): return refused.reply
    case .success(let value): policy = value
    }
    guard let file = form.part("file") else {
      return error(400, "file not specified", reqid: reqid)
    }
    // The file's digests, and its CRC-32 when the form gives one, in one read.
    var pass = DigestPass(.kodo)
    var crc32: UInt32 = 0
    do throws(StoreFailure) {
      try file.body.forEachChunk { chunk in
        pass.update(chunk)
        crc32 = CRC32.checksum(chunk, continuing: crc32)
      }
    } catch {
      return storeError(error, reqid: reqid)
    }
    if let text = form.field("crc32") {
      guard let expected = UInt32(text), expected == crc32 else {
        return error(406, "crc32 not match", reqid: reqid)
      }
    }
    var content = UploadContent(payloads: [file.body], digests: ContentDigests(pass.digests))
    content.askedKey = form.part("key")
      .flatMap { $0.body.bytes(limit: FormData.maximumFieldSize) }
      .map { String(decoding: $0, as: UTF8.self) }
    content.fileName = file.fileName
    content.mimeType = file.contentType
    content.recordsMD5 = true
    for part in form.parts
    where WireText.hasPrefix(part.name, "x-qn-meta-") || WireText.hasPrefix(part.name, "x:") {
      guard let bytes = part.body.bytes(limit: FormData.maximumFieldSize) else {
        return error(400, "invalid multipart form", reqid: reqid)
      }
      let value = String(decoding: bytes, as: UTF8.self)
      if let item = MetaMember(kodoField: part.name, value: value) {
        content.meta.append(item)
      } else if WireText.hasPrefix(part.name, "x:") {
        content.variables.append((part.name, value))
      }
    }
    return store(content, policy: policy, reqid: reqid)
  }

  /// Stores a finished upload under the policy's rules and answers with its `returnBody`.
  func store(_ content: UploadContent, policy: UploadPolicy, reqid: String) -> Reply {
    let digests = content.digests
    guard let key = policy.key(asked: content.askedKey, hash: digests.hash) else {
      return error(403, "key doesn't match with scope", reqid: reqid)
    }
    let store: ObjectStore
    switch writableStore(policy.bucket) {
    case .failure(let result): return error(result.code, result.message ?? "", reqid: reqid)
    case .success(let value): store = value
    }
    if let limit = policy.fsizeLimit, digests.fsize > limit {
      return error(413, "exceed FsizeLimit", reqid: reqid)
    }
    if let minimum = policy.fsizeMin, digests.fsize < minimum {
      return error(403, "file size smaller than FsizeMin", reqid: reqid)
    }
    let asserted = content.mimeType.flatMap { $0 == "application/octet-stream" ? nil : $0 }
    let mimeType = asserted ?? MimeTypes.forKey(content.fileName.map { _ in key } ?? key)
    guard policy.allows(mimeType: mimeType) else {
      return error(403, "limited mimeType: \(mimeType)", reqid: reqid)
    }
    var metadata = ObjectMetadata(
      fsize: digests.fsize, hash: digests.hash, mimeType: mimeType, putTime: putTimeNow)
    metadata.type = policy.fileType ?? 0
    metadata.meta = content.meta.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    metadata.crc64 = digests.crc64
    metadata.ossETag = content.ossETag ?? digests.md5?.uppercased()
    if content.recordsMD5 { metadata.md5 = digests.md5 }
    let mayOverwrite = policy.mayOverwrite
    do throws(StoreFailure) {
      let prepared: PreparedContent
      if let joined = content.joined {
        prepared = joined.content
      } else {
        prepared = try store.prepare(content.payloads).content
      }
      try store.put(key: Array(key.utf8), content: prepared, metadata: metadata) {
        (existing) throws(StoreFailure) in
        guard let existing, !mayOverwrite else { return .write }
        // Insert-only: the same content again is a success (the object stays as it was), other
        // content is refused.
        if store.metadata(of: existing, digests: .hash).hash != digests.hash { throw .exists }
        return .keepExisting
      }
    } catch {
      return storeError(error, reqid: reqid)
    }
    var body = ByteBuffer()
    body.writeBytes(
      policy.answer(
        key: key, hash: digests.hash, fsize: digests.fsize, mimeType: mimeType,
        fileName: content.fileName, variables: content.variables))
    return json(200, body, reqid: reqid)
  }

  /// A store's refusal in Kodo's words.
  func storeError(_ failure: StoreFailure, reqid: String) -> Reply {
    let result = OperationResult.store(failure)
    return error(result.code, result.message ?? "", reqid: reqid)
  }
}
