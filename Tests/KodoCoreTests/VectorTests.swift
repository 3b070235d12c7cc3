import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

/// One vector from `kodo-vectors.json`, named by its id in test output.
struct Vector: Sendable, CustomTestStringConvertible {
  let id: String
  let algorithm: String
  let json: JSONValue

  var testDescription: String { id }

  var credentials: Credentials {
    Credentials(
      accessKey: json["ak"]?.stringValue ?? "MY_ACCESS_KEY",
      secretKey: json["sk"]?.stringValue ?? "MY_SECRET_KEY")
  }
  var inputs: JSONValue { json["inputs"] ?? .null }
  var expected: JSONValue { json["expected"] ?? .null }
  var intermediate: JSONValue? { json["intermediate"] }

  static let all: [Vector] = {
    guard let text = try? Fixtures.text("kodo-vectors.json"),
      let root = try? JSONValue.parse(text),
      let vectors = root["vectors"]?.arrayValue
    else { return [] }
    return vectors.compactMap { value in
      guard let id = value["id"]?.stringValue, let algorithm = value["algorithm"]?.stringValue
      else { return nil }
      return Vector(id: id, algorithm: algorithm, json: value)
    }
  }()

  static let required: [Vector] = all.filter {
    $0.json["conformance"]?.stringValue?.hasPrefix("required") == true
  }

  static func required(_ algorithm: String) -> [Vector] {
    required.filter { $0.algorithm == algorithm }
  }
}

private func bytes(hex: String) -> [UInt8] {
  var output: [UInt8] = []
  var index = hex.startIndex
  while index < hex.endIndex {
    let next = hex.index(index, offsetBy: 2)
    output.append(UInt8(hex[index..<next], radix: 16)!)
    index = next
  }
  return output
}

private func signable(_ inputs: JSONValue, defaultMethod: String = "GET") -> SignableRequest {
  let headers: [(String, String)] =
    inputs["x_qiniu_headers"]?.objectMembers?.map { ($0.name, $0.value.stringValue ?? "") } ?? []
  return SignableRequest(
    method: inputs["method"]?.stringValue ?? defaultMethod,
    url: inputs["url"]?.stringValue ?? "",
    host: inputs["host"]?.stringValue,
    contentType: inputs["content_type"]?.stringValue,
    headers: headers,
    body: Array((inputs["body"]?.stringValue ?? "").utf8))
}

