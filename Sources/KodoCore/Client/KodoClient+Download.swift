import Foundation
public import StorageCore

/// A download base URL and where it came from.
public struct DownloadDomain: Sendable, Equatable {
  /// Where the domain came from.
  public enum Source: String, Sendable {
    /// Given on the command line (`--domain`).
    case explicit
    /// From the config file's `domains`.
    case configured
    /// From the bucket's bound domains (`/v2/domains`).
    case bound
  }

  /// The base URL, scheme included; the key follows after one `/`.
  public var baseURL: String
  /// Where it came from.
  public var source: Source
  /// The other bound domains that were not picked (empty unless `source` is `.bound`).
  public var alternatives: [String]

  /// A domain from its parts.
  public init(baseURL: String, source: Source, alternatives: [String] = []) {
    self.baseURL = baseURL
    self.source = source
    self.alternatives = alternatives
  }

  /// Whether a bound domain can be used in a URL: not empty, and no whitespace, control
  /// characters or other characters that have no place in a host name or a URL.
  public static func isPlausible(_ domain: String) -> Bool {
    !domain.isEmpty
      && domain.unicodeScalars.allSatisfy { scalar in
        !DisplayText.isUnsafe(scalar) && !scalar.properties.isWhitespace
          && !"\"<>\\^`{|}".unicodeScalars.contains(scalar)
      }
  }

  /// A bound domain as a base URL: kept as is when it has a scheme; otherwise `http://` for
  /// hosts known to serve plain HTTP only (IP literals, `localhost`, Qiniu's test domains such as
  /// `*.clouddn.com`, `*.qiniudn.com`, `*.qiniucdn.com`, `*.qbox.me`) and `https://` for the rest.
  public static func baseURL(forBoundDomain domain: String) -> String {
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

/// What a finished download produced.
public struct DownloadResult: Sendable, Equatable {
  /// Body bytes written to the file descriptor.
  public var byteCount: Int64
  /// The final HTTP status.
  public var status: Int
  /// `X-Reqid`, when the answer had one.
  public var requestID: String?
  /// `Content-Type`, when sent.
  public var contentType: String?
}

extension KodoClient {
  /// The download base URL for `bucket`: `explicit`, else `configured`, else the first domain the
  /// bucket has bound (`/v2/domains`).
  public func downloadDomain(bucket: String, explicit: String?, configured: String?)
    async throws(StorageError) -> DownloadDomain
  {
    if let explicit { return DownloadDomain(baseURL: explicit, source: .explicit) }
    if let configured { return DownloadDomain(baseURL: configured, source: .configured) }
    let bound = try await domains(bucket)
    guard let first = bound.first else {
      throw StorageError(
        .configuration,
        "bucket \(DisplayText.quoted(bucket)) has no bound download domain; pass --domain or set domains.\(bucket) in the config file"
      )
    }
    // A domain goes into URLs and onto the terminal as is: it must look like one.
    if let bad = bound.first(where: { !DownloadDomain.isPlausible($0) }) {
      throw StorageError(
        .protocolError,
        "Kodo listed \(DisplayText.quoted(bad)) as a domain of bucket \(DisplayText.quoted(bucket)), which is not a host name or URL; pass --domain"
      )
    }
    return DownloadDomain(
      baseURL: DownloadDomain.baseURL(forBoundDomain: first), source: .bound,
      alternatives: bound.dropFirst().map { DownloadDomain.baseURL(forBoundDomain: $0) })
  }

  /// The URL of `key` under `domain`, signed until `deadline` unless `deadline` is `nil`.
  public func downloadURL(domain: String, key: String, deadline: Int64?) -> String {
    let base = DownloadURL.publicURL(domain: domain, key: key)
    guard let deadline else { return base }
    return DownloadURL.privateURL(baseURL: base, deadline: deadline, credentials: credentials)
  }

  /// The deadline `seconds` from now on the skew-corrected clock.
  public func deadline(expiresIn seconds: Int64) -> Int64 {
    DownloadURL.deadline(expiresIn: seconds, clock: correctedClock)
  }

  /// Downloads `url`, streaming the body to `fileDescriptor`.
  ///
  /// Retryable statuses are retried (nothing reaches the descriptor for them). Network failures
  /// are retried only when `rewind` is given: it must reset the descriptor to empty (truncate and
  /// seek to 0) and return whether it could. Without it, bytes may already have been written,
  /// so the failure is final rather than risking duplicated output.
  ///
  /// - Parameters:
  ///   - url: the download URL (signed or public).
  ///   - fileDescriptor: where the body goes.
  ///   - expectedSize: when given, a body of another length is an error.
  ///   - rewind: resets the descriptor for another attempt; `nil` when it cannot be reset.
  /// - Returns: what was written and Kodo's answer's details.
  /// - Throws: `StorageError`.
  public func download(
    url: String, to fileDescriptor: Int32, expectedSize: Int64? = nil,
    rewind: (@Sendable () -> Bool)? = nil
  ) async throws(StorageError) -> DownloadResult {
    let parts = URLParts(url)
    guard parts.scheme == "http" || parts.scheme == "https", !parts.host.isEmpty else {
      throw StorageError(.invalidInput, "not a download URL: \(DisplayText.quoted(url))")
    }
    let base = parts.scheme + "://" + parts.authority
    let path = String(url.dropFirst(base.count))
    let context = CallContext(
      what: "the download of \(DisplayText.escaped(url.split(separator: "?")[0]))")
    let transport = self.transport
    let (response, _) = try await perform(
      method: "GET", bases: [base], path: path, signed: false, context: context, origin: .download,
      send: { request in
        do {
          return try await transport.download(request, to: fileDescriptor)
        } catch let error as StorageError
          where error.kind == .temporary || error.kind == .unavailable
        {
          guard let rewind, rewind() else {
            var final = error
            final.message +=
              "; the download was interrupted and cannot be resumed here, run it again"
            throw DownloadFailure(error: final)
          }
          throw error
        }
      })
    if let expectedSize, response.streamedByteCount != expectedSize {
      throw StorageError(
        .protocolError,
        "the download of \(DisplayText.escaped(url.split(separator: "?")[0])) delivered \(response.streamedByteCount) bytes, but the object has \(expectedSize)",
        status: response.status, requestID: response.requestID)
    }
    return DownloadResult(
      byteCount: response.streamedByteCount, status: response.status, requestID: response.requestID,
      contentType: response.headers["Content-Type"])
  }
}

/// A download failure that must not be retried (wraps the error `perform` rethrows as is).
struct DownloadFailure: Error {
  var error: StorageError
}
