import KodoCore
import NIOCore
import StorageCore

extension EmulatorService {
  // MARK: uc

  /// `/v4/query`: one region, every service pointing back at this server.
  ///
  /// `io_src` (a bucket's origin download domain) is `HOST:PORT/dl/BUCKET`: a client that adds
  /// a scheme and `/KEY` to it reaches the object.
  func regionQuery(_ query: QueryParameters, reqid: String) -> Reply {
    guard let name = query.first("bucket"), buckets[name] != nil else {
      return error(631, "no such bucket", reqid: reqid)
    }
    var buffer = ByteBuffer()
    buffer.writeStaticString("{\"hosts\":[{\"region\":\"z0\",\"ttl\":86400")
    for service in ["uc", "rs", "rsf", "api", "io", "up"] {
      buffer.writeStaticString(",")
      buffer.writeJSONString(service)
      buffer.writeStaticString(":{\"domains\":[")
      buffer.writeJSONString(authority)
      buffer.writeStaticString("]}")
    }
    buffer.writeStaticString(",\"io_src\":{\"domains\":[")
    buffer.writeJSONString(authority + "/dl/" + name)
    buffer.writeStaticString("]}}]}")
    return json(200, buffer, reqid: reqid)
  }

  /// `/buckets`: the names, sorted.
  func bucketList(reqid: String) -> Reply {
    json(200, JSONBody.stringArray(bucketNames), reqid: reqid)
  }

  /// `/v2/buckets`: the buckets with their region, creation time and visibility.
  func bucketListV2(reqid: String) -> Reply {
    var buffer = ByteBuffer()
    buffer.writeStaticString("[")
    for (index, name) in bucketNames.enumerated() {
      guard let bucket = buckets[name] else { continue }
      if index > 0 { buffer.writeStaticString(",") }
      buffer.writeStaticString("{\"id\":")
      buffer.writeJSONString("kodo-emulator-" + name)
      buffer.writeStaticString(",\"tbl\":")
      buffer.writeJSONString(name)
      buffer.writeStaticString(",\"region\":\"z0\",\"zone\":\"z0\",\"ctime\":")
      buffer.writeDecimal(bucket.ctime)
      buffer.writeStaticString(",\"perm\":0,\"private\":")
      buffer.writeDecimal(bucket.isPrivate ? 1 : 0)
      buffer.writeStaticString(",\"remark\":\"\"}")
    }
    buffer.writeStaticString("]")
    return json(200, buffer, reqid: reqid)
  }

  /// `/v2/bucketInfo?bucket=`.
  func bucketInfo(_ query: QueryParameters, reqid: String) -> Reply {
    guard let name = query.first("bucket"), let bucket = buckets[name] else {
      return error(631, "no such bucket", reqid: reqid)
    }
    var buffer = ByteBuffer()
    buffer.writeStaticString(
      "{\"source\":\"\",\"host\":\"\",\"expires\":0,\"protected\":0,\"private\":")
    buffer.writeDecimal(bucket.isPrivate ? 1 : 0)
    buffer.writeString(
      ",\"no_index_page\":0,\"max_age\":0,\"separator\":\"-\",\"styles\":{},"
        + "\"anti_leech_mode\":0,\"token_anti_leech_mode\":0,\"token_anti_leech\":0,"
        + "\"refer_wl\":[],\"refer_bl\":[],\"source_enabled\":false,"
        + "\"allow_empty_referer\":true,\"no_refer\":true,\"zone\":\"z0\","
        + "\"region\":\"z0\",\"remark\":\"\",\"ctime\":")
    // A string here (go-sdk decodes it as a time.Time), unlike /v2/buckets' Unix seconds.
    buffer.writeJSONString(KodoTime.rfc3339(unixSeconds: bucket.ctime))
    buffer.writeStaticString("}")
    return json(200, buffer, reqid: reqid)
  }

  /// `/v2/domains?tbl=`: the bucket's download base URL, scheme included (see
  /// `docs/emulator.md`: the emulator serves plain HTTP only, so it says so).
  func domains(_ query: QueryParameters, reqid: String) -> Reply {
    guard let name = query.first("tbl"), buckets[name] != nil else {
      return error(631, "no such bucket", reqid: reqid)
    }
    return json(200, JSONBody.stringArray([downloadDomain(for: name)]), reqid: reqid)
  }

  // MARK: rsf

  /// `/list?bucket=&prefix=&delimiter=&marker=&limit=`.
  func list(_ query: QueryParameters, reqid: String) -> Reply {
    guard let name = query.first("bucket"), let bucket = buckets[name] else {
      return error(631, "no such bucket", reqid: reqid)
    }
    var listQuery = ListQuery()
    if let limitText = query.first("limit"), !limitText.isEmpty {
      guard let limit = Int(limitText), (1...1_000).contains(limit) else {
        return error(400, "invalid list limit", reqid: reqid)
      }
      listQuery.limit = limit
    }
    if let marker = query.first("marker"), !marker.isEmpty {
      guard let key = ListMarker.decode(marker) else {
        return error(640, "invalid marker", reqid: reqid)
      }
      listQuery.marker = key
    }
    listQuery.prefix = Array((query.first("prefix") ?? "").utf8)
    listQuery.delimiter = Array((query.first("delimiter") ?? "").utf8)

    let source = bucket.source
    let page = Listing.page(of: source, listQuery)
    // The marker goes out first, on its own: the client can ask for the next page while the
    // entries of this one are written.
    var lead = ByteBuffer()
    lead.writeStaticString("{\"marker\":")
    if let next = page.nextMarker {
      lead.writeJSONString(ListMarker.encode(next))
    } else {
      lead.writeStaticString("\"\"")
    }
    let reply = json(200, lead, reqid: reqid)
    return Reply(
      status: reply.status, headers: reply.headers,
      body: .lead(lead, rest: { Self.listEntries(page, of: source) }))
  }

