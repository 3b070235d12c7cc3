import Foundation
import OSSCore
import StorageCore

/// Runs one vector through OSSCore and lists every way the result differs from the SDK's.
enum OSSVectorCheck {
  static func mismatches(_ vector: OSSVector) -> [String] {
    var check = Comparison()
    do {
      switch (vector.kind, vector.sdk) {
      case ("crc64", _): crc(vector, &check)
      case ("header_v1", "sdk-unit-test"), ("header_v4", "sdk-unit-test"):
        try unitTestHeader(vector, &check)
      case ("presign_v1", "sdk-unit-test"), ("presign_v4", "sdk-unit-test"):
        try unitTestPresign(vector, &check)
      case ("header_v1", "aliyun-doc"): try docHeader(vector, &check)
      case ("presign_v1", "aliyun-doc"): try docPresign(vector, &check)
      case ("header_v1", _), ("header_v4", _): try sdkHeader(vector, &check)
      case ("presign_v1", _), ("presign_v4", _): try sdkPresign(vector, &check)
      default: check.differences.append("no check for kind \(vector.kind) from \(vector.sdk)")
      }
    } catch {
      check.differences.append("threw \(error)")
    }
    return check.differences
  }

  struct Comparison {
    var differences: [String] = []

    mutating func equal(_ name: String, _ ours: String?, _ theirs: String?) {
      guard let theirs else { return }
      if ours != theirs {
        differences.append(
          "\(name): ours \(String(reflecting: ours)), SDK's \(String(reflecting: theirs))")
      }
    }
  }

  // MARK: Inputs

  static func credentials(_ inputs: JSONValue) -> Credentials {
    Credentials(
      accessKey: inputs["access_key_id"]?.stringValue ?? "",
      secretKey: inputs["access_key_secret"]?.stringValue ?? "",
      securityToken: inputs["security_token"]?.stringValue)
  }

  static func signer(_ vector: OSSVector) throws(StorageError) -> OSSSigner {
    try OSSSigner(
      credentials: credentials(vector.inputs),
      version: vector.kind.hasSuffix("v1") ? .v1 : .v4,
      region: vector.inputs["region"]?.stringValue ?? "cn-hangzhou")
  }

  static func headers(_ value: JSONValue?) -> HTTPHeaders {
    HTTPHeaders(value?.pairs ?? [])
  }

  /// The endpoint as the SDK completed it: oss2 adds `http://`, the v2 SDK `https://`.
  static func endpoint(_ vector: OSSVector) throws(StorageError) -> OSSEndpoint {
    let text = vector.inputs["endpoint"]?.stringValue ?? "oss-cn-hangzhou.aliyuncs.com"
    if text.contains("://") { return try OSSEndpoint(text) }
    return try OSSEndpoint((vector.sdk == "oss2" ? "http://" : "https://") + text)
  }

  static func flag(_ vector: OSSVector, _ names: String...) -> Bool {
    names.contains { vector.inputs[$0] == .bool(true) }
  }

  /// The addressing, custom domain and slash spelling the SDK used.
  static func addressing(_ vector: OSSVector) throws(StorageError) -> (
    OSSAddressing, OSSEndpoint?, Bool
  ) {
    let endpoint = try endpoint(vector)
    let cname = flag(vector, "is_cname", "use_cname")
    let addressing = OSSAddressing(
      endpoint: cname ? try OSSEndpoint(region: "cn-hangzhou") : endpoint,
      pathStyle: flag(vector, "is_path_style", "use_path_style"))
    // oss2 writes "/" in keys as %2F unless slash_safe; the v2 SDK keeps it.
    let encodeSlashes = vector.sdk == "oss2" && !flag(vector, "slash_safe")
    return (addressing, cname ? endpoint : nil, encodeSlashes)
  }

  /// The request an SDK vector describes. The v2 SDK adds parameters and headers of its own
  /// per operation (`encoding-type`, `list-type`, `bucketInfo`, an empty body's Content-MD5):
  /// they are taken from the URL and headers it sent.
  static func request(_ vector: OSSVector) -> OSSRequest {
    let inputs = vector.inputs
    var request = OSSRequest(
      method: inputs["method"]?.stringValue ?? "GET", bucket: inputs["bucket"]?.stringValue,
      key: inputs["key"]?.stringValue ?? "",
      query: inputs["params"]?.pairs.map { OSSQueryItem($0.0, $0.1) } ?? [],
      headers: headers(inputs["headers"]))
    if vector.sdk == "alibabacloud-oss-v2", let url = vector.expected["url"]?.stringValue {
      if !vector.kind.hasPrefix("presign") { request.query = queryItems(of: url) }
      let generated: Set<String> = [
        "authorization", "date", "x-oss-date", "x-oss-content-sha256", "x-oss-security-token",
        "security-token",
      ]
      for (name, value) in vector.expected["headers"]?.pairs ?? []
      where !generated.contains(name.lowercased()) && request.headers[name] == nil {
        request.headers.add(name, value)
      }
    }
    return request
  }

