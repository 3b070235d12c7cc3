import KodoCore
import NIOCore
import OSSCore
import StorageCore

extension OSSFront {
  /// `max-keys`: absent → 100; otherwise a whole number in 1...1000.
  static func maxKeys(_ text: String?) throws(OSSFailure) -> Int {
    guard let text else { return 100 }
    guard text.utf8.count <= 4, let value = Int(text), (1...1_000).contains(value) else {
      throw OSSFailure(
        status: 400, code: "InvalidArgument", message: "Argument max-keys is invalid.",
        fields: ["ArgumentName": "max-keys", "ArgumentValue": text])
    }
    return value
  }

  /// `GET /`: the buckets, by name, after `marker`, starting with `prefix`, `max-keys` a page.
  func listBuckets(_ context: AnswerContext) throws(OSSFailure) -> Reply {
    let query = context.incoming
    let prefix = Array((query.parameter("prefix") ?? "").utf8)
    let marker = Array((query.parameter("marker") ?? "").utf8)
    let maxKeys = try Self.maxKeys(query.parameter("max-keys"))
    let names = service.bucketNames.filter { name in
      let bytes = Array(name.utf8)
      return ByteOrder.hasPrefix(bytes, prefix) && ByteOrder.compare(bytes, marker) > 0
    }
    let page = names.prefix(maxKeys)
    let truncated = names.count > maxKeys
    let result = OSSListBucketsResult(
      prefix: query.parameter("prefix"), marker: query.parameter("marker"),
      maxKeys: query.parameter("max-keys").map { _ in Int64(maxKeys) }, isTruncated: truncated,
      nextMarker: truncated ? page.last : nil, owner: owner,
      buckets: page.map { summary(of: service.buckets[$0], name: $0, full: false) })
    return xml(OSSAnswers.listBucketsXML(result), context)
  }

  /// A bucket as ListBuckets (or, `full`, GetBucketInfo) describes it. Its endpoints are the
  /// emulator's own address, where its requests go.
  func summary(of store: BucketStore?, name: String? = nil, full: Bool) -> OSSBucketSummary {
    OSSBucketSummary(
      name: store?.name ?? name ?? "", creationDate: store.map { Timestamp(unixSeconds: $0.ctime) },
      location: "oss-" + configuration.region, region: configuration.region,
      extranetEndpoint: service.authority, intranetEndpoint: service.authority,
      storageClass: "Standard", dataRedundancyType: full ? "LRS" : nil,
      accessControl: full ? (store?.isPrivate == true ? "private" : "public-read") : nil,
      owner: full ? owner : nil)
  }

  /// `GET /BUCKET/` (ListObjects) and `GET /BUCKET/?list-type=2` (ListObjectsV2), over the
  /// store's listing: objects and common prefixes in byte order, both counted by `max-keys`.
  func listObjects(_ store: BucketStore?, _ context: AnswerContext, v2: Bool)
    throws(OSSFailure) -> Reply
  {
    guard let store else {
      throw OSSFailure(status: 404, code: "NoSuchBucket", message: "The bucket does not exist.")
    }
    let query = context.incoming
    let encodingType = query.parameter("encoding-type")
    if let encodingType, encodingType != "url" {
      throw OSSFailure(
        status: 400, code: "InvalidArgument", message: "The encoding type is invalid.",
        fields: ["ArgumentName": "encoding-type", "ArgumentValue": encodingType])
    }
    let maxKeys = try Self.maxKeys(query.parameter("max-keys"))
    let prefix = query.parameter("prefix") ?? ""
    let delimiter = query.parameter("delimiter") ?? ""
    var listQuery = ListQuery(
      prefix: Array(prefix.utf8), delimiter: Array(delimiter.utf8), marker: nil, limit: maxKeys)
    let token = v2 ? query.parameter("continuation-token").flatMap { $0.isEmpty ? nil : $0 } : nil
    if let token {
      guard let key = ListMarker.decode(token) else {
        throw OSSFailure(
          status: 400, code: "InvalidArgument", message: "The continuation token is invalid.",
          fields: ["ArgumentName": "continuation-token", "ArgumentValue": token])
      }
      listQuery.marker = key
    } else if let start = query.parameter(v2 ? "start-after" : "marker"), !start.isEmpty {
      listQuery.marker = Array(start.utf8)
    }
    let source = store.source
    let page = Listing.page(of: source, listQuery)
    let fetchOwner = !v2 || query.parameter("fetch-owner") == "true"
    var result = OSSListObjectsResult(
      name: store.name, prefix: prefix, delimiter: delimiter, maxKeys: Int64(maxKeys),
      encodingType: encodingType, isTruncated: page.nextMarker != nil)
    if v2 {
      result.continuationToken = token
      result.startAfter = query.parameter("start-after").flatMap { $0.isEmpty ? nil : $0 }
      result.keyCount = Int64(page.items.count + page.commonPrefixes.count)
      result.nextContinuationToken = page.nextMarker.map(ListMarker.encode)
    } else {
      result.marker = query.parameter("marker") ?? ""
      result.nextMarker = page.nextMarker.map { String(decoding: $0, as: UTF8.self) }
    }
    // Written straight into the buffers that go out: no string or summary per object, one raw
    // write per entry. Everything before the entries (`IsTruncated`, `NextContinuationToken`)
    // and the first entry, which shows that they are over, go out first, on their own: the
    // client can ask for the next page while the others are written.
    let entries = page.items.count + page.commonPrefixes.count
    var writer = OSSListingWriter(result, entries: entries)
    let firstItems = min(1, page.items.count)
    let firstPrefixes = firstItems == 0 ? min(1, page.commonPrefixes.count) : 0
    appendEntries(
      page, items: 0..<firstItems, prefixes: 0..<firstPrefixes, of: source,
      fetchOwner: fetchOwner, to: &writer)
    let lead = writer.take()
    let reply = xml([], context)
    return Reply(
      status: reply.status, headers: reply.headers,
      body: .lead(
        lead,
        rest: { [writer] in
          var writer = writer
          writer.reserveCapacity(
            Self.estimatedSize(page, encoded: encodingType != nil, owner: fetchOwner))
          self.appendEntries(
            page, items: firstItems..<page.items.count,
            prefixes: firstPrefixes..<page.commonPrefixes.count, of: source,
            fetchOwner: fetchOwner, to: &writer)
          return writer.finish()
        }), sendsBody: reply.sendsBody)
  }