@Suite("Official vectors (conformance: required)")
struct VectorTests {
  @Test func theFixtureIsLoadedAndMatchesShared() throws {
    #expect(Vector.required.count >= 227, "expected the full set of required vectors")
    let shared = Fixtures.repositoryRoot.deletingLastPathComponent()
      .appendingPathComponent("shared/vectors/kodo-vectors.json")
    if let sharedText = try? String(contentsOf: shared, encoding: .utf8) {
      #expect(
        try Fixtures.text("kodo-vectors.json") == sharedText,
        "Tests/Fixtures/kodo-vectors.json differs from ../shared/vectors; copy it again")
    }
    let known: Set<String> = [
      "sign", "sign_with_data", "qbox_signing_string", "qiniu_signing_string",
      "qbox_access_token", "qiniu_access_token", "private_download_url",
      "private_download_url_matrix", "upload_token", "encoded_entry", "canonical_header_key",
      "x_qiniu_date", "key_path_encoding", "urlsafe_base64", "url_only", "puttime_to_utc",
    ]
    let unknown = Set(Vector.required.map(\.algorithm)).subtracting(known)
    #expect(unknown.isEmpty, "required vectors of algorithms no test checks: \(unknown)")
  }

  @Test(arguments: Vector.required("sign"))
  func sign(_ vector: Vector) {
    let data = vector.inputs["data"]?.stringValue ?? ""
    #expect(vector.credentials.sign(data) == vector.expected["token"]?.stringValue)
  }

  @Test(arguments: Vector.required("sign_with_data"))
  func signWithData(_ vector: Vector) {
    let data = vector.inputs["data"]?.stringValue ?? ""
    #expect(
      vector.credentials.signWithData(Array(data.utf8)) == vector.expected["token"]?.stringValue)
  }

  @Test(arguments: Vector.required("qbox_signing_string") + Vector.required("qiniu_signing_string"))
  func signGivenSigningString(_ vector: Vector) {
    let text = vector.inputs["signing_string"]?.stringValue ?? ""
    #expect(vector.credentials.sign(text) == vector.expected["token"]?.stringValue)
    if let correct = vector.expected["correct_signing_string"]?.stringValue {
      #expect(vector.credentials.sign(correct) == vector.expected["correct_token"]?.stringValue)
      // Our signer builds the correct (Go/Python/Java) Host line for an explicit port.
      let request = SignableRequest(
        url: "http://127.0.0.1:8080/stat/abc", contentType: RequestSigning.formContentType)
      #expect(
        String(decoding: RequestSigning.qiniuSigningString(for: request), as: UTF8.self) == correct)
    }
  }

  @Test(arguments: Vector.required("qbox_access_token"))
  func qboxAccessToken(_ vector: Vector) {
    let request = signable(vector.inputs, defaultMethod: "POST")
    let signingString = String(
      decoding: RequestSigning.qboxSigningString(for: request), as: UTF8.self)
    if let expectedString = vector.intermediate?["signing_string"]?.stringValue {
      #expect(signingString == expectedString)
    }
    let authorization = RequestSigning.qboxAuthorization(
      for: request, credentials: vector.credentials)
    if let token = vector.expected["token"]?.stringValue {
      #expect(authorization == "QBox " + token)
    }
    if let expectedAuthorization = vector.expected["authorization"]?.stringValue {
      #expect(authorization == expectedAuthorization)
    }
  }

  @Test(arguments: Vector.required("qiniu_access_token"))
  func qiniuAccessToken(_ vector: Vector) {
    let request = signable(vector.inputs)
    let signingString = String(
      decoding: RequestSigning.qiniuSigningString(for: request), as: UTF8.self)
    if let expectedString = vector.intermediate?["signing_string"]?.stringValue {
      #expect(signingString == expectedString)
    }
    let authorization = RequestSigning.qiniuAuthorization(
      for: request, credentials: vector.credentials)
    if let token = vector.expected["token"]?.stringValue {
      #expect(authorization == "Qiniu " + token)
    }
    #expect(authorization == vector.expected["authorization"]?.stringValue)
  }

  @Test(arguments: Vector.required("private_download_url"))
  func privateDownloadURL(_ vector: Vector) throws {
    let baseURL = try #require(vector.inputs["base_url"]?.stringValue)
    let deadline = try #require(vector.inputs["deadline"]?.int64Value)
    if let domain = vector.inputs["domain"]?.stringValue,
      let key = vector.inputs["key"]?.stringValue
    {
      #expect(DownloadURL.publicURL(domain: domain, key: key) == baseURL)
    }
    let url = DownloadURL.privateURL(
      baseURL: baseURL, deadline: deadline, credentials: vector.credentials)
    #expect(url == vector.expected["url"]?.stringValue)
    if let toSign = vector.intermediate?["url_to_sign"]?.stringValue {
      #expect(url.hasPrefix(toSign + "&token="))
    }
  }

  @Test(arguments: Vector.required("private_download_url_matrix"))
  func privateDownloadURLRecommendedColumn(_ vector: Vector) throws {
    let domain = try #require(vector.inputs["domain"]?.stringValue)
    let key = try #require(vector.inputs["key"]?.stringValue)
    let deadline = try #require(vector.inputs["deadline"]?.int64Value)
    let recommended = try #require(vector.expected["recommended"])
    #expect(PercentEncoding.encodePath(key) == recommended["path"]?.stringValue)
    let url = DownloadURL.privateURL(
      baseURL: DownloadURL.publicURL(domain: domain, key: key), deadline: deadline,
      credentials: vector.credentials)
    #expect(url == recommended["url"]?.stringValue)
  }

  @Test(arguments: Vector.required("upload_token"))
  func uploadToken(_ vector: Vector) throws {
    let policy = try #require(vector.inputs["put_policy_json"]?.stringValue)
    #expect(
      UploadToken.token(policyJSON: policy, credentials: vector.credentials)
        == vector.expected["token"]?.stringValue)
    // Rebuilding the policy from scope, deadline and the other fields gives the same bytes
    // whenever the SDK wrote scope and deadline first.
    let parsed = try JSONValue.parse(policy)
    let members = try #require(parsed.objectMembers)
    if members.count >= 2, members[0].name == "scope", members[1].name == "deadline" {
      let rebuilt = try UploadToken.policyJSON(
        scope: try #require(members[0].value.stringValue),
        deadline: try #require(members[1].value.int64Value),
        extra: .object(Array(members.dropFirst(2))))
      #expect(rebuilt == policy)
    }
  }

  @Test(arguments: Vector.required("encoded_entry"))
  func encodedEntry(_ vector: Vector) throws {
    let bucket = try #require(vector.inputs["bucket"]?.stringValue)
    let key = vector.inputs["key"]?.stringValue
    let encoded = EncodedEntryURI.encode(bucket: bucket, key: key)
    #expect(encoded == vector.expected["encoded_entry"]?.stringValue)
    let decoded = try #require(EncodedEntryURI.decode(encoded))
    #expect(decoded.bucket == bucket)
    #expect(decoded.key == key)
  }

  @Test(arguments: Vector.required("canonical_header_key"))
  func canonicalHeaderKey(_ vector: Vector) throws {
    let name = try #require(vector.inputs["name"]?.stringValue)
    #expect(RequestSigning.canonicalHeaderName(name) == vector.expected["canonical"]?.stringValue)
  }

  @Test(arguments: Vector.required("x_qiniu_date"))
  func xQiniuDate(_ vector: Vector) throws {
    let utc = try #require(vector.inputs["utc"]?.stringValue)
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let date = try #require(formatter.date(from: utc))
    let expected = try #require(vector.expected["x_qiniu_date"]?.stringValue)
    #expect(RequestSigning.qiniuDate(date) == expected)
    let parsed = try #require(RequestSigning.parseQiniuDate(expected))
    #expect(Int64(parsed.timeIntervalSince1970) == Int64(date.timeIntervalSince1970))
  }

  @Test(arguments: Vector.required("key_path_encoding"))
  func keyPathEncoding(_ vector: Vector) throws {
    let key = try #require(vector.inputs["key"]?.stringValue)
    let domain = try #require(vector.inputs["domain"]?.stringValue)
    #expect(PercentEncoding.encodePath(key) == vector.expected["encoded_path"]?.stringValue)
    #expect(DownloadURL.publicURL(domain: domain, key: key) == vector.expected["url"]?.stringValue)
    #expect(PercentEncoding.decode(PercentEncoding.encodePath(key)) == key)
  }

  @Test(arguments: Vector.required("urlsafe_base64"))
  func urlSafeBase64(_ vector: Vector) throws {
    let input = bytes(hex: try #require(vector.inputs["bytes_hex"]?.stringValue))
    let expected = try #require(vector.expected["b64"]?.stringValue)
    #expect(URLSafeBase64.encode(input) == expected)
    #expect(URLSafeBase64.decode(expected) == input)
    var unpadded = expected
    while unpadded.hasSuffix("=") { unpadded.removeLast() }
    #expect(URLSafeBase64.decode(unpadded) == input)
  }

  @Test(arguments: Vector.required("url_only"))
  func regionQueryURL(_ vector: Vector) throws {
    // The client sends the query's path after a uc base URL, the first by default.
    let url =
      RegionQuery.defaultUCHosts[0]
      + RegionQuery.path(
        accessKey: try #require(vector.inputs["ak"]?.stringValue),
        bucket: try #require(vector.inputs["bucket"]?.stringValue))
    #expect(url == vector.expected["url"]?.stringValue)
  }

  @Test(arguments: Vector.required("puttime_to_utc"))
  func putTime(_ vector: Vector) throws {
    let value = try #require(vector.inputs["putTime"]?.int64Value)
    #expect(
      KodoTime.rfc3339(hundredNanoseconds: value) == vector.expected["utc_iso8601"]?.stringValue)
    #expect(
      KodoTime.unixSeconds(hundredNanoseconds: value) == vector.expected["unix_seconds"]?.int64Value
    )
  }
}