  /// A list answer after its marker: the common prefixes and the items.
  private static func listEntries(_ page: ListSlice, of source: any ObjectSource) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(64 + page.items.count * 220 + page.commonPrefixes.count * 40)
    if !page.commonPrefixes.isEmpty {
      buffer.writeStaticString(",\"commonPrefixes\":[")
      for (position, prefix) in page.commonPrefixes.enumerated() {
        if position > 0 { buffer.writeStaticString(",") }
        buffer.writeJSONString(prefix)
      }
      buffer.writeStaticString("]")
    }
    buffer.writeStaticString(",\"items\":[")
    for (position, item) in page.items.enumerated() {
      if position > 0 { buffer.writeStaticString(",") }
      buffer.writeStaticString("{\"key\":")
      buffer.writeJSONString(item.key)
      let metadata = source.metadata(at: item.index)
      buffer.writeObjectFields(metadata, forList: true)
      buffer.writeStaticString("}")
    }
    buffer.writeStaticString("]}")
    return buffer
  }

  // MARK: rs

  /// `/stat/<EncodedEntryURI>`.
  func stat(_ entry: Substring, reqid: String) -> Reply {
    guard let decoded = PercentEncoding.decode(String(entry)),
      let (bucketName, key) = EncodedEntryURI.decode(decoded), let key
    else {
      return error(400, "invalid argument", reqid: reqid)
    }
    guard let bucket = buckets[bucketName] else {
      return error(631, "no such bucket", reqid: reqid)
    }
    let source = bucket.source
    guard let index = source.index(of: Array(key.utf8)) else {
      return error(612, "no such file or directory", reqid: reqid)
    }
    var buffer = ByteBuffer()
    buffer.writeStaticString("{")
    buffer.writeObjectFields(source.metadata(at: index), forList: false)
    buffer.writeStaticString("}")
    return json(200, buffer, reqid: reqid)
  }
}

extension ByteBuffer {
  /// Writes an object's members: after `"key":…` for a list item (`,` first), or as the whole
  /// content of a stat answer.
  mutating func writeObjectFields(_ metadata: ObjectMetadata, forList: Bool) {
    if forList {
      writeStaticString(",\"hash\":")
      writeJSONString(metadata.hash)
      writeStaticString(",\"fsize\":")
      writeDecimal(metadata.fsize)
    } else {
      writeStaticString("\"fsize\":")
      writeDecimal(metadata.fsize)
      writeStaticString(",\"hash\":")
      writeJSONString(metadata.hash)
    }
    writeStaticString(",\"mimeType\":")
    writeJSONString(metadata.mimeType)
    writeStaticString(",\"putTime\":")
    writeDecimal(metadata.putTime)
    writeStaticString(",\"type\":")
    writeDecimal(metadata.type)
    // A list item always has `status`; a stat answer only when the object is disabled.
    if forList || metadata.status != 0 {
      writeStaticString(",\"status\":")
      writeDecimal(metadata.status)
    }
    writeMember(",\"md5\":", metadata.md5)
    writeMember(",\"endUser\":", metadata.endUser)
    if !metadata.meta.isEmpty {
      writeStaticString(",\"x-qn-meta\":{")
      for (position, member) in metadata.meta.enumerated() {
        if position > 0 { writeStaticString(",") }
        writeJSONString(member.name)
        writeStaticString(":")
        writeJSONString(member.value)
      }
      writeStaticString("}")
    }
    writeMember(",\"restoreStatus\":", metadata.restoreStatus.map(Int64.init))
    writeMember(",\"lastModify\":", metadata.lastModify)
    guard !forList else { return }
    writeMember(",\"expiration\":", metadata.expiration)
    writeMember(",\"transitionToIA\":", metadata.transitionToIA)
    writeMember(",\"transitionToArchiveIR\":", metadata.transitionToArchiveIR)
    writeMember(",\"transitionToARCHIVE\":", metadata.transitionToArchive)
    writeMember(",\"transitionToDeepArchive\":", metadata.transitionToDeepArchive)
  }

  /// Writes `name` (`,"member":`) and the string, when there is one.
  private mutating func writeMember(_ name: StaticString, _ value: String?) {
    guard let value else { return }
    writeStaticString(name)
    writeJSONString(value)
  }

  /// Writes `name` (`,"member":`) and the number, when there is one.
  private mutating func writeMember(_ name: StaticString, _ value: Int64?) {
    guard let value else { return }
    writeStaticString(name)
    writeDecimal(value)
  }
}
