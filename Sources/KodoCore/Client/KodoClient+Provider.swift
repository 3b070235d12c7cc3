public import StorageCore

extension KodoClient: StorageProvider {
  /// `Kodo`.
  public var serviceName: String { "Kodo" }

  /// Kodo's bucket-name rule.
  public func validateBucketName(_ name: String) throws(StorageError) {
    try BucketName.validate(name)
  }

  /// The account's buckets with details, or, on deployments without `/v2/buckets`, their names.
  public func buckets() async throws(StorageError) -> [Bucket] {
    do {
      return try await bucketsWithDetails()
    } catch {
      // Older deployments have no /v2/buckets: fall back to names only.
      guard [.notFound, .rejected, .protocolError].contains(error.kind) else { throw error }
      return try await bucketNames()
    }
  }

  /// Signs with Kodo's private-URL token on the chosen domain.
  public func linkSigner(bucket: String, domain choice: DomainChoice, signed: Bool)
    async throws(StorageError) -> LinkSigner
  {
    let domain = try await downloadDomain(bucket: bucket, choice: choice)
    let clock = correctedClock
    let credentials = signed ? self.credentials : nil
    let builder = DownloadURL.Builder(domain: domain.baseURL)
    return LinkSigner(
      domain: domain, now: { clock.unixSeconds },
      url: { key, deadline in builder.url(key: key, deadline: deadline, credentials: credentials) })
  }

  /// Downloads through a private URL on the bucket's domain that works for an hour.
  public func download(
    _ request: DownloadRequest, to writer: DownloadWriter
  ) async throws(StorageError) -> DownloadResult {
    let domain = try await downloadDomain(bucket: request.bucket, choice: request.domain)
    let url = downloadURL(
      domain: domain.baseURL, key: request.key, deadline: deadline(expiresIn: 3600))
    return try await download(
      url: url, to: writer, expectedSize: request.expectedSize, range: request.range)
  }

  /// Kodo's qetag of the downloaded file against the stat's `hash`.
  public func integrityCheck(for details: ObjectDetails) -> IntegrityCheck? {
    guard let hash = details.object.hash, !hash.isEmpty else { return nil }
    return IntegrityCheck(
      name: "qetag", expected: hash,
      compute: { file throws(StorageError) in
        do throws(QETag.FileError) {
          return try QETag.hash(file: file)
        } catch {
          throw StorageError(.localIO, "cannot read the file to compute its qetag: \(error.reason)")
        }
      })
  }
}

extension KodoClient: DomainListing {
  /// The bucket's bound domains.
  public func domains(bucket: String) async throws(StorageError) -> [BucketDomain] {
    try await domains(bucket).map {
      BucketDomain(domain: $0, baseURL: BoundDomain.baseURL(for: $0), kind: "bound")
    }
  }
}

extension KodoClient: TokenSigning {
  /// `QBox` (the legacy scheme) or `Qiniu` (v2), signed with the client's credentials.
  public func authorization(for request: SignableRequest, scheme: String) -> String? {
    switch scheme {
    case "QBox": RequestSigning.qboxAuthorization(for: request, credentials: credentials)
    case "Qiniu": RequestSigning.qiniuAuthorization(for: request, credentials: credentials)
    default: nil
    }
  }

  /// The put policy as Qiniu's Python SDK writes it (`UploadToken.policyJSON`).
  public func uploadPolicy(scope: String, deadline: Int64, extra: JSONValue?)
    throws(StorageError) -> String
  {
    try UploadToken.policyJSON(scope: scope, deadline: deadline, extra: extra)
  }

  /// `AK:sign:urlsafe_base64(policy)`.
  public func uploadToken(policy: String) -> String {
    UploadToken.token(policyJSON: policy, credentials: credentials)
  }
}