  /// About how many bytes a page's entries take (keys percent-encoded when `encoded`, owners
  /// when `owner`): the room reserved for them at once.
  private static func estimatedSize(_ page: ListSlice, encoded: Bool, owner: Bool) -> Int {
    var keyBytes = 0
    for item in page.items { keyBytes += item.key.count }
    for prefix in page.commonPrefixes { keyBytes += prefix.count }
    let perEntry = OSSListingWriter.typicalEntryBytes + (owner ? 96 : 0)
    return 4_096 + perEntry * page.items.count + 64 * page.commonPrefixes.count
      + (encoded ? 2 : 1) * keyBytes
  }

  /// Some of a list answer's objects and common prefixes.
  private func appendEntries(
    _ page: ListSlice, items: Range<Int>, prefixes: Range<Int>, of source: any ObjectSource,
    fetchOwner: Bool, to writer: inout OSSListingWriter
  ) {
    let synthetic = source as? SyntheticSource
    let seed = synthetic != nil ? configuration.seed : nil
    var etag = [UInt8]()
    etag.reserveCapacity(48)
    var qetag = [UInt8]()
    for item in page.items[items] {
      // A synthetic object's ETag comes from its qetag's bytes, without the qetag's text.
      // Its MD5 only for an object whose ETag shows it (a "Normal" one): its kind, found for
      // that, is kept.
      var syntheticKind: (type: String, parts: Int)?
      let metadata =
        synthetic?.listedMetadata(at: item.index, qetag: &qetag) { size in
          let kind = OSSObjectView.kind(size: size, index: item.index, synthetic: seed)
          syntheticKind = kind
          return kind.type == "Normal"
        } ?? source.metadata(at: item.index, digests: [])
      let storageClass = OSSObjectView.storageClass(kodoType: metadata.type)
      let kind = syntheticKind ?? OSSObjectView.kind(metadata, index: item.index, synthetic: seed)
      etag.removeAll(keepingCapacity: true)
      OSSObjectView.appendETag(
        metadata, qetag: synthetic != nil ? qetag : nil, objectType: kind.type, parts: kind.parts,
        to: &etag)
      item.key.withUnsafeBufferPointer { key in
        writer.appendObject(
          key: key,
          lastModified: Timestamp(
            unixSeconds: KodoTime.unixSeconds(hundredNanoseconds: metadata.putTime)),
          etag: etag, type: kind.type, size: metadata.fsize, storageClass: storageClass,
          owner: fetchOwner ? owner : nil,
          restore: OSSObjectView.restore(metadata, storageClass: storageClass, index: item.index))
      }
    }
    for prefix in page.commonPrefixes[prefixes] {
      prefix.withUnsafeBufferPointer { writer.appendCommonPrefix(utf8: $0) }
    }
  }
}
