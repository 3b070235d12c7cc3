import Foundation
import NIOCore
import OSSCore
import StorageCore

extension OSSFront {
  /// The upload `?uploadId=` names, for `key` in `store`.
  func session(_ store: BucketStore, key: String, _ context: AnswerContext) throws(OSSFailure)
    -> UploadSessions.Session
  {
    guard let id = context.incoming.parameter("uploadId"),
      let session = service.uploads.session(id, bucket: store.name, now: context.now),
      session.key == Array(key.utf8)
    else {
      throw OSSFailure(
        status: 404, code: "NoSuchUpload",
        message: "The specified upload does not exist. The upload ID may be invalid, or the "
          + "upload may have been aborted or completed.",
        fields: ["UploadId": context.incoming.parameter("uploadId") ?? ""])
    }
    return session
  }

  /// Appends `<name>key</name>`, percent-encoded when the request asked `encoding-type=url`.
  private func key(
    _ name: StaticString, _ key: [UInt8], _ writer: inout XMLWriter, _ context: AnswerContext
  ) {
    let encoded = context.incoming.parameter("encoding-type") == "url"
    writer.open(name)
    key.withUnsafeBufferPointer { writer.text(utf8: $0, percentEncoded: encoded) }
    writer.close(name)
  }

  private func encodingType(_ writer: inout XMLWriter, _ context: AnswerContext) {
    if context.incoming.parameter("encoding-type") == "url" {
      writer.element("EncodingType", "url")
    }
  }

  // MARK: Initiate, parts

  func initiate(_ store: BucketStore, key: String, _ context: AnswerContext) throws(OSSFailure)
    -> Reply
  {
    try Self.validate(key: key)
    let headers = context.incoming.headers
    let metadata = try objectMetadata(headers, key: key)
    let forbid = try Self.forbidOverwrite(headers)
    let session = service.uploads.create(
      bucket: store.name, key: Array(key.utf8), now: context.now, metadata: metadata,
      forbidOverwrite: forbid, store: store.writable)
    var writer = XMLWriter()
    writer.open("InitiateMultipartUploadResult")
    encodingType(&writer, context)
    writer.element("Bucket", store.name)
    self.key("Key", Array(key.utf8), &writer, context)
    writer.element("UploadId", session.id)
    writer.close("InitiateMultipartUploadResult")
    return xml(writer.bytes, context)
  }

  func uploadPart(
    _ store: BucketStore, key: String, _ request: IncomingRequest, _ context: AnswerContext
  ) throws(OSSFailure) -> Reply {
    guard let numberText = context.incoming.parameter("partNumber") else {
      throw OSSFailure(
        status: 400, code: "InvalidArgument", message: "Unexpected query string parameter.",
        ec: "0017-00000219")
    }
    guard let number = Int(numberText), (1...10_000).contains(number) else {
      throw OSSFailure(
        status: 400, code: "InvalidArgument",
        message: "Part number must be an integer between 1 and 10000, inclusive.",
        ec: "0017-00000220", fields: ["ArgumentName": "PartNumber", "ArgumentValue": numberText])
    }
    let session = try session(store, key: key, context)
    let headers = context.incoming.headers
    var payload = request.content
    let isCopy = headers["x-oss-copy-source"] != nil
    if isCopy {
      let (source, sourceKey, index) = try copySource(headers)
      guard let body = source.body(at: index) else {
        throw Self.failure(.noSuchKey, key: sourceKey)
      }
      payload = .whole(body)
      if let range = headers["x-oss-copy-source-range"] {
        guard case .range(let first, let last) = ByteRange.parse(range, length: body.length)
        else {
          throw OSSFailure(
            status: 416, code: "InvalidRange", message: "The requested range is not satisfiable.")
        }
        payload = payload.slice(first, last - first + 1)
      }
    }
    // The part's MD5 and CRC-64, computed as it was spooled, or as it is read (a copied range
    // is copied into the spool in the same pass): completion combines them, never reading the
    // part again (the qetag is computed when a Kodo read first asks for it).
    let held: (data: Payload, digests: PartDigests)
    do throws(StoreFailure) {
      held =
        isCopy
        ? try payload.held(digests: .oss, spool: service.spool)
        : (request.content, try request.contentDigests(.oss))
    } catch {
      throw Self.failure(error, key: key)
    }
    let md5 = held.digests.md5
    if !isCopy { try Self.checkContentMD5(headers["Content-MD5"], md5) }
    let etag = Hex.encode(md5).uppercased()
    guard let crc = held.digests.crc64 else { throw Self.failure(.io, key: key) }
    let part = UploadSessions.Part(
      number: number, data: held.data, digests: held.digests, etag: etag, putTime: context.now,
      slot: isCopy ? nil : request.slot)
    do throws(UploadSessions.Failure) {
      try service.uploads.put(part, in: session.id, bucket: store.name, now: context.now)
    } catch .memoryFull {
      throw Self.failure(.memoryFull, key: key)
    } catch {
      _ = try self.session(store, key: key, context)
    }
    if isCopy {
      var writer = XMLWriter()
      writer.open("CopyPartResult")
      writer.element("LastModified", OSSTime.iso8601(Timestamp(unixSeconds: context.now)))
      writer.element("ETag", "\"" + etag + "\"")
      writer.close("CopyPartResult")
      var answer = xml(writer.bytes, context)
      // The SDKs read the part's ETag from the header (oss2's upload_part_copy), not the body.
      answer.headers += [("ETag", "\"" + etag + "\""), ("x-oss-hash-crc64ecma", String(crc))]
      return answer
    }
    var answer = empty(200, context)
    answer.headers += [
      ("ETag", "\"" + etag + "\""), ("x-oss-hash-crc64ecma", String(crc)),
      ("Content-MD5", Data(md5).base64EncodedString()),
    ]
    return answer
  }

