public import StorageCore

extension OSSClient {
  /// Downloads one object (GetObject) through `writer`, through the custom domain when one is
  /// chosen.
  ///
  /// A failed attempt that wrote nothing is retried by the pipeline. One that stopped after
  /// writing bytes is resumed by the writer from the byte after them, with
  /// `Range: bytes=N-` and `x-oss-range-behavior: standard` (so that a range OSS cannot serve is
  /// an error and never the whole object again). A request's `range` is asked for the same way,
  /// from its first byte.
  public func download(_ request: DownloadRequest, to writer: DownloadWriter)
    async throws(StorageError) -> DownloadResult
  {
    let custom = try customDomain(
      bucket: request.bucket, explicit: request.domain.explicit ?? request.domain.configured)
    let what =
      "the download of \(DisplayText.quoted(request.key)) from bucket \(DisplayText.quoted(request.bucket))"
    let transport = pipeline.transport
    return try await writer.run(
      range: request.range, expectedSize: request.expectedSize,
      maxRounds: pipeline.retry.maxAttempts
    ) { (from, remaining) async throws(StorageError) -> DownloadResult in
      var headers = HTTPHeaders()
      if let from {
        let end = request.range.map { String($0.upperBound) } ?? ""
        headers.add("Range", "bytes=\(from)-\(end)")
        headers.add("x-oss-range-behavior", "standard")
      }
      let response = try await perform(
        OSSRequest(method: "GET", bucket: request.bucket, key: request.key, headers: headers),
        what: what, key: request.key, customDomain: custom,
        send: { http in
          try await writer.attempt {
            try await transport.download(
              http, to: writer.descriptor, expectedLength: remaining, digest: writer.digest)
          }
        },
        // An attempt that wrote bytes is resumed by the writer, from after them.
        mayRetry: { error in error.writtenBytes == 0 })
      if from != nil && response.status != 206 {
        throw StorageError(
          .protocolError,
          "OSS answered the ranged \(what) with HTTP \(response.status), not 206 Partial Content",
          requestID: response.headers[OSSErrors.requestIDHeader])
      }
      return DownloadResult(
        byteCount: response.streamedByteCount, status: response.status,
        requestID: response.headers[OSSErrors.requestIDHeader],
        contentType: response.headers["Content-Type"])
    }
  }
}
