public import StorageCore

extension KodoClient {
  /// The names of the account's buckets, including those shared with it
  /// (`GET /buckets?shared=rd`).
  public func bucketNames() async throws(StorageError) -> [Bucket] {
    let context = CallContext(what: "the bucket list")
    let (response, _) = try await perform(
      method: "GET", bases: bases(for: .uc, bucket: nil), path: "/buckets?shared=rd", signed: true,
      context: context)
    return try Decode.answer("bucket list", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try Decode.bucketNames(&reader)
    }
  }

  /// The account's buckets with region, creation time and share state
  /// (`GET /v2/buckets?shared=rd`).
  public func bucketsWithDetails() async throws(StorageError) -> [Bucket] {
    let context = CallContext(what: "the bucket list")
    let (response, _) = try await perform(
      method: "GET", bases: bases(for: .uc, bucket: nil), path: "/v2/buckets?shared=rd",
      signed: true,
      context: context)
    return try Decode.answer("bucket list", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try Decode.bucketsV2(&reader)
    }
  }

  /// A bucket's settings (`POST /v2/bucketInfo?bucket=`).
  public func bucketInfo(_ bucket: String) async throws(StorageError) -> BucketInfo {
    try BucketName.validate(bucket)
    var query = QueryString()
    query.append("bucket", bucket)
    let context = CallContext(
      what: "the info of bucket \(DisplayText.quoted(bucket))", bucket: bucket)
    let (response, _) = try await perform(
      method: "POST", bases: bases(for: .uc, bucket: nil), path: "/v2/bucketInfo?" + query.encoded,
      signed: true, context: context)
    let value = try Decode.answer("bucket info", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try JSONValue.read(&reader)
    }
    guard let fields = value.objectMembers else {
      throw StorageError(
        .protocolError, "Kodo's bucket info answer is not a JSON object",
        requestID: response.requestID)
    }
    return BucketInfo(name: bucket, fields: fields)
  }

  /// The domains bound to a bucket (`GET /v2/domains?tbl=`), as Kodo lists them (usually host
  /// names without a scheme).
  public func domains(_ bucket: String) async throws(StorageError) -> [String] {
    try BucketName.validate(bucket)
    var query = QueryString()
    query.append("tbl", bucket)
    let context = CallContext(
      what: "the domains of bucket \(DisplayText.quoted(bucket))", bucket: bucket)
    let (response, _) = try await perform(
      method: "GET", bases: bases(for: .uc, bucket: nil), path: "/v2/domains?" + query.encoded,
      signed: true, context: context)
    return try Decode.answer("domain list", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try Decode.domains(&reader)
    }
  }

  /// One page of `GET /list`.
  ///
  /// - Parameters:
  ///   - bucket: the bucket.
  ///   - prefix: only keys starting with this.
  ///   - delimiter: groups keys into `commonPrefixes` at this separator (`/`).
  ///   - marker: where to continue; `nil` for the start.
  ///   - limit: entries on the page, 1–1000; prefixes and objects both count.
  /// - Returns: the page.
  /// - Throws: `StorageError`.
  public func listPage(
    bucket: String, prefix: String = "", delimiter: String? = nil, marker: String? = nil,
    limit: Int = 1000
  ) async throws(StorageError) -> ListPage {
    try await listPage(
      ListRequest(
        bucket: bucket, prefix: prefix, delimiter: delimiter, marker: marker, limit: limit))
  }

  /// One page of `GET /list` for `request`.
  public func listPage(_ request: ListRequest) async throws(StorageError) -> ListPage {
    try await listPageAnswer(request).decode()
  }

  /// One page of `GET /list` for `request`, its marker read before the page is decoded: Kodo
  /// names the marker first, so the next request can be on its way while this page is decoded.
  public func listPageAnswer(_ request: ListRequest) async throws(StorageError) -> PageAnswer {
    let bucket = request.bucket
    try BucketName.validate(bucket)
    guard (1...1000).contains(request.limit) else {
      throw StorageError(
        .invalidInput, "a list page holds 1 to 1000 entries, not \(request.limit)")
    }
    var query = QueryString()
    query.append("bucket", bucket)
    if let marker = request.marker, !marker.isEmpty { query.append("marker", marker) }
    if !request.prefix.isEmpty { query.append("prefix", request.prefix) }
    if let delimiter = request.delimiter, !delimiter.isEmpty {
      query.append("delimiter", delimiter)
    }
    query.append("limit", String(request.limit))
    let what =
      request.prefix.isEmpty
      ? "the listing of bucket \(DisplayText.quoted(bucket))"
      : "the listing of \(DisplayText.quoted(bucket + "/" + request.prefix))"
    let context = CallContext(what: what, bucket: bucket)
    // Sent ahead by `ListPages`: the marker, named first, is reported as soon as it arrives.
    let send = MarkerWatch.current?.sender(through: transport) { Decode.leadingMarker($0) }
    let (response, _) = try await perform(
      method: "GET", bases: bases(for: .rsf, bucket: bucket), path: "/list?" + query.encoded,
      signed: true, context: context, send: send)
    let body = response.body
    let requestID = response.requestID
    let decode: @Sendable () throws(StorageError) -> ListPage = { () throws(StorageError) in
      try Decode.answer("list", body, requestID: requestID) {
        (reader) throws(JSONReader.Failure) in
        try Decode.listPage(&reader, keysOnly: request.keysOnly)
      }
    }
    guard let marker = Decode.leadingMarker(body) else { return PageAnswer(try decode()) }
    return PageAnswer(nextMarker: marker, decode: decode)
  }

  /// Every page of a listing from `marker` on, following Kodo's marker to the end.
  public func listPages(
    bucket: String, prefix: String = "", delimiter: String? = nil, marker: String? = nil,
    pageSize: Int = 1000
  ) -> ListPages {
    ListPages(
      ListRequest(
        bucket: bucket, prefix: prefix, delimiter: delimiter, marker: marker, limit: pageSize),
      fetch: pageFetcher)
  }

  /// One object's metadata (`GET /stat/<EncodedEntryURI>`).
  public func stat(bucket: String, key: String) async throws(StorageError) -> ObjectDetails {
    try BucketName.validate(bucket)
    let context = CallContext(
      what: "the stat of \(DisplayText.quoted(bucket + ":" + key))", bucket: bucket, key: key)
    let (response, _) = try await perform(
      method: "GET", bases: bases(for: .rs, bucket: bucket),
      path: "/stat/" + EncodedEntryURI.encode(bucket: bucket, key: key), signed: true,
      context: context)
    return try Decode.answer("stat", response.body, requestID: response.requestID) {
      (reader) throws(JSONReader.Failure) in try Decode.objectFields(&reader, key: key)
    }
  }
}
