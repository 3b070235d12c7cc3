package import Foundation
public import StorageCore

/// Kodo's two management-request signature schemes.
public enum RequestSigning {
  /// The form content type every Kodo management request sends and signs.
  public static let formContentType = "application/x-www-form-urlencoded"

  /// The legacy `QBox` signing string: `path[?query]\n[body]`, the body only for form requests.
  package static func qboxSigningString(for request: SignableRequest) -> [UInt8] {
    let parts = URLParts(request.url)
    var data = Array(parts.pathAndQuery.utf8)
    data.append(UInt8(ascii: "\n"))
    if request.contentType == formContentType && !request.body.isEmpty {
      data.append(contentsOf: request.body)
    }
    return data
  }

  /// The `Qiniu` (v2) signing string; see `docs/kodo-protocol.md` §6.3.
  ///
  /// `METHOD path[?query]\nHost: host[\nContent-Type: ct]{\nX-Qiniu-Name: value}\n\n[body]`, with
  /// `X-Qiniu-*` names canonicalised and sorted, and the body only when a content type other than
  /// `application/octet-stream` is sent.
  package static func qiniuSigningString(for request: SignableRequest) -> [UInt8] {
    let parts = URLParts(request.url)
    var text = request.method + " " + parts.pathAndQuery
    text += "\nHost: " + (request.host ?? parts.authority)
    if let contentType = request.contentType {
      text += "\nContent-Type: " + contentType
    }
    let qiniuHeaders =
      request.headers
      .map { (name: canonicalHeaderName($0.0), value: $0.1) }
      .filter { $0.name.utf8.count > 8 && WireText.hasPrefix($0.name, "X-Qiniu-") }
      .sorted {
        WireText.same($0.name, $1.name)
          ? WireText.precedes($0.value, $1.value) : WireText.precedes($0.name, $1.name)
      }
    for header in qiniuHeaders {
      text += "\n" + header.name + ": " + header.value
    }
    text += "\n\n"
    var data = Array(text.utf8)
    if let contentType = request.contentType,
      !WireText.same(contentType, "application/octet-stream"),
      !request.body.isEmpty
    {
      data.append(contentsOf: request.body)
    }
    return data
  }

  /// The `Authorization` header value for the `QBox` scheme.
  public static func qboxAuthorization(for request: SignableRequest, credentials: Credentials)
    -> String
  {
    "QBox " + credentials.sign(qboxSigningString(for: request))
  }

  /// The `Authorization` header value for the `Qiniu` scheme.
  public static func qiniuAuthorization(for request: SignableRequest, credentials: Credentials)
    -> String
  {
    "Qiniu " + credentials.sign(qiniuSigningString(for: request))
  }

  /// Go's `CanonicalMIMEHeaderKey`: first letter and letters after `-` upper-cased, the rest
  /// lower-cased; a name with a character outside RFC 7230's token set is returned unchanged.
  package static func canonicalHeaderName(_ name: String) -> String {
    let bytes = Array(name.utf8)
    for byte in bytes where !HTTPToken.isTokenByte(byte) { return name }
    var upper = true
    var output = [UInt8]()
    output.reserveCapacity(bytes.count)
    for byte in bytes {
      var character = byte
      if upper && character >= UInt8(ascii: "a") && character <= UInt8(ascii: "z") {
        character -= 32
      } else if !upper && character >= UInt8(ascii: "A") && character <= UInt8(ascii: "Z") {
        character += 32
      }
      output.append(character)
      upper = character == UInt8(ascii: "-")
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// `X-Qiniu-Date`'s format: `YYYYMMDDTHHMMSSZ` in UTC.
  package static func qiniuDate(_ date: Date) -> String {
    let civil = CivilTime(unixSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    return civil.compact
  }

  /// Parses `YYYYMMDDTHHMMSSZ` back to a date.
  package static func parseQiniuDate(_ text: String) -> Date? {
    guard let seconds = CivilTime.parseCompact(text) else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }
}