  // MARK: Complete

  func complete(
    _ store: BucketStore, key: String, _ request: IncomingRequest, _ context: AnswerContext
  ) throws(OSSFailure) -> Reply {
    let session = try session(store, key: key, context)
    let headers = context.incoming.headers
    try Self.checkContentMD5(headers["Content-MD5"], Digest.md5(request.body))
    var listed = [(number: Int, etag: String)]()
    if headers["x-oss-complete-all"] == "yes" {
      listed = session.sortedParts.map { ($0.number, $0.etag) }
    } else {
      listed = try Self.completionList(request.body)
    }
    guard !listed.isEmpty else { throw Self.malformedXML }
    var chosen = [UploadSessions.Part]()
    for item in listed {
      if let previous = chosen.last, previous.number >= item.number {
        throw OSSFailure(
          status: 400, code: "InvalidPartOrder",
          message: "The list of parts was not in ascending order. The parts list must be "
            + "specified in order by part number.", ec: "0042-00000209")
      }
      guard let part = session.parts[item.number], part.etag == item.etag else {
        throw OSSFailure(
          status: 400, code: "InvalidPart",
          message: "One or more of the specified parts could not be found or the specified "
            + "entity tag might not have matched the part's entity tag.",
          fields: ["PartNumber": String(item.number), "ETag": item.etag])
      }
      chosen.append(part)
    }
    for part in chosen.dropLast() where part.size < 100 * 1_024 {
      throw OSSFailure(
        status: 400, code: "EntityTooSmall",
        message: "Your proposed upload is smaller than the minimum allowed size.",
        ec: "0042-00000213",
        fields: ["PartNumber": String(part.number), "ProposedSize": String(part.size)])
    }
    let forbidden = try Self.forbidOverwrite(headers)
    let forbid = session.forbidOverwrite || forbidden
    // The parts are joined by file copies; the CRC-64 comes from the parts' own (computed while
    // joining only for parts that have none), and the qetag is computed when a Kodo read first
    // asks for it.
    let combined = ContentDigests.combining(chosen.map(\.digests), boundaries: .blocks)
    var hashed: DigestPass.Options = combined == nil ? .blocks : []
    if combined?.crc64 == nil { hashed.insert(.crc64) }
    // Parts 1…N in their place in the session's file become the object without a copy.
    let joined = hashed.isEmpty ? service.uploads.join(chosen, of: session) : nil
    defer { service.uploads.finish(joined) }
    let prepared: (content: PreparedContent, digests: PartDigests)
    if let joined {
      prepared = (joined.content, PartDigests())
    } else {
      prepared = try prepare(store, chosen.map(\.data), key: key, digests: hashed)
    }
    var digests = combined ?? ContentDigests(prepared.digests)
    guard let crc = digests.crc64 ?? prepared.digests.crc64 else {
      throw Self.failure(.io, key: key)
    }
    digests.crc64 = crc
    var metadata =
      session.metadata
      ?? ObjectMetadata(fsize: 0, hash: "", mimeType: MimeTypes.forKey(key), putTime: 0)
    metadata.fsize = digests.fsize
    metadata.hash = digests.hash
    metadata.crc64 = digests.crc64
    metadata.putTime = service.putTimeNow
    metadata.isMultipart = true
    metadata.ossETag =
      Hex.encode(Digest.md5(Array(chosen.map(\.digests.md5).joined()))).uppercased() + "-"
      + String(chosen.count)
    try put(
      store, key: key, content: prepared.content, metadata: metadata, forbidOverwrite: forbid)
    service.uploads.remove(session.id)
    var writer = XMLWriter()
    writer.open("CompleteMultipartUploadResult")
    encodingType(&writer, context)
    writer.element("Location", service.baseURL + "/" + store.name + "/" + key)
    writer.element("Bucket", store.name)
    self.key("Key", Array(key.utf8), &writer, context)
    writer.element("ETag", "\"" + (metadata.ossETag ?? "") + "\"")
    writer.close("CompleteMultipartUploadResult")
    var answer = xml(writer.bytes, context)
    answer.headers.append(("x-oss-hash-crc64ecma", String(crc)))
    return answer
  }

