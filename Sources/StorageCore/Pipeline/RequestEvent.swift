/// What the client tells its observer: one event per attempt, and clock-skew findings.
///
/// The library never prints; the command line turns these into `--verbose` lines and warnings.
public enum ClientNotice: Sendable {
  /// One HTTP attempt finished (with a response or an error).
  case request(RequestEvent)
  /// The local clock is off from the service's by `seconds` (positive: local clock behind); requests
  /// and private URLs are signed with the corrected time from now on.
  case clockSkew(seconds: Int64)
}

/// One HTTP attempt, as `--verbose` shows it. `Authorization` is already redacted.
public struct RequestEvent: Sendable {
  /// The method.
  public var method: String
  /// The URL as sent, with credentials in it redacted (`RequestEvent.redactedURL`).
  public var url: String
  /// The headers sent, with `Authorization` values redacted to the scheme and access key.
  public var headers: HTTPHeaders
  /// The HTTP status, when a response arrived.
  public var status: Int?
  /// The service's request id, when the response carried one.
  public var requestID: String?
  /// How long the attempt took.
  public var duration: Duration
  /// 1 for the first attempt.
  public var attempt: Int
  /// The failure of this attempt, if it failed.
  public var error: StorageError?
  /// Whether another attempt follows.
  public var willRetry: Bool

  /// An event from its parts.
  package init(
    method: String, url: String, headers: HTTPHeaders, status: Int?, requestID: String?,
    duration: Duration, attempt: Int, error: StorageError?, willRetry: Bool
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.status = status
    self.requestID = requestID
    self.duration = duration
    self.attempt = attempt
    self.error = error
    self.willRetry = willRetry
  }

  /// `SCHEME AK:signature` → `SCHEME AK:<redacted>` (Kodo's `Qiniu AK:…`, OSS's `OSS AK:…`);
  /// a value without a colon keeps only its scheme. The signature is not the secret, but it
  /// authorises the request for a while and has no business in logs.
  package static func redactAuthorization(_ value: String) -> String {
    guard let colon = WireText.firstIndex(of: ":", in: value) else {
      if let space = WireText.firstIndex(of: " ", in: value) {
        return value[..<space] + " <redacted>"
      }
      return "<redacted>"
    }
    return value[..<colon] + ":<redacted>"
  }

  /// The query parameters whose values authorise a request and are never shown: Kodo's download
  /// `token`; OSS's V1 `Signature` and `security-token`, V4 `x-oss-signature`,
  /// `x-oss-credential` and `x-oss-security-token`.
  static let secretParameters: Set<String> = [
    "token", "signature", "security-token", "x-oss-signature", "x-oss-credential",
    "x-oss-security-token",
  ]

  /// `url` with the values of credential-carrying query parameters and any user information
  /// (`user:password@`) replaced by `<redacted>`, for logs and messages.
  package static func redactedURL(_ url: String) -> String {
    var result = url
    if let schemeEnd = WireText.range(of: "://", in: result) {
      let afterScheme = result[schemeEnd.upperBound...]
      let authorityEnd = URLParts.authorityEnd(in: afterScheme)
      if let at = URLParts.userInfoEnd(in: afterScheme[..<authorityEnd]) {
        result.replaceSubrange(schemeEnd.upperBound..<at, with: "<redacted>")
      }
    }
    guard let (head, query) = WireText.cut(result, at: "?") else { return result }
    let parameters = WireText.split(query, at: "&").map { parameter -> String in
      guard let (name, _) = WireText.cut(parameter, at: "=") else { return String(parameter) }
      guard secretParameters.contains(WireText.asciiLowercased(name)) else {
        return String(parameter)
      }
      return name + "=<redacted>"
    }
    return head + "?" + parameters.joined(separator: "&")
  }
}
