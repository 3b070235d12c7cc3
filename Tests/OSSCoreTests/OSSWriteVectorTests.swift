import Foundation
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// The OSS vectors of `write-vectors.json`, as `OSSVector`s (the SDK named as the read-side
/// vectors name it), so the read side's signing helpers apply.
enum OSSWriteVectors {
  static let all: [(category: String, vector: OSSVector)] = {
    guard let text = try? Fixtures.text("write-vectors.json"),
      let root = try? JSONValue.parse(text),
      let vectors = root["vectors"]?.arrayValue
    else { return [] }
    return vectors.compactMap { value in
      guard value["provider"]?.stringValue == "oss", let id = value["id"]?.stringValue,
        let category = value["category"]?.stringValue,
        let sdk = value["sdk"]?.stringValue, let conformance = value["conformance"]?.stringValue
      else { return nil }
      let name = sdk.hasPrefix("oss2") ? "oss2" : "alibabacloud-oss-v2"
      return (
        category,
        OSSVector(
          id: id, kind: value["kind"]?.stringValue ?? category, sdk: name,
          conformance: conformance, json: value)
      )
    }
  }()

  static func required(_ prefix: String) -> [OSSVector] {
    all.filter { $0.category.hasPrefix(prefix) && $0.vector.isRequired }.map(\.vector)
  }

  /// The signed requests: every required vector with a `kind` (header_v1, header_v4).
  static var requests: [OSSVector] {
    all.filter { $0.vector.isRequired && $0.vector.kind.hasPrefix("header_") }.map(\.vector)
  }
}

/// The parts the generator completed uploads with (given in the order 2, 1).
let vectorParts = [
  OSSWriteRequests.Part(number: 2, etag: "7265F4D211B56873A381D321F586E4A9"),
  OSSWriteRequests.Part(number: 1, etag: "\"3349DC700140D7F86A0784842780E1F2\""),
]

@Suite("Official write vectors: OSS (conformance: required)")
struct OSSWriteVectorTests {
  @Test func everyRequiredVectorIsChecked() {
    #expect(OSSWriteVectors.all.count == 80)
    let required = OSSWriteVectors.all.filter(\.vector.isRequired)
    let checked = required.filter {
      $0.vector.kind.hasPrefix("header_") || $0.category == "oss_crc64"
    }
    #expect(required.count == checked.count, "required vectors no test checks")
    #expect(OSSWriteVectors.requests.count == 64)
  }

  /// Each request as OSSWriteRequests builds it, with the headers the SDK's caller passed
  /// (and the query parameters the SDK adds of its own, such as `encoding-type`): the path,
  /// the sub-resources, the builder's own headers and the body are ours; the signature must
  /// come out as the SDK's.
  @Test(arguments: OSSWriteVectors.requests)
  func signedRequest(_ vector: OSSVector) throws {
    var check = OSSVectorCheck.Comparison()
    let (addressing, _, encodeSlashes) = try OSSVectorCheck.addressing(vector)
    let theirs = OSSVectorCheck.headers(vector.expected["headers"])
    let generated: Set<String> = [
      "authorization", "date", "x-oss-date", "x-oss-content-sha256", "content-length",
    ]
    let owned: Set<String> = ["x-oss-copy-source", "x-oss-copy-source-range", "x-oss-complete-all"]
    var callers = HTTPHeaders()
    for field in theirs where !generated.contains(field.name.lowercased()) {
      if !owned.contains(field.name.lowercased()) { callers.add(field.name, field.value) }
    }
    var (request, body) = try build(vector, callerHeaders: callers, encodeSlashes: encodeSlashes)
    // The builder's own headers are the SDK's, byte for byte.
    for field in request.headers {
      check.equal("header \(field.name)", field.value, theirs[field.name] ?? "<absent>")
    }
    for field in callers where request.headers[field.name] == nil {
      request.headers.add(field.name, field.value)
    }
    // Our query is part of the SDK's; what the SDK adds of its own (`encoding-type`, empty
    // markers) is added for the signature.
    let url = try #require(vector.expected["url"]?.stringValue)
    let theirQuery = queryItems(of: url)
    for item in request.query where !theirQuery.contains(where: { same($0, item) }) {
      check.differences.append("query item \(item.name) is not the SDK's")
    }
    for item in theirQuery where !request.query.contains(where: { $0.name == item.name }) {
      request.query.append(item)
    }
    let signed = try OSSVectorCheck.signer(vector).sign(
      request, at: vector.inputs["unix_time"]?.int64Value ?? 0, addressing: addressing,
      encodeSlashes: encodeSlashes)
    check.equal(
      "string to sign", signed.stringToSign, vector.expected["string_to_sign"]?.stringValue)
    check.equal(
      "canonical request", signed.canonicalRequest,
      vector.expected["canonical_request"]?.stringValue)
    check.equal(
      "authorization", OSSVectorCheck.normalisedAuthorization(signed.headers["Authorization"]),
      OSSVectorCheck.normalisedAuthorization(vector.expected["authorization"]?.stringValue))
    check.equal("url without query", urlWithoutQuery(signed.url), urlWithoutQuery(url))
    if let body, let expectedBody = vector.expected["body"]?.stringValue {
      check.equal("body", String(decoding: body, as: UTF8.self), expectedBody)
      if let md5 = theirs["Content-MD5"] {
        check.equal("Content-MD5 of the body", OSSWriteRequests.contentMD5(body), md5)
      }
    }
    #expect(check.differences == [])
  }

