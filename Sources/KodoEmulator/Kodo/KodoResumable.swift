import Foundation
import KodoCore
import NIOCore
import StorageCore

extension EmulatorService {
  /// Resumable upload v2: `/buckets/B/objects/<b64 key | ~>/uploads[/<id>[/<part>]]`.
  func resumableV2(_ path: Substring, request: IncomingRequest, reqid: String) -> Reply {
    let parts = KeySegments.segments(of: path)
    // "", "buckets", B, "objects", OBJ, "uploads", [ID, [N]]
    guard parts.count >= 6, parts.count <= 8, parts[3] == "objects", parts[5] == "uploads" else {
      return error(404, "no such API", reqid: reqid)
    }
    let bucket = String(parts[2])
    var key: String?
    if parts[4] != "~" {
      guard let bytes = URLSafeBase64.decode(String(parts[4])),
        let text = String(validating: bytes, as: UTF8.self)
      else { return error(400, "invalid object name", reqid: reqid) }
      key = text
    }
    let policy: UploadPolicy
    switch uploadPolicy(Self.upToken(request), reqid: reqid) {
    case .failure(let refused): return refused.reply
    case .success(let value): policy = value
    }
    guard policy.bucket == bucket else {
      return error(403, "bucket doesn't match with scope", reqid: reqid)
    }
    guard buckets[bucket] != nil else { return error(631, "no such bucket", reqid: reqid) }
    let now = configuration.clock.unixSeconds
    let method = request.head.method
    guard parts.count > 6 else {
      guard method == .POST else { return error(405, "method not allowed", reqid: reqid) }
      let store: ObjectStore
      switch writableStore(bucket) {
      case .failure(let result): return error(result.code, result.message ?? "", reqid: reqid)
      case .success(let value): store = value
      }
      let session = uploads.create(
        bucket: bucket, key: key.map { Array($0.utf8) }, now: now, store: store)
      var body = ByteBuffer()
      body.writeStaticString("{\"uploadId\":")
      body.writeJSONString(session.id)
      body.writeStaticString(",\"expireAt\":")
      body.writeDecimal(session.expires)
      body.writeStaticString("}")
      return json(200, body, reqid: reqid)
    }
    let id = String(parts[6])
    guard let session = uploads.session(id, bucket: bucket, now: now),
      session.key == key.map({ Array($0.utf8) })
    else { return error(612, "no such uploadId", reqid: reqid) }
    if parts.count == 8 {
      guard method == .PUT else { return error(405, "method not allowed", reqid: reqid) }
      return uploadPart(parts[7], of: session, request: request, reqid: reqid)
    }
    switch method {
    case .DELETE:
      uploads.remove(id)
      var body = ByteBuffer()
      body.writeStaticString("{}")
      return json(200, body, reqid: reqid)
    case .GET:
      return listParts(session, request: request, reqid: reqid)
    case .POST:
      return complete(session, key: key, policy: policy, request: request, reqid: reqid)
    default:
      return error(405, "method not allowed", reqid: reqid)
    }
  }

