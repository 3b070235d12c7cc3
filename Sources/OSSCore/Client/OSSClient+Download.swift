public import StorageCore

extension OSSClient {
  /// Downloads one object (GetObject) to `fileDescriptor`, through the custom domain when one is
  /// chosen.
  ///
  /// A failed attempt that wrote nothing, or whose descriptor `rewind` emptied, is retried by
  /// the pipeline. One that stopped after writing bytes that cannot be taken back is resumed
  /// where it stopped, with a single `Range: bytes=N-` and `x-oss-range-behavior: standard` (so
  /// that a range OSS cannot serve is an error and never the whole object again), at most as
  /// many times as the retry policy allows attempts. A request's `range` is asked for the same
  /// way, from its first byte.
  public func download(
    _ request: DownloadRequest, to fileDescriptor: Int32, rewind: (@Sendable () -> Bool)?,
    digest: StreamedDigest?
  ) async throws(StorageError) -> DownloadResult {
    let custom = try customDomain(
      bucket: request.bucket, explicit: request.domain.explicit ?? request.domain.configured)
    let what =
      "the download of \(DisplayText.quoted(request.key)) from bucket \(DisplayText.quoted(request.bucket))"
    let transport = pipeline.transport
    var written: Int64 = 0
    var resumes = 0
    while true {
      var headers = HTTPHeaders()
      var expected = request.expectedSize
      // A requested range (`cat --range`) and a resumption both ask for bytes from an offset.
      let ranged = written > 0 || request.range != nil
      if ranged {
        let start = (request.range?.lowerBound ?? 0) + written
        let end = request.range.map { String($0.upperBound) } ?? ""
        headers.add("Range", "bytes=\(start)-\(end)")
        headers.add("x-oss-range-behavior", "standard")
        expected = request.expectedSize.map { $0 - written }
      }
      let remaining = expected
      // Once a resumed range is on its way, emptying the descriptor would lose the head.
      let canRewind = written == 0 ? rewind : nil
      do throws(StorageError) {
        let response = try await perform(
          OSSRequest(method: "GET", bucket: request.bucket, key: request.key, headers: headers),
          what: what, key: request.key, customDomain: custom,
          send: { http in
            // An attempt starts after the bytes kept: none, or those a resumption goes on from.
            digest?.restart()
            return try await transport.download(
              http, to: fileDescriptor, expectedLength: remaining, digest: digest)
          },
          mayRetry: { error in error.writtenBytes == 0 || canRewind?() == true })
        if ranged && response.status != 206 {
          throw StorageError(
            .protocolError,
            "OSS answered the ranged \(what) with HTTP \(response.status), not 206 Partial Content",
            requestID: response.headers[OSSErrors.requestIDHeader])
        }
        return DownloadResult(
          byteCount: written + response.streamedByteCount, status: response.status,
          requestID: response.headers[OSSErrors.requestIDHeader],
          contentType: response.headers["Content-Type"])
      } catch {
        let progress = error.writtenBytes ?? 0
        let resumable =
          (error.kind == .temporary || error.kind == .unavailable) && progress > 0
          && request.expectedSize != nil && resumes + 1 < pipeline.retry.maxAttempts
        guard resumable else { throw error }
        digest?.keep()
        written += progress
        resumes += 1
      }
    }
  }
}
