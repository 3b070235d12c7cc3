import Foundation
import KodoEmulator
import OSSCore
import StorageCore
import Testing

@Suite("OSS errors")
struct ErrorMappingTests {
  static func response(
    _ status: Int, code: String?, message: String = "m", head: Bool = false,
    fields: [String: String] = [:], requestID: String? = "5C9F6F2B1C9E7E8C2F0A0001"
  ) -> HTTPResponse {
    var headers: HTTPHeaders = ["Content-Type": "application/xml"]
    if let requestID { headers.add("x-oss-request-id", requestID) }
    guard let code else { return HTTPResponse(status: status, headers: headers) }
    let body = OSSErrorBody(
      code: code, message: message, requestID: requestID, hostID: "h", ec: "0002-00000001",
      fields: fields)
    if head {
      headers.add("x-oss-err", OSSAnswers.errorHeaderValue(body))
      return HTTPResponse(status: status, headers: headers)
    }
    return HTTPResponse(status: status, headers: headers, body: OSSAnswers.errorXML(body))
  }

  static let table: [(Int, String?, StorageError.Kind)] = [
    (404, "NoSuchBucket", .notFound), (404, "NoSuchKey", .notFound), (404, nil, .notFound),
    (403, "AccessDenied", .unauthorized), (403, "InvalidAccessKeyId", .unauthorized),
    (403, "SignatureDoesNotMatch", .unauthorized), (403, "SecurityTokenExpired", .unauthorized),
    (403, "RequestTimeTooSkewed", .unauthorized),
    (403, "SecondLevelDomainForbidden", .unauthorized),
    (401, nil, .unauthorized), (403, "InvalidObjectState", .unauthorized),
    (500, "InternalError", .temporary), (503, "ServiceUnavailable", .temporary),
    (429, "TooManyRequests", .temporary), (408, "RequestTimeout", .temporary),
    (501, "NotImplemented", .rejected), (400, "InvalidArgument", .invalidInput),
    (416, "InvalidRange", .invalidInput), (409, "BucketNotEmpty", .rejected),
  ]

  @Test(arguments: table.indices)
  func codesMapToTheContractsKinds(_ index: Int) {
    let (status, code, kind) = Self.table[index]
    for head in [false, true] {
      let (error, body) = OSSErrors.error(
        for: Self.response(status, code: code, head: head), what: "the stat of \"k\"",
        bucket: "b", key: "k")
      #expect(error.kind == kind, "\(status) \(code ?? "-")")
      #expect(error.status == status)
      #expect(error.serviceCode == code)
      #expect(body?.code == code)
      #expect(error.requestID == "5C9F6F2B1C9E7E8C2F0A0001")
      #expect(!error.message.contains("--"), "\(error.message)")
      if let code { #expect(error.message.contains(code), "\(error.message)") }
    }
  }

  @Test func messagesSayWhatAndWhatToDo() {
    let noKey = OSSErrors.error(
      for: Self.response(404, code: "NoSuchKey", message: "The specified key does not exist."),
      what: "the stat of \"a\\nb\"", bucket: "photos", key: "a\nb"
    ).error
    #expect(
      noKey.message.hasPrefix("no such key \"a\\nb\" in bucket \"photos\" (HTTP 404 NoSuchKey"))
    #expect(noKey.serverMessage == "The specified key does not exist.")
    #expect(noKey.description.contains("request id 5C9F6F2B1C9E7E8C2F0A0001"))
    let noBucket = OSSErrors.error(
      for: Self.response(404, code: "NoSuchBucket"), what: "the listing", bucket: "photos"
    ).error
    #expect(noBucket.hint == .noSuchBucket("photos"))
    let region = OSSErrors.error(
      for: Self.response(
        400, code: "InvalidArgument", message: "Invalid signing region in Authorization header."),
      what: "the listing"
    ).error
    #expect(region.kind == .configuration)
    #expect(region.message.contains("region ID such as cn-hangzhou"))
  }

  @Test func unreadableOrMissingBodiesMapByStatus() {
    let proxy = HTTPResponse(status: 502, body: Array("<html>Bad Gateway</html>".utf8))
    let (error, body) = OSSErrors.error(for: proxy, what: "the listing")
    #expect(body == nil)
    #expect(error.kind == .temporary)
    #expect(error.message.contains("not OSS's XML"))
    #expect(error.message.contains("no x-oss-request-id"))
    let bare = OSSErrors.error(for: HTTPResponse(status: 403), what: "the stat").error
    #expect(bare.kind == .unauthorized)
    #expect(bare.serviceCode == nil)
  }

  @Test func verdictsRetryCorrectTheClockOrGiveUp() {
    func retry(_ verdict: AnswerVerdict) -> String {
      switch verdict {
      case .success: "success"
      case .failure(_, .final): "final"
      case .failure(_, .retry): "retry"
      case .failure(_, .retryRateLimited): "rate-limited"
      case .clockSkew(_, let serverTime): "skew \(serverTime.map(String.init) ?? "-")"
      }
    }
    #expect(retry(OSSErrors.verdict(for: HTTPResponse(status: 200), what: "x")) == "success")
    #expect(
      retry(OSSErrors.verdict(for: Self.response(503, code: "ServiceUnavailable"), what: "x"))
        == "retry")
    #expect(retry(OSSErrors.verdict(for: Self.response(500, code: nil), what: "x")) == "retry")
    #expect(
      retry(OSSErrors.verdict(for: Self.response(429, code: "x"), what: "x")) == "rate-limited")
    #expect(
      retry(OSSErrors.verdict(for: Self.response(404, code: "NoSuchKey"), what: "x")) == "final")
    #expect(
      retry(OSSErrors.verdict(for: Self.response(501, code: "NotImplemented"), what: "x"))
        == "final")
    let skewed = Self.response(
      403, code: "RequestTimeTooSkewed",
      fields: ["ServerTime": "2019-03-30T13:18:53.000Z", "RequestTime": "1970-01-01T12:52:35.000Z"])
    #expect(retry(OSSErrors.verdict(for: skewed, what: "x")) == "skew 1553951933")
    let skewedHead = Self.response(
      403, code: "RequestTimeTooSkewed", head: true,
      fields: ["ServerTime": "2019-03-30T13:18:53.000Z"])
    #expect(retry(OSSErrors.verdict(for: skewedHead, what: "x")) == "skew 1553951933")
    let (error, _) = OSSErrors.error(for: skewed, what: "the listing")
    #expect(error.kind == .unauthorized)
    #expect(error.message.contains("local clock is wrong"))
    #expect(error.message.contains("2019-03-30T13:18:53.000Z"))
  }

  @Test func theServersStringToSignNeverReachesAMessage() {
    let token = "CAISexampleSTS+token/with=base64chars"
    let answer = Self.response(
      403, code: "SignatureDoesNotMatch",
      fields: [
        "StringToSign": "GET\n\n\n1700003600\nx-oss-security-token:\(token)\n/b/k",
        "SignatureProvided": "XdYFzlBQhAesEUjZ0NvxULE2MEI=",
      ])
    let (error, body) = OSSErrors.error(for: answer, what: "the stat")
    #expect(body?.fields["StringToSign"]?.contains(token) == true)
    for text in [error.message, error.description, error.serverMessage ?? ""] {
      #expect(!text.contains(token))
      #expect(!text.contains("XdYFzlBQ"))
    }
  }
}