  /// The request a unit-test or documentation vector describes, with `query`.
  static func plainRequest(_ inputs: JSONValue, query: [OSSQueryItem] = []) -> OSSRequest {
    OSSRequest(
      method: inputs["method"]?.stringValue ?? "GET", bucket: inputs["bucket"]?.stringValue,
      key: inputs["key"]?.stringValue ?? "", query: query, headers: headers(inputs["headers"]),
      additionalHeaders: inputs["additional_headers"]?.arrayValue?.compactMap(\.stringValue) ?? [])
  }

  /// The recomputed intermediate strings, when the vector has them.
  static func checkRecomputed(
    _ signed: OSSSignedRequest, _ vector: OSSVector, _ check: inout Comparison
  ) {
    check.equal(
      "recomputed string to sign", signed.stringToSign,
      vector.recomputed?["string_to_sign"]?.stringValue)
    check.equal(
      "recomputed canonical request", signed.canonicalRequest,
      vector.recomputed?["canonical_request"]?.stringValue)
  }

  // MARK: Kinds

  static func crc(_ vector: OSSVector, _ check: inout Comparison) {
    let hex = vector.inputs["bytes_hex"]?.stringValue ?? ""
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
      index = next
    }
    let value = CRC64.checksum(bytes)
    check.equal("crc64", String(value), vector.expected["crc64_decimal"]?.stringValue)
    let hexValue = String(value, radix: 16)
    check.equal(
      "crc64 hex", String(repeating: "0", count: 16 - hexValue.count) + hexValue,
      vector.expected["crc64_hex"]?.stringValue)
  }

  static func sdkHeader(_ vector: OSSVector, _ check: inout Comparison) throws(StorageError) {
    let (addressing, domain, encodeSlashes) = try addressing(vector)
    let time = vector.inputs["unix_time"]?.int64Value ?? 0
    let signed = try signer(vector).sign(
      request(vector), at: time, addressing: addressing, customDomain: domain,
      encodeSlashes: encodeSlashes)
    check.equal(
      "string to sign", signed.stringToSign, vector.expected["string_to_sign"]?.stringValue)
    check.equal(
      "canonical request", signed.canonicalRequest,
      vector.expected["canonical_request"]?.stringValue)
    check.equal(
      "authorization", normalisedAuthorization(signed.headers["Authorization"]),
      normalisedAuthorization(vector.expected["authorization"]?.stringValue))
    check.equal("url", signed.url, vector.expected["url"]?.stringValue.map(spaceAsPercent20))
    for (name, value) in vector.expected["headers"]?.pairs ?? [] {
      let lowered = name.lowercased()
      guard !["accept", "connection", "authorization"].contains(lowered) else { continue }
      check.equal("header \(name)", signed.headers[name], value)
    }
  }

  static func sdkPresign(_ vector: OSSVector, _ check: inout Comparison) throws(StorageError) {
    let (addressing, domain, encodeSlashes) = try addressing(vector)
    let time = vector.inputs["unix_time"]?.int64Value ?? 0
    let expiresIn = vector.inputs["expires_in"]?.int64Value ?? 0
    let signed = try signer(vector).presign(
      request(vector), at: time, expiresIn: expiresIn, addressing: addressing,
      customDomain: domain, encodeSlashes: encodeSlashes)
    check.equal(
      "string to sign", signed.stringToSign, vector.expected["string_to_sign"]?.stringValue)
    check.equal(
      "canonical request", signed.canonicalRequest,
      vector.expected["canonical_request"]?.stringValue)
    guard let url = vector.expected["url"]?.stringValue else { return }
    if vector.sdk == "oss2" {
      // oss2 orders the parameters differently; the path must match exactly.
      check.equal("url without query", urlWithoutQuery(signed.url), urlWithoutQuery(url))
      check.equal(
        "query", sortedQueryTexts(queryItems(of: signed.url)).joined(separator: "&"),
        sortedQueryTexts(queryItems(of: url, formDecoding: true)).joined(separator: "&"))
    } else {
      check.equal("url", signed.url, url)
    }
  }

  static func unitTestHeader(_ vector: OSSVector, _ check: inout Comparison) throws(StorageError) {
    let inputs = vector.inputs
    var query = queryItems(of: inputs["url"]?.stringValue ?? "")
    if let ordered = inputs["query_params_in_order"]?.arrayValue {
      query = ordered.compactMap { pair in
        guard let items = pair.arrayValue, items.count == 2 else { return nil }
        return OSSQueryItem(items[0].stringValue ?? "", items[1].stringValue ?? "")
      }
    }
    let request = plainRequest(inputs, query: query)
    let addressing = OSSAddressing(endpoint: try OSSEndpoint(region: "cn-hangzhou"))
    let signed = try signer(vector).sign(
      request, at: inputs["unix_time"]?.int64Value ?? 0, addressing: addressing)
    check.equal(
      "string to sign", signed.stringToSign, vector.expected["string_to_sign"]?.stringValue)
    check.equal(
      "authorization", signed.headers["Authorization"],
      vector.expected["authorization"]?.stringValue)
    checkRecomputed(signed, vector, &check)
  }

  static func unitTestPresign(_ vector: OSSVector, _ check: inout Comparison) throws(StorageError) {
    let inputs = vector.inputs
    let url = inputs["url"]?.stringValue ?? inputs["url_before_signing"]?.stringValue ?? ""
    let request = plainRequest(inputs, query: queryItems(of: url))
    let time: Int64
    let expiresIn: Int64
    if let expires = inputs["expires_unix"]?.int64Value {
      (time, expiresIn) = (expires - 60, 60)
    } else {
      time = inputs["signing_unix_time"]?.int64Value ?? 0
      expiresIn = (inputs["expiration_unix_time"]?.int64Value ?? 0) - time
    }
    let scheme = URLParts(url).scheme
    let addressing = OSSAddressing(
      endpoint: try OSSEndpoint(scheme + "://oss-cn-hangzhou.aliyuncs.com"))
    let signed = try signer(vector).presign(
      request, at: time, expiresIn: expiresIn, addressing: addressing)
    let ours = queryItems(of: signed.url)
    func value(_ name: String) -> String? { ours.last(where: { $0.name == name })?.value }
    let signatureName = vector.kind == "presign_v1" ? "Signature" : "x-oss-signature"
    let theirs = vector.expected["signature_query_value"]?.stringValue.flatMap {
      PercentEncoding.decode($0)
    }
    check.equal(
      "signature", value(signatureName), theirs ?? vector.expected["x-oss-signature"]?.stringValue)
    check.equal(
      "x-oss-expires", value("x-oss-expires"), vector.expected["x-oss-expires"]?.stringValue)
    if let additional = vector.expected["x-oss-additional-headers"]?.stringValue {
      check.equal("x-oss-additional-headers", value("x-oss-additional-headers") ?? "", additional)
    }
    checkRecomputed(signed, vector, &check)
    if let goURL = vector.expected["url_go_sdk"]?.stringValue {
      check.equal("url without query", urlWithoutQuery(signed.url), urlWithoutQuery(goURL))
      check.equal(
        "query", sortedQueryTexts(ours).joined(separator: "&"),
        sortedQueryTexts(queryItems(of: goURL)).joined(separator: "&"))
    }
  }

  static func docHeader(_ vector: OSSVector, _ check: inout Comparison) throws(StorageError) {
    let inputs = vector.inputs
    let request = plainRequest(inputs)
    let addressing = OSSAddressing(endpoint: try OSSEndpoint(region: "cn-hangzhou"))
    let signed = try signer(vector).sign(request, at: 0, addressing: addressing)
    check.equal(
      "authorization", signed.headers["Authorization"],
      vector.expected["authorization"]?.stringValue)
    check.equal(
      "recomputed string to sign", signed.stringToSign,
      vector.recomputed?["string_to_sign"]?.stringValue)
  }

  static func docPresign(_ vector: OSSVector, _ check: inout Comparison) throws(StorageError) {
    let inputs = vector.inputs
    let request = plainRequest(inputs)
    let expires = inputs["expires_unix"]?.int64Value ?? 0
    let addressing = OSSAddressing(endpoint: try OSSEndpoint(region: "cn-hangzhou"))
    let signed = try signer(vector).presign(
      request, at: expires - 60, expiresIn: 60, addressing: addressing)
    check.equal("query", URLParts(signed.url).query, vector.expected["query"]?.stringValue)
    check.equal(
      "signature", queryItems(of: signed.url).last?.value, vector.expected["signature"]?.stringValue
    )
  }

  // MARK: Spellings

  /// oss2's `requests` writes a space in a query as `+` (a `+` itself is `%2B`); we write `%20`.
  static func spaceAsPercent20(_ url: String) -> String {
    guard let question = url.firstIndex(of: "?") else { return url }
    return String(url[...question])
      + url[url.index(after: question)...]
      .replacingOccurrences(of: "+", with: "%20")
  }

  /// oss2 separates the V4 Authorization fields with `, ` and puts AdditionalHeaders last; the
  /// other SDKs use `,` in the documented order. Both are accepted; compare the fields.
  static func normalisedAuthorization(_ value: String?) -> String? {
    guard let value, value.hasPrefix("OSS4-HMAC-SHA256 ") else { return value }
    let fields = value.dropFirst("OSS4-HMAC-SHA256 ".count).split(separator: ",")
      .map { $0.trimmingCharacters(in: .whitespaces) }.sorted()
    return "OSS4-HMAC-SHA256 " + fields.joined(separator: ",")
  }
}
