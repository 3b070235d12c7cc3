import Foundation
public import StorageCore

/// Aliyun OSS's read-only API as a `StorageProvider`: buckets, listings (ListObjectsV2), object
/// details (HeadObject), presigned links and downloads.
///
/// Every call is signed by `OSSSigner` (V4 by default, or V1, with the STS token when the
/// credentials carry one), goes through StorageCore's `RequestPipeline` (retries of 5xx, 408, 429
/// and network failures; one re-signed attempt after `RequestTimeTooSkewed`) and is judged by
/// `OSSErrors`. Throws only `StorageError`.
public struct OSSClient: Sendable {
  /// Where requests go, how they are signed and retried, and who hears about them.
  public struct Options: Sendable {
    /// The endpoint and the addressing style.
    public var addressing: OSSAddressing
    /// The region ID for V4 scopes (`cn-hangzhou`).
    public var region: String
    /// The signature version.
    public var signatureVersion: OSSSigner.Version
    /// Custom domains (CNAMEs) by bucket, for data requests and links.
    public var customDomains: [String: OSSEndpoint]
    /// The retry policy.
    public var retry: RetryPolicy
    /// The clock requests are signed with.
    public var clock: WallClock
    /// Receives one event per HTTP attempt and clock-skew findings.
    public var observer: (@Sendable (ClientNotice) -> Void)?

    /// Options from their parts; V4, no custom domain, default retries, system clock.
    public init(
      addressing: OSSAddressing, region: String, signatureVersion: OSSSigner.Version = .v4,
      customDomains: [String: OSSEndpoint] = [:], retry: RetryPolicy = RetryPolicy(),
      clock: WallClock = .system, observer: (@Sendable (ClientNotice) -> Void)? = nil
    ) {
      self.addressing = addressing
      self.region = region
      self.signatureVersion = signatureVersion
      self.customDomains = customDomains
      self.retry = retry
      self.clock = clock
      self.observer = observer
    }
  }

  /// The signer (credentials, version, region).
  public let signer: OSSSigner
  /// The options.
  public let options: Options
  let pipeline: RequestPipeline

  /// A client for `credentials` over `transport`.
  ///
  /// - Throws: `StorageError(.configuration)` when the region is not a region ID.
  public init(credentials: Credentials, transport: any HTTPTransport, options: Options)
    throws(StorageError)
  {
    signer = try OSSSigner(
      credentials: credentials, version: options.signatureVersion, region: options.region)
    self.options = options
    pipeline = RequestPipeline(
      transport: transport, requestIDHeader: OSSErrors.requestIDHeader, retry: options.retry,
      clock: options.clock, observer: options.observer)
  }

  /// The clock corrected for any skew learnt from OSS's answers: links are signed with it.
  public var correctedClock: WallClock { pipeline.correctedClock }

  /// The custom domain for data requests about `bucket`: `explicit`, else the configured one.
  func customDomain(bucket: String, explicit: String? = nil) throws(StorageError) -> OSSEndpoint? {
    if let explicit { return try OSSEndpoint(explicit) }
    return options.customDomains[bucket]
  }

  /// Sends `request` through the pipeline, signed at each attempt with the corrected clock.
  ///
  /// - Parameters:
  ///   - request: what to send.
  ///   - what: what the request is about, for messages.
  ///   - key: the key the request is about, for a not-found message.
  ///   - customDomain: the custom domain to send it to, if any.
  ///   - body: the request body.
  ///   - idempotency: whether the pipeline may repeat it (an `.unsafe` request only when the
  ///     failure says it never left).
  ///   - send: how to send (downloads stream to a descriptor).
  ///   - mayRetry: whether a network failure may be retried.
  /// - Returns: the first 2xx answer.
  /// - Throws: `StorageError` for a final failure or when retries are exhausted.
  func perform(
    _ request: OSSRequest, what: String, key: String? = nil, customDomain: OSSEndpoint? = nil,
    body: RequestBody = .empty, idempotency: Idempotency = .idempotent,
    send: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil,
    mayRetry: (@Sendable (StorageError) -> Bool)? = nil
  ) async throws(StorageError) -> HTTPResponse {
    let addressing = options.addressing
    let base = addressing.baseURL(bucket: request.bucket, customDomain: customDomain)
    let url = addressing.url(for: request, customDomain: customDomain)
    let path = String(url.dropFirst(base.count))
    let signer = self.signer
    let bucket = request.bucket
    let plan = RequestPlan(
      method: request.method, bases: [base], path: path, headers: request.headers, body: body,
      idempotency: idempotency, what: what,
      sign: { http, now in
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let signed = signer.sign(
          request, at: seconds, addressing: addressing, customDomain: customDomain)
        http.headers = signed.headers
      },
      judge: { response in
        OSSErrors.verdict(for: response, what: what, bucket: bucket, key: key)
      },
      send: send, mayRetry: mayRetry,
      // Only OSS's own endpoint corrects the clock, never a custom domain (a CDN).
      mayCorrectClock: customDomain == nil)
    return try await pipeline.perform(plan).response
  }

  /// The contract's storage class for OSS's name: `Standard` → `standard`, `IA` → `ia`,
  /// `ColdArchive` → `cold_archive`; another value lower-cased with `_` between words.
  public static func storageClass(_ serviceName: String?) -> StorageClass {
    let service = serviceName ?? "Standard"
    var bytes = service
    let name =
      bytes.withUTF8 { asciiStorageClassName($0) } ?? storageClassName(characters: service)
    return StorageClass(name: name, serviceName: service)
  }

  /// `storageClass`'s name, character by character (any text).
  package static func storageClassName(characters service: String) -> String {
    var name = ""
    var previous: Character?
    for character in service {
      if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
        name += "_"
      }
      if character == " " || character == "-" {
        name += "_"
      } else {
        name += character.lowercased()
      }
      previous = character
    }
    return name
  }

  /// `storageClass`'s name for ASCII text, byte by byte (what the loop over characters gives
  /// for it, without Unicode property look-ups); `nil` for other text.
  package static func asciiStorageClassName(_ service: UnsafeBufferPointer<UInt8>) -> String? {
    guard UTF8Text.isASCII(service) else { return nil }
    func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    func isLowerOrDigit(_ byte: UInt8) -> Bool {
      (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
    var name: [UInt8] = []
    name.reserveCapacity(service.count + 4)
    var previous: UInt8?
    for byte in service {
      if isUpper(byte), let previous, isLowerOrDigit(previous) { name.append(UInt8(ascii: "_")) }
      if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") {
        name.append(UInt8(ascii: "_"))
      } else {
        name.append(isUpper(byte) ? byte | 0x20 : byte)
      }
      previous = byte
    }
    return String(decoding: name, as: UTF8.self)
  }
}
