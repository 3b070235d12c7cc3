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
        (1...QETag.blockSize).contains(size), request.content.count <= Int64(size)
      else { return error(400, "invalid block size", reqid: reqid) }
      let session: UploadSessions.Session
      do throws(UploadSessions.Failure) {
        session = try uploads.createBlock(
          bucket: policy.bucket, size: Int64(size), spool: spool, now: now)
      } catch .memoryFull {
        return error(413, "the emulator's memory limit is reached", reqid: reqid)
      } catch {
        return storeError(.io, reqid: reqid)
      }
      return append(request.content, to: session, at: 0, reqid: reqid)
    case "bput":
      let arguments = Array(segments.dropFirst())
      guard arguments.count == 2, let offset = Int64(arguments[1]) else {
        return error(400, "invalid argument", reqid: reqid)
      }
      guard let session = uploads.session(String(arguments[0]), bucket: policy.bucket, now: now),
        session.key == nil, session.block != nil
      else { return error(701, "invalid context", reqid: reqid) }
      return append(request.content, to: session, at: offset, reqid: reqid)
    case "mkfile":
      return makeFile(Array(segments.dropFirst()), policy: policy, request: request, reqid: reqid)
    default:
      return error(404, "no such API", reqid: reqid)
    }
  }

  /// Adds a chunk to a block and answers as `mkblk` and `bput` do.
  private func append(
    _ chunk: Payload, to session: UploadSessions.Session, at offset: Int64, reqid: String
  ) -> Reply {
    guard let block = session.block else { return error(701, "invalid context", reqid: reqid) }
    let progress: KodoBlock.Progress
    do throws(StoreFailure) {
      progress = try block.append(chunk, at: offset)
    } catch .noSuchKey {
      return error(400, "invalid offset", reqid: reqid)
    } catch {
      return storeError(error, reqid: reqid)
    }
    var body = ByteBuffer()
    body.writeStaticString("{\"ctx\":")
    body.writeJSONString(session.id)
    body.writeStaticString(",\"checksum\":")
    body.writeJSONString(URLSafeBase64.encode(progress.sha1))
    body.writeStaticString(",\"crc32\":")
    body.writeDecimal(Int64(progress.crc32))
    body.writeStaticString(",\"offset\":")
    body.writeDecimal(progress.size)
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
    var content = UploadContent(payloads: [], digests: ContentDigests(PartDigests()))
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
    var blocks = [(data: Payload, digests: PartDigests)]()
    for context in contexts {
      guard let session = uploads.session(context, bucket: policy.bucket, now: now),
        session.key == nil, let block = session.block?.finished
      else { return error(701, "invalid context", reqid: reqid) }
      sessions.append(session)
      blocks.append(block)
    }
    guard blocks.reduce(0, { $0 + $1.data.count }) == size else {
      return error(400, "the file size does not match the blocks", reqid: reqid)
    }
    // With every block but the last 4 MiB (the SDKs' blocks are the qetag's) the object's digests
    // combine the blocks' own; the blocks are joined by file copies.
    do throws(StoreFailure) {
      content.digests = try ContentDigests.joining(blocks)
    } catch {
      return storeError(error, reqid: reqid)
    }
    content.payloads = blocks.map(\.data)
    content.ossETag =
      Hex.encode(Digest.md5(Array(blocks.map(\.digests.md5).joined()))).uppercased() + "-"
      + String(blocks.count)
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