  private func uploadPart(
    _ numberText: Substring, of session: UploadSessions.Session, request: IncomingRequest,
    reqid: String
  ) -> Reply {
    guard let number = Int(numberText), (1...10_000).contains(number) else {
      return error(400, "invalid partNumber", reqid: reqid)
    }
    // The part's digests as it is read once: its MD5 and qetag for the answer, its SHA-1 for
    // the object's hash, combined at completion without reading the part again (the CRC-64 is
    // computed when an OSS read first asks for it).
    let digests: PartDigests
    do throws(StoreFailure) {
      digests = try request.contentDigests(Self.v2PartDigests)
    } catch {
      return storeError(error, reqid: reqid)
    }
    let md5 = digests.md5
    if let given = request.head.headers.first(name: "Content-MD5") {
      // Hex, as the SDKs send it; base64 is tolerated.
      let matches =
        given.lowercased() == Hex.encode(md5)
        || URLSafeBase64.decode(
          given.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
          == md5
      guard matches else { return error(400, "Content-MD5 mismatch", reqid: reqid) }
    }
    let etag = digests.qetag
    let part = UploadSessions.Part(
      number: number, data: request.content, digests: digests, etag: etag,
      putTime: configuration.clock.unixSeconds, slot: request.slot)
    do throws(UploadSessions.Failure) {
      try uploads.put(part, in: session.id, bucket: session.bucket, now: part.putTime)
    } catch .memoryFull {
      return error(413, "the emulator's memory limit is reached", reqid: reqid)
    } catch {
      return self.error(612, "no such uploadId", reqid: reqid)
    }
    var body = ByteBuffer()
    body.writeStaticString("{\"etag\":")
    body.writeJSONString(etag)
    body.writeStaticString(",\"md5\":")
    body.writeJSONString(Hex.encode(md5))
    body.writeStaticString("}")
    return json(200, body, reqid: reqid)
  }

  private func listParts(
    _ session: UploadSessions.Session, request: IncomingRequest, reqid: String
  ) -> Reply {
    let query = QueryParameters(RequestTarget(request.head.uri).query)
    let maximum =
      query?.first("max-parts").flatMap { Int($0) }.map { min(max($0, 1), 1_000) }
      ?? 1_000
    let marker =
      (query?.first("part-number-marker") ?? query?.first("part-number_marker"))
      .flatMap { Int($0) } ?? 0
    let all = session.sortedParts.filter { $0.number > marker }
    let page = all.prefix(maximum)
    var body = ByteBuffer()
    body.writeStaticString("{\"uploadId\":")
    body.writeJSONString(session.id)
    body.writeStaticString(",\"expireAt\":")
    body.writeDecimal(session.expires)
    body.writeStaticString(",\"partNumberMarker\":")
    body.writeDecimal(all.count > page.count ? (page.last?.number ?? 0) : 0)
    body.writeStaticString(",\"parts\":[")
    for (position, part) in page.enumerated() {
      if position > 0 { body.writeStaticString(",") }
      body.writeStaticString("{\"size\":")
      body.writeDecimal(part.size)
      body.writeStaticString(",\"etag\":")
      body.writeJSONString(part.etag)
      body.writeStaticString(",\"partNumber\":")
      body.writeDecimal(part.number)
      body.writeStaticString(",\"putTime\":")
      body.writeDecimal(part.putTime)
      body.writeStaticString("}")
    }
    body.writeStaticString("]}")
    return json(200, body, reqid: reqid)
  }

  /// Complete: the parts named, in ascending order, each but the last at least 1 MiB, each
  /// with the ETag its upload answered.
  private func complete(
    _ session: UploadSessions.Session, key: String?, policy: UploadPolicy,
    request: IncomingRequest, reqid: String
  ) -> Reply {
    guard let text = String(validating: request.body, as: UTF8.self),
      case .object(let members)? = try? JSONValue.parse(text)
    else { return error(400, "invalid JSON", reqid: reqid) }
    var fields = [String: JSONValue]()
    for member in members { fields[member.name] = member.value }
    guard case .array(let listed)? = fields["parts"], !listed.isEmpty else {
      return error(400, "parts not specified", reqid: reqid)
    }
    var chosen = [UploadSessions.Part]()
    for item in listed {
      guard case .object(let partMembers) = item else {
        return error(400, "invalid parts", reqid: reqid)
      }
      var etag: String?
      var number: Int?
      for member in partMembers {
        switch (member.name, member.value) {
        case ("etag", .string(let value)): etag = value
        case ("partNumber", .number(let value)): number = Int(value)
        default: break
        }
      }
      guard let etag, let number else { return error(400, "invalid parts", reqid: reqid) }
      if let previous = chosen.last, previous.number >= number {
        return error(400, "parts must be in ascending order", reqid: reqid)
      }
      guard let part = session.parts[number], part.etag == etag else {
        return error(400, "invalid part \(number): not uploaded or wrong etag", reqid: reqid)
      }
      chosen.append(part)
    }
    for part in chosen.dropLast() where part.size < 1 << 20 {
      return error(400, "part \(part.number) is smaller than 1 MiB", reqid: reqid)
    }
    // The hash follows the parts (at 4 MiB parts, exactly the qetag), combined from the parts'
    // own digests as the CRC-64 is; the parts are joined by file copies.
    guard let digests = ContentDigests.combining(chosen.map(\.digests), boundaries: .parts) else {
      return error(400, "invalid parts", reqid: reqid)
    }
    var content = UploadContent(payloads: chosen.map(\.data), digests: digests)
    content.ossETag = Self.multipartETag(chosen)
    content.askedKey = key
    if case .string(let name)? = fields["fname"] { content.fileName = name }
    if case .string(let mime)? = fields["mimeType"] { content.mimeType = mime }
    if case .object(let meta)? = fields["metadata"] {
      for member in meta {
        guard case .string(let value) = member.value,
          let item = MetaMember(kodoField: member.name, value: value)
        else { continue }
        content.meta.append(item)
      }
    }
    if case .object(let variables)? = fields["customVars"] {
      for member in variables {
        if case .string(let value) = member.value { content.variables.append((member.name, value)) }
      }
    }
    // Parts 1…N in their place in the session's file become the object without a copy.
    content.joined = uploads.join(chosen, of: session)
    let reply = store(content, policy: policy, reqid: reqid)
    uploads.finish(content.joined)
    if reply.status.code == 200 { uploads.remove(session.id) }
    return reply
  }

  /// The ETag OSS gives an object joined from `parts`: the MD5 of their MD5s, `-N`.
  static func multipartETag(_ parts: [UploadSessions.Part]) -> String {
    Hex.encode(Digest.md5(Array(parts.map(\.digests.md5).joined()))).uppercased() + "-"
      + String(parts.count)
  }
}
