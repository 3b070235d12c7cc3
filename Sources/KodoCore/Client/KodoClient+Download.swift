import Foundation
public import StorageCore

/// Kodo's bound domains as base URLs.
package enum BoundDomain {
  /// Whether a bound domain can be used in a URL: not empty, and no whitespace, control
  /// characters or other characters that have no place in a host name or a URL.
  package static func isPlausible(_ domain: String) -> Bool {
    !domain.isEmpty
      && domain.unicodeScalars.allSatisfy { scalar in
        !DisplayText.isUnsafe(scalar) && !scalar.properties.isWhitespace
          && !"\"<>\\^`{|}".unicodeScalars.contains(scalar)
      }
  }

  /// A bound domain as a base URL: kept as is when it has a scheme; otherwise `http://` for
  /// hosts known to serve plain HTTP only (IP literals, `localhost`, Qiniu's test domains such as
  /// `*.clouddn.com`, `*.qiniudn.com`, `*.qiniucdn.com`, `*.qbox.me`) and `https://` for the rest.
  package static func baseURL(for domain: String) -> String {
    if WireText.contains(domain, "://") { return domain }
    let host = WireText.asciiLowercased(URLParts("http://" + domain).host)
    let isIPv4 =
      !host.isEmpty
      && host.utf8.allSatisfy {
        ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".")
      }
    let httpOnly =
      isIPv4 || WireText.hasPrefix(host, "[") || WireText.same(host, "localhost")
      || [".clouddn.com", ".qiniudn.com", ".qiniucdn.com", ".qbox.me"].contains {
        WireText.hasSuffix(host, $0)
      }
    return (httpOnly ? "http://" : "https://") + domain
  }
}

extension KodoClient {
  /// The download base URL for `bucket`: the explicit one, else the configured one, else the
  /// first domain the bucket has bound (`/v2/domains`).
  public func downloadDomain(bucket: String, choice: DomainChoice) async throws(StorageError)
    -> DownloadDomain
  {
    if let explicit = choice.explicit {
      return DownloadDomain(baseURL: explicit, source: .explicit)
    }
    if let configured = choice.configured {
      return DownloadDomain(baseURL: configured, source: .configured)
    }
    let bound = try await domains(bucket)
    guard let first = bound.first else {
      throw StorageError(
        .configuration, "bucket \(DisplayText.quoted(bucket)) has no bound download domain",
        hint: .needsDownloadDomain(bucket: bucket))
    }
    // A domain goes into URLs and onto the terminal as is: it must look like one.
    if let bad = bound.first(where: { !BoundDomain.isPlausible($0) }) {
      throw StorageError(
        .protocolError,
        "Kodo listed \(DisplayText.quoted(bad)) as a domain of bucket \(DisplayText.quoted(bucket)), which is not a host name or URL",
        hint: .needsDownloadDomain(bucket: bucket))
    }
    return DownloadDomain(
      baseURL: BoundDomain.baseURL(for: first), source: .service,
      alternatives: bound.dropFirst().map { BoundDomain.baseURL(for: $0) })
  }

  /// The URL of `key` under `domain`, signed until `deadline` unless `deadline` is `nil`.
  public func downloadURL(domain: String, key: String, deadline: Int64?) -> String {
    DownloadURL.Builder(domain: domain).url(key: key, deadline: deadline, credentials: credentials)
  }

  /// The deadline `seconds` from now on the skew-corrected clock.
  public func deadline(expiresIn seconds: Int64) -> Int64 {
    DownloadURL.deadline(expiresIn: seconds, clock: correctedClock)
  }

  /// Downloads `url` through `writer`.
  ///
  /// Retryable statuses are retried (nothing reaches the descriptor for them), and so are network
  /// failures that wrote nothing. An attempt that wrote bytes and then failed is resumed by the
  /// writer with `Range: bytes=N-` from the byte after them; a download domain that does not
  /// answer that range with 206 is an error, never the object again from its start.
  ///
  /// - Parameters:
  ///   - url: the download URL (signed or public).
  ///   - writer: where the body goes.
  ///   - expectedSize: when given, a body of another length is an error.
  ///   - range: only these bytes (`Range: bytes=A-B`); a server that ignores it sends the whole
  ///     body, which `expectedSize` (the range's length) then rejects.
  /// - Returns: what was written and Kodo's answer's details.
  /// - Throws: `StorageError`.
  public func download(
    url: String, to writer: DownloadWriter, expectedSize: Int64? = nil,
    range: ClosedRange<Int64>? = nil
  ) async throws(StorageError) -> DownloadResult {
    let parts = URLParts(url)
    guard parts.isHTTPWithHost else {
      throw StorageError(.invalidInput, "not a download URL: \(DisplayText.quoted(url))")
    }
    let base = parts.scheme + "://" + parts.authority
    let path = String(Substring(url.utf8.dropFirst(base.utf8.count)))
    let shown = DisplayText.escaped(
      RequestEvent.redactedURL(String(WireText.cut(url, at: "?")?.head ?? url[...])))
    let context = CallContext(what: "the download of \(shown)")
    let transport = self.transport
    return try await writer.run(
      range: range, expectedSize: expectedSize, maxRounds: pipeline.retry.maxAttempts
    ) { (from, remaining) async throws(StorageError) -> DownloadResult in
      let (response, _) = try await perform(
        method: "GET", bases: [base], path: path, signed: false, context: context,
        origin: .download,
        send: { request in
          var request = request
          if let from {
            let end = range.map { String($0.upperBound) } ?? ""
            request.headers.add("Range", "bytes=\(from)-\(end)")
          }
          return try await writer.attempt {
            try await transport.download(
              request, to: writer.descriptor, expectedLength: remaining, digest: writer.digest)
          }
        },
        // An attempt that wrote bytes is resumed by the writer, from after them.
        mayRetry: { error in error.writtenBytes == 0 })
      if from != nil && response.status != 206 {
        throw StorageError(
          .protocolError,
          "the ranged \(context.what) was answered with HTTP \(response.status), not 206 Partial Content",
          requestID: response.requestID)
      }
      return DownloadResult(
        byteCount: response.streamedByteCount, status: response.status,
        requestID: response.requestID, contentType: response.headers["Content-Type"])
    }
  }
}
