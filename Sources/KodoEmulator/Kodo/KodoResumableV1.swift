import KodoCore
import NIOCore
import StorageCore

extension EmulatorService {
  /// Resumable upload v1: `/mkblk/<blockSize>` and `/bput/<ctx>/<offset>` fill a block (at most
  /// 4 MiB) chunk by chunk; `/mkfile/<fileSize>[/key/<b64>][/fname/<b64>][/mimeType/<b64>]…`
  /// joins the blocks whose last contexts the body lists, in order.
  func resumableV1(_ path: Substring, request: IncomingRequest, reqid: String) -> Reply {
    guard request.head.method == .POST else {
      return error(405, "method not allowed", reqid: reqid)
    }
    let policy: UploadPolicy
    switch uploadPolicy(Self.upToken(request), reqid: reqid) {
    case .failure(let refused): return refused.reply
    case .success(let value): policy = value
    }
    if case .failure(let result) = writableStore(policy.bucket) {
      return error(result.code, result.message ?? "", reqid: reqid)
    }
    let segments = KeySegments.segments(of: path).dropFirst()
    let now = configuration.clock.unixSeconds
    switch segments.first {
    case "mkblk":
      guard segments.count == 2, let size = Int(segments.dropFirst().first ?? ""),
        (1...QETag.blockSize).contains(size), request.body.count <= size
      else { return error(400, "invalid block size", reqid: reqid) }
      // The block's announced size rides in the session's metadata.
      let block = ObjectMetadata(fsize: Int64(size), hash: "", mimeType: "", putTime: 0)
      let session = uploads.create(bucket: policy.bucket, key: nil, now: now, metadata: block)
      return append(request.body, to: session, at: 0, reqid: reqid)
    case "bput":
      let arguments = Array(segments.dropFirst())
      guard arguments.count == 2, let offset = Int(arguments[1]) else {
        return error(400, "invalid argument", reqid: reqid)
      }
      guard let session = uploads.session(String(arguments[0]), bucket: policy.bucket, now: now),
        session.key == nil, let block = session.metadata
      else { return error(701, "invalid context", reqid: reqid) }
      let held = session.parts[1]?.bytes ?? []
      guard offset == held.count, held.count + request.body.count <= Int(block.fsize) else {
        return error(400, "invalid offset", reqid: reqid)
      }
      return append(request.body, to: session, at: offset, reqid: reqid)
    case "mkfile":
      return makeFile(Array(segments.dropFirst()), policy: policy, request: request, reqid: reqid)
    default:
      return error(404, "no such API", reqid: reqid)
    }
  }

  /// Adds a chunk to a block and answers as `mkblk` and `bput` do.
  private func append(
    _ chunk: [UInt8], to session: UploadSessions.Session, at offset: Int, reqid: String
  ) -> Reply {
    let bytes = (session.parts[1]?.bytes ?? []) + chunk
    let now = configuration.clock.unixSeconds
    let part = UploadSessions.Part(
      number: 1, bytes: bytes, etag: "", md5: [], crc64: 0, putTime: now)
    do throws(UploadSessions.Failure) {
      try uploads.put(part, in: session.id, bucket: session.bucket, now: now)
    } catch .memoryFull {
      return error(413, "the emulator's memory limit is reached", reqid: reqid)
    } catch {
      return self.error(701, "invalid context", reqid: reqid)
    }
    var body = ByteBuffer()
    body.writeStaticString("{\"ctx\":")
    body.writeJSONString(session.id)
    body.writeStaticString(",\"checksum\":")
    body.writeJSONString(URLSafeBase64.encode(Digest.sha1(bytes)))
    body.writeStaticString(",\"crc32\":")
    body.writeDecimal(Int64(CRC32.checksum(chunk)))
    body.writeStaticString(",\"offset\":")
    body.writeDecimal(bytes.count)
    body.writeStaticString(",\"host\":")
    body.writeJSONString(baseURL)
    body.writeStaticString(",\"expired_at\":")
    body.writeDecimal(session.expires)
    body.writeStaticString("}")
    return json(200, body, reqid: reqid)
  }

  /// `mkfile`: the blocks the body's contexts name, joined; `key`, `fname`, `mimeType`, `x:…`
  /// and `x-qn-meta-…` from the path's `name/<urlsafe b64 value>` pairs, in any order.
  private func makeFile(
    _ arguments: [Substring], policy: UploadPolicy, request: IncomingRequest, reqid: String
  ) -> Reply {
    guard let sizeText = arguments.first, let size = Int64(sizeText),
      arguments.count % 2 == 1
    else { return error(400, "invalid argument", reqid: reqid) }
    var content = UploadContent(chunks: [])
    var index = 1
    while index < arguments.count {
      guard let bytes = URLSafeBase64.decode(String(arguments[index + 1])),
        let value = String(validating: bytes, as: UTF8.self)
      else { return error(400, "invalid argument", reqid: reqid) }
      let name = arguments[index]
      switch name {
      case "key": content.askedKey = value
      case "fname": content.fileName = value
      case "mimeType": content.mimeType = value
      default:
        if let item = MetaMember(kodoField: name, value: value) {
          content.meta.append(item)
        } else if WireText.hasPrefix(name, "x:") {
          content.variables.append((String(name), value))
        }
      }
      index += 2
    }
    let contexts = request.body.split(separator: UInt8(ascii: ","))
      .map { String(decoding: $0, as: UTF8.self) }
    let now = configuration.clock.unixSeconds
    var sessions = [UploadSessions.Session]()
    for context in contexts {
      guard let session = uploads.session(context, bucket: policy.bucket, now: now),
        session.key == nil, let block = session.metadata,
        Int64(session.parts[1]?.bytes.count ?? -1) == block.fsize
      else { return error(701, "invalid context", reqid: reqid) }
      sessions.append(session)
    }
    content.chunks = sessions.map { $0.parts[1]?.bytes ?? [] }
    guard content.chunks.reduce(0, { $0 + Int64($1.count) }) == size else {
      return error(400, "the file size does not match the blocks", reqid: reqid)
    }
    // With v1, a whole-bucket scope overwrites unless `insertOnly` is set.
    var effective = policy
    if policy.scopeKey == nil && !policy.insertOnly { effective.overwritesWholeBucket = true }
    let reply = store(content, policy: effective, reqid: reqid)
    if reply.status.code == 200 {
      for session in sessions { uploads.remove(session.id) }
    }
    return reply
  }
}