  static let malformedXML = OSSFailure(
    status: 400, code: "MalformedXML",
    message: "The XML you provided was not well-formed or did not validate against our "
      + "published schema.")

  /// The parts a CompleteMultipartUpload body lists, ETags without their quotes.
  static func completionList(_ body: [UInt8]) throws(OSSFailure) -> [(number: Int, etag: String)] {
    do throws(XMLPullReader.Failure) {
      return try XMLPullReader.read(body) { (reader, root) throws(XMLPullReader.Failure) in
        guard root == "CompleteMultipartUpload" else { throw reader.failure("not a completion") }
        var parts = [(number: Int, etag: String)]()
        try reader.readChildren { (reader, name) throws(XMLPullReader.Failure) in
          guard name == "Part" else { return }
          var number: Int?
          var etag: String?
          try reader.readChildren { (reader, field) throws(XMLPullReader.Failure) in
            if field == "PartNumber" { number = Int(try reader.readString()) }
            if field == "ETag" { etag = try reader.readString() }
          }
          guard let number, let etag else { throw reader.failure("a part without its fields") }
          parts.append((number, etag.filter { $0 != "\"" }.uppercased()))
        }
        return parts
      }
    } catch {
      throw malformedXML
    }
  }

  // MARK: Listing uploads and parts

  func listParts(_ store: BucketStore, key: String, _ context: AnswerContext) throws(OSSFailure)
    -> Reply
  {
    let session = try session(store, key: key, context)
    let maximum =
      context.incoming.parameter("max-parts").flatMap { Int($0) }
      .map { min(max($0, 1), 1_000) } ?? 1_000
    let marker = context.incoming.parameter("part-number-marker").flatMap { Int($0) } ?? 0
    let all = session.sortedParts.filter { $0.number > marker }
    let page = all.prefix(maximum)
    var writer = XMLWriter()
    writer.open("ListPartsResult")
    encodingType(&writer, context)
    writer.element("Bucket", store.name)
    self.key("Key", Array(key.utf8), &writer, context)
    writer.element("UploadId", session.id)
    writer.element("PartNumberMarker", String(marker))
    writer.element("NextPartNumberMarker", String(page.last?.number ?? marker))
    writer.element("MaxParts", String(maximum))
    writer.element("IsTruncated", all.count > page.count ? "true" : "false")
    for part in page {
      writer.open("Part")
      writer.element("PartNumber", String(part.number))
      writer.element("LastModified", OSSTime.iso8601(Timestamp(unixSeconds: part.putTime)))
      writer.element("ETag", "\"" + part.etag + "\"")
      if let crc = part.digests.crc64 { writer.element("HashCrc64ecma", String(crc)) }
      writer.element("Size", String(part.size))
      writer.close("Part")
    }
    writer.close("ListPartsResult")
    return xml(writer.bytes, context)
  }

