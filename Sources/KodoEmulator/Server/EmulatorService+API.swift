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
      let metadata = source.metadata(at: item.index)
      // An item whose key needs no escaping (nearly all) is one raw write (`RawJSON`).
      let plain = item.key.withUnsafeBufferPointer { !JSONText.mayNeedEscaping($0) }
      guard plain else {
        if position > 0 { buffer.writeStaticString(",") }
        buffer.writeStaticString("{\"key\":")
        buffer.writeJSONString(item.key)
        buffer.writeObjectFields(metadata, forList: true)
        buffer.writeStaticString("}")
        continue
      }
      buffer.writeRaw(room: item.key.count + 12 + ByteBuffer.objectFieldsRoom(metadata)) { json in
        if position > 0 { json.literal(",") }
        json.literal("{\"key\":")
        item.key.withUnsafeBufferPointer { json.quoted(plain: $0) }
        json.objectFields(metadata, forList: true)
        json.literal("}")
      }
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
  /// content of a stat answer; at a raw pointer into room reserved once (`RawJSON`), so a list
  /// item's members cost one capacity check.
  mutating func writeObjectFields(_ metadata: ObjectMetadata, forList: Bool) {
    writeRaw(room: Self.objectFieldsRoom(metadata)) { $0.objectFields(metadata, forList: forList) }
  }

  /// The most bytes `writeObjectFields` writes for `metadata`: its strings, and the member names,
  /// punctuation and numbers, which take less than 600 bytes in all.
  static func objectFieldsRoom(_ metadata: ObjectMetadata) -> Int {
    var room = 600 + RawJSON.room(metadata.hash) + RawJSON.room(metadata.mimeType)
    room += RawJSON.room(metadata.md5) + RawJSON.room(metadata.endUser)
    for member in metadata.meta {
      room += 1 + RawJSON.room(member.name) + 1 + RawJSON.room(member.value)
    }
    return room
  }
}

extension RawJSON {
  /// `ByteBuffer.writeObjectFields`.
  mutating func objectFields(_ metadata: ObjectMetadata, forList: Bool) {
    if forList {
      literal(",\"hash\":")
      string(metadata.hash)
      literal(",\"fsize\":")
      decimal(metadata.fsize)
    } else {
      literal("\"fsize\":")
      decimal(metadata.fsize)
      literal(",\"hash\":")
      string(metadata.hash)
    }
    literal(",\"mimeType\":")
    string(metadata.mimeType)
    literal(",\"putTime\":")
    decimal(metadata.putTime)
    literal(",\"type\":")
    decimal(metadata.type)
    // A list item always has `status`; a stat answer only when the object is disabled.
    if forList || metadata.status != 0 {
      literal(",\"status\":")
      decimal(metadata.status)
    }
    member(",\"md5\":", metadata.md5)
    member(",\"endUser\":", metadata.endUser)
    if !metadata.meta.isEmpty {
      literal(",\"x-qn-meta\":{")
      for (position, member) in metadata.meta.enumerated() {
        if position > 0 { literal(",") }
        string(member.name)
        literal(":")
        string(member.value)
      }
      literal("}")
    }
    member(",\"restoreStatus\":", metadata.restoreStatus.map(Int64.init))
    member(",\"lastModify\":", metadata.lastModify)
    guard !forList else { return }
    member(",\"expiration\":", metadata.expiration)
    member(",\"transitionToIA\":", metadata.transitionToIA)
    member(",\"transitionToArchiveIR\":", metadata.transitionToArchiveIR)
    member(",\"transitionToARCHIVE\":", metadata.transitionToArchive)
    member(",\"transitionToDeepArchive\":", metadata.transitionToDeepArchive)
  }

  /// `name` (`,"member":`) and the string, when there is one.
  private mutating func member(_ name: StaticString, _ value: String?) {
    guard let value else { return }
    literal(name)
    string(value)
  }

  /// `name` (`,"member":`) and the number, when there is one.
  private mutating func member(_ name: StaticString, _ value: Int64?) {
    guard let value else { return }
    literal(name)
    decimal(value)
  }
}
