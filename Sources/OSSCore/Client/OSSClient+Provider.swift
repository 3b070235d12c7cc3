public import StorageCore

extension OSSClient: StorageProvider {
  /// `OSS`.
  public var serviceName: String { "OSS" }

  /// OSS's bucket-name rule.
  public func validateBucketName(_ name: String) throws(StorageError) {
    try OSSBucketName.validate(name)
  }

  /// The account's buckets (ListBuckets, every page).
  public func buckets() async throws(StorageError) -> [Bucket] {
    var buckets: [Bucket] = []
    var marker: String?
    var seen: Set<ExactKey> = []
    while true {
      var query = [OSSQueryItem("max-keys", "1000")]
      if let marker { query.append(OSSQueryItem("marker", marker)) }
      let response = try await perform(
        OSSRequest(method: "GET", query: query), what: "the bucket listing")
      let requestID = response.headers[OSSErrors.requestIDHeader]
      let page = try OSSAnswers.listBuckets(response.body, requestID: requestID)
      for bucket in page.buckets {
        buckets.append(
          Bucket(
            name: bucket.name, region: bucket.location ?? bucket.region,
            createdAt: bucket.creationDate?.unixSeconds,
            storageClass: bucket.storageClass.map { Self.storageClass($0) }))
      }
      guard page.isTruncated, let next = page.nextMarker else { break }
      guard seen.insert(ExactKey(next)).inserted else {
        throw StorageError(
          .protocolError, "OSS's bucket listing named the same NextMarker twice",
          requestID: requestID)
      }
      marker = next
    }
    return buckets
  }

  /// One page of ListObjectsV2 with `encoding-type=url`, its continuation token wrapped in
  /// kodo's own marker.
  public func listPage(_ request: ListRequest) async throws(StorageError) -> ListPage {
    try await listPageAnswer(request).decode()
  }

  /// One page, its marker read from the head of the answer before the objects are decoded.
  public func listPageAnswer(_ request: ListRequest) async throws(StorageError) -> PageAnswer {
    let (response, what) = try await listResponse(request)
    let body = response.body
    let requestID = response.headers[OSSErrors.requestIDHeader]
    let decode: @Sendable () throws(StorageError) -> ListPage = { () throws(StorageError) in
      let result = try OSSAnswers.listObjects(body, encodingType: "url", requestID: requestID)
      return try OSSListMarker.page(result, what: what, requestID: requestID)
    }
    guard let next = Self.quickMarker(body) else { return PageAnswer(try decode()) }
    return PageAnswer(nextMarker: next, decode: decode)
  }

  /// The marker that continues a list answer, read from its head without decoding the objects
  /// (`.some(nil)`: the last page), or `nil` when these bytes do not tell.
  static func quickMarker(_ body: [UInt8]) -> String?? {
    guard let quick = OSSAnswers.listContinuation(body, encodingType: "url") else { return nil }
    return .some(quick.isTruncated ? quick.nextContinuationToken.map(OSSListMarker.wrap) : nil)
  }

  private func listResponse(_ request: ListRequest) async throws(StorageError)
    -> (HTTPResponse, String)
  {
    let what = "the listing of bucket \(DisplayText.quoted(request.bucket))"
    var query = [
      OSSQueryItem("list-type", "2"), OSSQueryItem("encoding-type", "url"),
      OSSQueryItem("max-keys", String(min(1000, max(1, request.limit)))),
    ]
    if !request.prefix.isEmpty { query.append(OSSQueryItem("prefix", request.prefix)) }
    if let delimiter = request.delimiter { query.append(OSSQueryItem("delimiter", delimiter)) }
    if let marker = request.marker {
      query.append(OSSQueryItem("continuation-token", try OSSListMarker.unwrap(marker)))
    }
    // Sent ahead by `ListPages`: `IsTruncated` and the token come before the objects, and are
    // reported as soon as they arrive.
    let send = MarkerWatch.current?.sender(through: pipeline.transport) { body in
      Self.quickMarker(body)
    }
    let response = try await perform(
      OSSRequest(method: "GET", bucket: request.bucket, query: query), what: what, send: send)
    return (response, what)
  }

  /// HeadObject: every metadata header OSS sends.
  public func stat(bucket: String, key: String) async throws(StorageError) -> ObjectDetails {
    let response = try await perform(
      OSSRequest(method: "HEAD", bucket: bucket, key: key),
      what: "the details of \(DisplayText.quoted(key)) in bucket \(DisplayText.quoted(bucket))",
      key: key, customDomain: options.customDomains[bucket])
    let head = try OSSAnswers.objectHead(
      response.headers, requestID: response.headers[OSSErrors.requestIDHeader])
    let entry = ObjectEntry(
      key: key, size: head.size, putTime: head.lastModified,
      storageClass: Self.storageClass(head.storageClass), mimeType: head.contentType,
      etag: head.etag, objectType: (head.objectType ?? "Normal").lowercased(), md5: head.md5,
      meta: head.meta.isEmpty ? nil : head.meta, restoreStatus: head.restore?.status)
    return ObjectDetails(object: entry, crc64: head.crc64.map { String($0) })
  }