  func listUploads(_ store: BucketStore, _ context: AnswerContext) -> Reply {
    let prefix = Array((context.incoming.parameter("prefix") ?? "").utf8)
    let keyMarker = Array((context.incoming.parameter("key-marker") ?? "").utf8)
    let maximum =
      context.incoming.parameter("max-uploads").flatMap { Int($0) }
      .map { min(max($0, 1), 1_000) } ?? 1_000
    let all = service.uploads.sessions(of: store.name, now: context.now).filter { session in
      let key = session.key ?? []
      return ByteOrder.hasPrefix(key, prefix)
        && (keyMarker.isEmpty || ByteOrder.compare(key, keyMarker) > 0)
    }
    let page = all.prefix(maximum)
    var writer = XMLWriter()
    writer.open("ListMultipartUploadsResult")
    encodingType(&writer, context)
    writer.element("Bucket", store.name)
    self.key("KeyMarker", keyMarker, &writer, context)
    writer.element("UploadIdMarker", "")
    self.key("NextKeyMarker", all.count > page.count ? page.last?.key ?? [] : [], &writer, context)
    writer.element("NextUploadIdMarker", all.count > page.count ? page.last?.id ?? "" : "")
    writer.element("Delimiter", "")
    self.key("Prefix", prefix, &writer, context)
    writer.element("MaxUploads", String(maximum))
    writer.element("IsTruncated", all.count > page.count ? "true" : "false")
    for session in page {
      writer.open("Upload")
      self.key("Key", session.key ?? [], &writer, context)
      writer.element("UploadId", session.id)
      writer.element("Initiated", OSSTime.iso8601(Timestamp(unixSeconds: session.initiated)))
      writer.close("Upload")
    }
    writer.close("ListMultipartUploadsResult")
    return xml(writer.bytes, context)
  }

  // MARK: DeleteMultipleObjects

  func deleteMultiple(_ store: BucketStore, _ request: IncomingRequest, _ context: AnswerContext)
    throws(OSSFailure) -> Reply
  {
    guard let md5Header = context.incoming.headers["Content-MD5"] else {
      throw OSSFailure(
        status: 400, code: "InvalidDigest",
        message: "Missing required header for this request: Content-MD5.")
    }
    try Self.checkContentMD5(md5Header, Digest.md5(request.body))
    var quiet = false
    var keys = [String]()
    do throws(XMLPullReader.Failure) {
      try XMLPullReader.read(request.body) { (reader, root) throws(XMLPullReader.Failure) in
        guard root == "Delete" else { throw reader.failure("not a Delete") }
        try reader.readChildren { (reader, name) throws(XMLPullReader.Failure) in
          if name == "Quiet" {
            quiet = try reader.readString() == "true"
          } else if name == "Object" {
            try reader.readChildren { (reader, field) throws(XMLPullReader.Failure) in
              if field == "Key" { keys.append(try reader.readString()) }
            }
          }
        }
      }
    } catch {
      throw Self.malformedXML
    }
    guard !keys.isEmpty, keys.count <= 1_000 else { throw Self.malformedXML }
    var deleted = [String]()
    for key in keys {
      do throws(StoreFailure) {
        try store.writable?.delete(key: Array(key.utf8))
      } catch .noSuchKey {
        // Deleting what is not there succeeds.
      } catch {
        throw Self.failure(error, key: key)
      }
      deleted.append(key)
    }
    if quiet { return xml([], context) }
    var writer = XMLWriter()
    writer.open("DeleteResult")
    encodingType(&writer, context)
    for key in deleted {
      writer.open("Deleted")
      self.key("Key", Array(key.utf8), &writer, context)
      writer.close("Deleted")
    }
    writer.close("DeleteResult")
    return xml(writer.bytes, context)
  }
}
