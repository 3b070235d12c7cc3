/// A request's parts as the signers see them.
public struct SignableRequest: Sendable, Equatable {
  /// The method, exactly as sent (`GET`).
  public var method: String
  /// The absolute URL (or path with query), exactly as sent.
  public var url: String
  /// The `Host` header value; `nil` takes the URL's authority.
  public var host: String?
  /// The `Content-Type` header value, or `nil` when none is sent.
  public var contentType: String?
  /// Every header sent, in order (a scheme signs the ones it covers, such as Kodo's `X-Qiniu-*`).
  public var headers: [(String, String)]
  /// The body bytes.
  public var body: [UInt8]

  /// A request from its parts.
  public init(
    method: String = "GET", url: String, host: String? = nil, contentType: String? = nil,
    headers: [(String, String)] = [], body: [UInt8] = []
  ) {
    self.method = method
    self.url = url
    self.host = host
    self.contentType = contentType
    self.headers = headers
    self.body = body
  }

  public static func == (lhs: SignableRequest, rhs: SignableRequest) -> Bool {
    lhs.method == rhs.method && lhs.url == rhs.url && lhs.host == rhs.host
      && lhs.contentType == rhs.contentType && lhs.body == rhs.body
      && lhs.headers.elementsEqual(rhs.headers, by: { $0 == $1 })
  }
}