  /// Presigned GET links (V4: at most 7 days; V1: any future deadline), or unsigned ones, on
  /// the chosen custom domain or the bucket's endpoint.
  public func linkSigner(bucket: String, domain choice: DomainChoice, signed: Bool)
    async throws(StorageError) -> LinkSigner
  {
    let custom = try customDomain(bucket: bucket, explicit: choice.explicit ?? choice.configured)
    let domain: DownloadDomain
    if let explicit = choice.explicit {
      domain = DownloadDomain(baseURL: explicit, source: .explicit)
    } else if let custom {
      domain = DownloadDomain(baseURL: custom.baseURL, source: .configured)
    } else {
      domain = DownloadDomain(baseURL: bucketBaseURL(bucket), source: .service)
    }
    let clock = correctedClock
    let signer = self.signer
    let addressing = options.addressing
    let v4 = signer.version == .v4
    return LinkSigner(
      domain: domain, maximumLifetime: v4 ? OSSSignatureV4.maximumExpiry : nil,
      now: { clock.unixSeconds },
      url: { key, deadline throws(StorageError) in
        let request = OSSRequest(method: "GET", bucket: bucket, key: key)
        guard signed, let deadline else {
          return addressing.url(for: request, customDomain: custom)
        }
        let now = clock.unixSeconds
        let (lifetime, overflow) = deadline.subtractingReportingOverflow(now)
        if v4 && (overflow || lifetime > OSSSignatureV4.maximumExpiry) {
          throw StorageError(
            .invalidInput,
            "an OSS V4 presigned URL is valid for at most 7 days (604800 seconds); choose a shorter expiry, or sign with V1 (\"signatureVersion\": \"v1\"), whose URLs may last longer"
          )
        }
        return try signer.presign(
          request, at: now, expiresIn: overflow ? .max : lifetime, addressing: addressing,
          customDomain: custom
        ).url
      })
  }

  /// The bucket's base URL on the endpoint: `https://bucket.endpoint` or, in path style,
  /// `http://endpoint/bucket`.
  func bucketBaseURL(_ bucket: String, _ addressing: OSSAddressing? = nil) -> String {
    let addressing = addressing ?? options.addressing
    let path = addressing.path(bucket: bucket, key: "")
    return addressing.baseURL(bucket: bucket) + String(path.dropLast())
  }

  /// CRC-64/ECMA of the downloaded file against HeadObject's `x-oss-hash-crc64ecma`.
  public func integrityCheck(for details: ObjectDetails) -> IntegrityCheck? {
    guard let crc64 = details.crc64, !crc64.isEmpty else { return nil }
    return IntegrityCheck(
      name: "CRC-64", expected: crc64,
      compute: { file throws(StorageError) in String(try CRC64.checksum(file: file)) },
      running: CRC64())
  }
}

extension OSSClient: DomainListing {
  /// The bucket's base URL on the configured endpoint, its public and internal endpoints as
  /// GetBucketInfo names them, and the configured custom domain.
  public func domains(bucket: String) async throws(StorageError) -> [BucketDomain] {
    let response = try await perform(
      OSSRequest(method: "GET", bucket: bucket, query: [OSSQueryItem("bucketInfo", nil)]),
      what: "the information of bucket \(DisplayText.quoted(bucket))")
    let info = try OSSAnswers.bucketInfo(
      response.body, requestID: response.headers[OSSErrors.requestIDHeader])
    var domains: [BucketDomain] = []
    func add(_ baseURL: String, _ kind: String) {
      guard !domains.contains(where: { $0.baseURL == baseURL }) else { return }
      domains.append(
        BucketDomain(domain: Self.withoutScheme(baseURL), baseURL: baseURL, kind: kind))
    }
    let configured = options.addressing.endpoint
    for (host, kind) in [(info.extranetEndpoint, "public"), (info.intranetEndpoint, "internal")] {
      guard let host, !host.isEmpty else { continue }
      let scheme = host.lowercased() == configured.authority ? configured.scheme : "https"
      guard let endpoint = try? OSSEndpoint(scheme + "://" + host) else { continue }
      let base = bucketBaseURL(
        bucket, OSSAddressing(endpoint: endpoint, pathStyle: options.addressing.pathStyle))
      add(base, kind)
    }
    let base = bucketBaseURL(bucket)
    if !domains.contains(where: { $0.baseURL == base }) {
      domains.insert(
        BucketDomain(domain: Self.withoutScheme(base), baseURL: base, kind: "endpoint"), at: 0)
    }
    if let custom = options.customDomains[bucket] {
      add(custom.baseURL, "custom")
    }
    return domains
  }
}

extension OSSClient {
  /// `https://host/path` → `host/path`: a domain as `domains` names it.
  static func withoutScheme(_ baseURL: String) -> String {
    guard let range = WireText.range(of: "://", in: baseURL) else { return baseURL }
    return String(baseURL[range.upperBound...])
  }
}
