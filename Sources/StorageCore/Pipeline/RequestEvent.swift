/// What the client tells its observer: one event per attempt, and clock-skew findings.
///
/// The library never prints; the command line turns these into `--verbose` lines and warnings.
public enum ClientNotice: Sendable {
  /// One HTTP attempt finished (with a response or an error).
  case request(RequestEvent)
  /// The local clock is off from Kodo's by `seconds` (positive: local clock behind); requests
  /// and private URLs are signed with the corrected time from now on.
  case clockSkew(seconds: Int64)
}

/// One HTTP attempt, as `--verbose` shows it. `Authorization` is already redacted.
public struct RequestEvent: Sendable {
  /// The method.
  public var method: String
  /// The URL as sent.
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

  /// `Qiniu AK:signature` → `Qiniu AK:<redacted>`: the signature is not the secret, but it
  /// authorises the request for a while and has no business in logs.
  public static func redactAuthorization(_ value: String) -> String {
    guard let colon = value.firstIndex(of: ":") else {
      if let space = value.firstIndex(of: " ") { return value[..<space] + " <redacted>" }
      return "<redacted>"
    }
    return value[...colon] + "<redacted>"
  }
}
