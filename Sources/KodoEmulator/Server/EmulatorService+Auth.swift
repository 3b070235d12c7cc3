import Foundation
import KodoCore
import NIOHTTP1
import StorageCore

/// The outcome of checking a management request's `Authorization`.
enum AuthOutcome {
  case ok
  case badToken
  case skewed
}

/// The outcome of checking a download's private-URL token.
enum DownloadTokenOutcome: Equatable {
  case valid
  case missing
  case invalid
  case expired
}

extension EmulatorService {
  /// The largest difference between `X-Qiniu-Date` and the emulator's clock, seconds.
  static let allowedSkew: Int64 = 15 * 60

  /// Checks `Authorization: Qiniu AK:sig` or `QBox AK:sig` the way Kodo recomputes it: over the
  /// method, the raw target, `Host`, `Content-Type`, the `X-Qiniu-*` headers and the body, exactly
  /// as received. Then, if `X-Qiniu-Date` is present, its distance from the emulator's clock.
  func authenticate(_ request: IncomingRequest) -> AuthOutcome {
    let head = request.head
    guard let authorization = head.headers.first(name: "Authorization") else { return .badToken }
    let signable = SignableRequest(
      method: head.method.rawValue, url: head.uri, host: head.headers.first(name: "Host") ?? "",
      contentType: head.headers.first(name: "Content-Type"),
      headers: head.headers.map { ($0.name, $0.value) }, body: request.body)
    let credentials = configuration.credentials
    let expected: String
    if WireText.hasPrefix(authorization, "Qiniu ") {
      expected = RequestSigning.qiniuAuthorization(for: signable, credentials: credentials)
    } else if WireText.hasPrefix(authorization, "QBox ") {
      expected = RequestSigning.qboxAuthorization(for: signable, credentials: credentials)
    } else {
      return .badToken
    }
    guard Self.constantTimeEquals(expected, authorization) else { return .badToken }
    if let dateText = head.headers.first(name: "X-Qiniu-Date") {
      guard let date = RequestSigning.parseQiniuDate(dateText) else { return .skewed }
      let difference = Int64(date.timeIntervalSince1970) - configuration.clock.unixSeconds
      if difference.magnitude > Self.allowedSkew { return .skewed }
    }
    return .ok
  }

  /// Checks a private-URL token: `…?[query&]e=DEADLINE&token=AK:SIG`, `token` last, the
  /// signature over `http://` + `Host` + the target up to `&token=`.
  func checkDownloadToken(_ request: IncomingRequest) -> DownloadTokenOutcome {
    let uri = request.head.uri
    guard let (_, query) = WireText.cut(uri, at: "?") else { return .missing }
    var signedEnd: String.Index?
    var tokenValue: Substring = ""
    var deadline: Int64?
    for pair in WireText.split(query, at: "&") {
      if let value = WireText.dropping(prefix: "token=", from: pair) {
        // Signed: everything before the `&` (or `?`) that precedes this parameter.
        signedEnd = uri.utf8.index(before: pair.startIndex)
        tokenValue = value
        break
      }
      if let value = WireText.dropping(prefix: "e=", from: pair) { deadline = Int64(value) }
    }
    guard let signedEnd else { return .missing }
    guard let deadline else { return .invalid }
    let signedTarget = uri[..<signedEnd]
    let signed =
      KeySegments.startsWithSlash(signedTarget)
      ? "http://" + (request.head.headers.first(name: "Host") ?? "") + signedTarget
      : String(signedTarget)
    let expected = configuration.credentials.sign(signed)
    let token = String(tokenValue)
    guard
      Self.constantTimeEquals(expected, token)
        || Self.constantTimeEquals(expected, PercentEncoding.decode(token) ?? "")
    else { return .invalid }
    return deadline < configuration.clock.unixSeconds ? .expired : .valid
  }

  /// Compares two strings in time independent of where they differ.
  static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let left = Array(a.utf8)
    let right = Array(b.utf8)
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for index in left.indices { difference |= left[index] ^ right[index] }
    return difference == 0
  }
}