  /// oss2 writes `"` raw in Delete's keys, the v2 SDK `&quot;` (ours): the same XML.
  @Test(arguments: OSSWriteVectors.required("oss_deletemulti"))
  func deleteBody(_ vector: OSSVector) throws {
    let keys = vector.inputs["keys"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let quiet = vector.sdk != "oss2"
    let ours = try #require(OSSWriteRequests.deleteBody(keys: keys, quiet: quiet))
    let theirs = try #require(vector.expected["body"]?.stringValue)
    if vector.sdk == "oss2" {
      #expect(
        String(decoding: ours, as: UTF8.self)
          == theirs.replacingOccurrences(of: "\"'.txt", with: "&quot;'.txt"))
    } else {
      #expect(String(decoding: ours, as: UTF8.self) == theirs)
    }
  }

  @Test(arguments: OSSWriteVectors.required("oss_crc64"))
  func crc64Combine(_ vector: OSSVector) throws {
    let inputs = vector.inputs
    let expected = vector.expected
    if let partsHex = inputs["parts_hex"]?.arrayValue?.compactMap(\.stringValue) {
      let parts = partsHex.map { hex in bytesFromHex(hex) }
      let combined = CRC64.combine(parts.map { (crc: CRC64.checksum($0), size: Int64($0.count)) })
      #expect(String(combined) == expected["combined_crc64"]?.stringValue)
      #expect(combined == CRC64.checksum(Array(parts.joined())))
    } else if let crcs = inputs["part_crcs"]?.arrayValue?.compactMap(\.stringValue) {
      let sizes = inputs["part_sizes"]?.arrayValue?.compactMap(\.int64Value) ?? []
      let combined = CRC64.combine(
        zip(crcs, sizes).map { (crc: UInt64($0.0) ?? 0, size: $0.1) })
      #expect(String(combined) == expected["combined_crc64"]?.stringValue)
    } else {
      let a = bytesFromHex(inputs["a_hex"]?.stringValue ?? "")
      let b = bytesFromHex(inputs["b_hex"]?.stringValue ?? "")
      let combined = CRC64.combine(CRC64.checksum(a), CRC64.checksum(b), length: Int64(b.count))
      #expect(combined == CRC64.checksum(a + b))
      if let crcA = inputs["crc_a"]?.stringValue { #expect(String(CRC64.checksum(a)) == crcA) }
      if let crcB = inputs["crc_b"]?.stringValue { #expect(String(CRC64.checksum(b)) == crcB) }
      #expect(String(combined) == expected["combined_crc64"]?.stringValue)
    }
  }

  // MARK: Helpers

  func same(_ a: OSSQueryItem, _ b: OSSQueryItem) -> Bool {
    a.name == b.name && (a.value ?? "") == (b.value ?? "")
  }

  /// Our request for the vector's operation, and its body when it has one.
  func build(_ vector: OSSVector, callerHeaders: HTTPHeaders, encodeSlashes: Bool) throws
    -> (OSSRequest, [UInt8]?)
  {
    let inputs = vector.inputs
    let bucket = try #require(inputs["bucket"]?.stringValue)
    let key = inputs["key"]?.stringValue ?? ""
    let uploadID = inputs["upload_id"]?.stringValue ?? ""
    let theirs = OSSVectorCheck.headers(vector.expected["headers"])
    let source = ObjectLocation(
      bucket: inputs["source_bucket"]?.stringValue ?? bucket,
      key: inputs["source_key"]?.stringValue ?? key)
    let operation = try #require(inputs["operation"]?.stringValue)
    switch operation {
    case "PutObject":
      return (
        OSSWriteRequests.put(bucket: bucket, key: key, headers: callerHeaders),
        bytesFromHex(inputs["body_hex"]?.stringValue ?? "")
      )
    case "InitiateMultipartUpload":
      return (OSSWriteRequests.initiate(bucket: bucket, key: key, headers: callerHeaders), nil)
    case "UploadPart":
      let number = Int(try #require(inputs["part_number"]?.int64Value))
      return (
        OSSWriteRequests.uploadPart(
          bucket: bucket, key: key, uploadID: uploadID, partNumber: number,
          headers: callerHeaders),
        bytesFromHex(inputs["body_hex"]?.stringValue ?? "")
      )
    case "CompleteMultipartUpload":
      let all = theirs["x-oss-complete-all"] != nil
      let request = OSSWriteRequests.complete(
        bucket: bucket, key: key, uploadID: uploadID, all: all, headers: callerHeaders)
      return (request, all ? nil : OSSWriteRequests.completeBody(vectorParts))
    case "AbortMultipartUpload":
      return (OSSWriteRequests.abort(bucket: bucket, key: key, uploadID: uploadID), nil)
    case "ListParts":
      return (OSSWriteRequests.listParts(bucket: bucket, key: key, uploadID: uploadID), nil)
    case "ListMultipartUploads":
      return (
        OSSWriteRequests.listUploads(
          bucket: bucket, prefix: try #require(inputs["prefix"]?.stringValue)), nil
      )
    case "DeleteObject":
      return (OSSWriteRequests.delete(bucket: bucket, key: key), nil)
    case "DeleteMultipleObjects":
      // The SDK's body (oss2 escapes differently; `deleteBody` compares ours): the request
      // carries whatever body it is given, and its Content-MD5.
      let body = Array(try #require(vector.expected["body"]?.stringValue).utf8)
      return (OSSWriteRequests.deleteMultiple(bucket: bucket, body: body), body)
    case "CopyObject", "CopyObject(self)", "CopyObject(self, REPLACE)":
      return (
        OSSWriteRequests.copy(
          from: source, bucket: bucket, key: key, headers: callerHeaders,
          encodeSlashes: encodeSlashes), nil
      )
    case "UploadPartCopy":
      var range: ClosedRange<Int64>?
      if let text = theirs["x-oss-copy-source-range"], text.hasPrefix("bytes=") {
        let bounds = text.dropFirst(6).split(separator: "-").compactMap { Int64($0) }
        if bounds.count == 2 { range = bounds[0]...bounds[1] }
      }
      let number =
        queryItems(of: vector.expected["url"]?.stringValue ?? "")
        .first { $0.name == "partNumber" }?.value.flatMap { Int($0) } ?? 1
      return (
        OSSWriteRequests.uploadPartCopy(
          from: source, range: range, bucket: bucket, key: key, uploadID: uploadID,
          partNumber: number, encodeSlashes: encodeSlashes), nil
      )
    default:
      Issue.record("no builder for \(operation)")
      return (OSSRequest(), nil)
    }
  }
}

func bytesFromHex(_ hex: String) -> [UInt8] {
  var bytes: [UInt8] = []
  var index = hex.startIndex
  while index < hex.endIndex {
    let next = hex.index(index, offsetBy: 2)
    bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
    index = next
  }
  return bytes
}
