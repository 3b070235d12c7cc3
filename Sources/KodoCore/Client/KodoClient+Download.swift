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
    if domain.contains("://") { return domain }
    let host = URLParts("http://" + domain).host.lowercased()
    let isIPv4 = !host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." }
    let httpOnly =
      isIPv4 || host.hasPrefix("[") || host == "localhost"
      || [".clouddn.com", ".qiniudn.com", ".qiniucdn.com", ".qbox.me"].contains {
        host.hasSuffix($0)
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

  /// Downloads `url`, streaming the body to `fileDescriptor`.
  ///
  /// Retryable statuses are retried (nothing reaches the descriptor for them). Network failures
  /// are retried when nothing was written yet, or when `rewind` resets the descriptor to empty
  /// (truncate and seek to 0) and says it could. Otherwise bytes may already have been written,
  /// so the failure is final rather than risking duplicated output.
  ///
  /// - Parameters:
  ///   - url: the download URL (signed or public).
  ///   - fileDescriptor: where the body goes.
  ///   - expectedSize: when given, a body of another length is an error.
  ///   - range: only these bytes (`Range: bytes=A-B`); a server that ignores it sends the whole
  ///     body, which `expectedSize` (the range's length) then rejects.
  ///   - rewind: resets the descriptor for another attempt; `nil` when it cannot be reset.
  ///   - digest: takes the bytes written (restarted as each attempt begins).
  /// - Returns: what was written and Kodo's answer's details.
  /// - Throws: `StorageError`.
  public func download(
    url: String, to fileDescriptor: Int32, expectedSize: Int64? = nil,
    range: ClosedRange<Int64>? = nil, rewind: (@Sendable () -> Bool)? = nil,
    digest: StreamedDigest? = nil
  ) async throws(StorageError) -> DownloadResult {
    let parts = URLParts(url)
    guard parts.isHTTPWithHost else {
      throw StorageError(.invalidInput, "not a download URL: \(DisplayText.quoted(url))")
    }
    let base = parts.scheme + "://" + parts.authority
    let path = String(url.dropFirst(base.count))
    let shown = DisplayText.escaped(
      RequestEvent.redactedURL(String(url.split(separator: "?").first ?? "")))
    let context = CallContext(what: "the download of \(shown)")
    let transport = self.transport
    let response: HTTPResponse
    do {
      // A failed attempt is retried only when it wrote nothing (an unknown count counts as
      // something) or the destination could be emptied again.
      (response, _) = try await perform(
        method: "GET", bases: [base], path: path, signed: false, context: context,
        origin: .download,
        send: { request in
          var request = request
          if let range {
            request.headers.add("Range", "bytes=\(range.lowerBound)-\(range.upperBound)")
          }
          // Every attempt writes from the start (nothing written yet, or rewound).
          digest?.restart()
          return try await transport.download(
            request, to: fileDescriptor, expectedLength: expectedSize, digest: digest)
        },
        mayRetry: { error in error.writtenBytes == 0 || rewind?() == true })
    } catch {
      var failure = error
      if failure.kind == .temporary || failure.kind == .unavailable, failure.writtenBytes != 0 {
        failure.message +=
          "; the download was interrupted after some bytes were written and cannot be resumed here, run it again"
      }
      throw failure
    }
    return DownloadResult(
      byteCount: response.streamedByteCount, status: response.status, requestID: response.requestID,
      contentType: response.headers["Content-Type"])
  }
}
