import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

/// One Kodo vector from `write-vectors.json`, named by its id in test output.
struct WriteVector: Sendable, CustomTestStringConvertible {
  let id: String
  let category: String
  let json: JSONValue

  var testDescription: String { id }
  var inputs: JSONValue { json["inputs"] ?? .null }
  var expected: JSONValue { json["expected"] ?? .null }
  var intermediate: JSONValue? { json["intermediate"] }
  var sdkFunction: String { json["sdk_function"]?.stringValue ?? "" }
  var isRequired: Bool { json["conformance"]?.stringValue?.hasPrefix("required") == true }

  static let all: [WriteVector] = {
    guard let text = try? Fixtures.text("write-vectors.json"),
      let root = try? JSONValue.parse(text),
      let vectors = root["vectors"]?.arrayValue
    else { return [] }
    return vectors.compactMap { value in
      guard let id = value["id"]?.stringValue, let category = value["category"]?.stringValue
      else { return nil }
      return WriteVector(id: id, category: category, json: value)
    }
  }()

  static func required(_ category: String) -> [WriteVector] {
    all.filter { $0.isRequired && $0.category == category }
  }

  /// The vector's data, made by the generator's Python expression.
  var data: [UInt8] {
    get throws {
      if let hex = inputs["data_hex"]?.stringValue { return writeBytes(hex: hex) }
      let expression = try #require(inputs["data"]?.stringValue)
      let size: Int
      if let given = inputs["size"]?.int64Value {
        size = Int(given)
      } else {
        let digits = try #require(
          expression.split(separator: "range(").last?.prefix { $0.isNumber })
        size = try #require(Int(digits))
      }
      switch expression {
      case let text where text.hasPrefix("bytes((i*7)&0xff"):
        return (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      case let text where text.hasPrefix("bytes((i*13 + (i >> 20)) & 0xff"):
        return (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ ($0 >> 20)) }
      case let text where text.hasPrefix("bytes((i*31)&0xff"):
        return (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
      default:
        Issue.record("no generator for \(expression)")
        return []
      }
    }
  }
}

func writeBytes(hex: String) -> [UInt8] {
  var output: [UInt8] = []
  var index = hex.startIndex
  while index < hex.endIndex {
    let next = hex.index(index, offsetBy: 2)
    output.append(UInt8(hex[index..<next], radix: 16) ?? 0)
    index = next
  }
  return output
}

/// The pairs of a JSON object, or `nil` for `null`.
func pairs(_ value: JSONValue?) -> [(name: String, value: String)]? {
  value?.objectMembers.map { $0.map { (name: $0.name, value: $0.value.stringValue ?? "") } }
}

let upBase = "https://up-z0.qiniup.com"

@Suite("Official write vectors: Kodo (conformance: required)")
struct KodoWriteVectorTests {
  @Test func theFixtureIsLoadedAndMatchesShared() throws {
    #expect(WriteVector.all.count == 166)
    #expect(WriteVector.all.filter(\.isRequired).count == 152)
    let shared = Fixtures.repositoryRoot.deletingLastPathComponent()
      .appendingPathComponent("shared/vectors/write-vectors.json")
    if let sharedText = try? String(contentsOf: shared, encoding: .utf8) {
      #expect(
        try Fixtures.text("write-vectors.json") == sharedText,
        "Tests/Fixtures/write-vectors.json differs from ../shared/vectors; copy it again")
    }
    let checked: Set<String> = [
      "kodo_upload_token", "kodo_encoded_entry", "kodo_rs_request", "kodo_batch_request",
      "kodo_form_upload", "kodo_resumable_v1", "kodo_resumable_v2", "kodo_hash",
      "kodo_host_selection",
    ]
    let kodo = Set(
      WriteVector.all.filter { $0.isRequired && $0.category.hasPrefix("kodo_") }.map(\.category))
    #expect(kodo.subtracting(checked).isEmpty, "required categories no test checks")
  }

  @Test(
    arguments: WriteVector.required("kodo_upload_token").filter { $0.id != "kodo-uptoken-decode" })
  func uploadToken(_ vector: WriteVector) throws {
    let bucket = try #require(vector.inputs["bucket"]?.stringValue)
    let scope = vector.inputs["key"]?.stringValue.map { bucket + ":" + $0 } ?? bucket
    let deadline =
      try #require(vector.inputs["now_unix"]?.int64Value)
      + (try #require(vector.inputs["expires"]?.int64Value))
    let policy = vector.inputs["policy"].flatMap { $0.isNull ? nil : $0 }
    let json = try UploadToken.policyJSON(scope: scope, deadline: deadline, extra: policy)
    #expect(json == vector.intermediate?["put_policy_json"]?.stringValue)
    #expect(
      UploadToken.token(policyJSON: json, credentials: vectorCredentials)
        == vector.expected["upload_token"]?.stringValue)
  }

  @Test func uploadTokenDecode() throws {
    let vector = try #require(WriteVector.all.first { $0.id == "kodo-uptoken-decode" })
    let token = try #require(vector.inputs["upload_token"]?.stringValue)
    let decoded = try #require(UploadToken.decode(token))
    #expect(decoded.accessKey == vector.expected["access_key"]?.stringValue)
    #expect(decoded.bucket == vector.expected["bucket"]?.stringValue)
    #expect(decoded.policy == vector.expected["policy"])
    #expect(UploadToken.decode("a:b") == nil)
    #expect(UploadToken.decode("a:b:!!") == nil)
  }

  @Test(arguments: WriteVector.required("kodo_encoded_entry"))
  func encodedEntry(_ vector: WriteVector) throws {
    let bucket = try #require(vector.inputs["bucket"]?.stringValue)
    let key = vector.inputs["key"]?.stringValue
    let entry = ObjectLocation(bucket: bucket, key: key ?? "")
    let expected = vector.expected["encoded_entry"]?.stringValue
    if key != nil {
      // The entry as every operation writes it.
      #expect(KodoOperation.stat(entry).path == "/stat/" + (expected ?? ""))
    } else {
      #expect(URLSafeBase64.encode(bucket) == expected)
    }
  }

  @Test(arguments: WriteVector.required("kodo_rs_request"))
  func rsRequest(_ vector: WriteVector) async throws {
    let operation = try rsOperation(vector)
    let url = try #require(vector.expected["url"]?.stringValue)
    #expect("https://rs-z0.qiniuapi.com" + operation.path == url)
    var sent: HTTPRequest
    if case .stat = operation {
      // Python's stat is a POST; kodo's a GET (both signed the same way): sign it as Python.
      sent = HTTPRequest(method: "POST", url: url)
      KodoClient.sign(&sent, at: vectorClock.now(), credentials: vectorCredentials)
    } else {
      let stub = StubTransport(answers: [.response(.json(200, "{}"))])
      try await client(stub).perform(operation)
      sent = try #require(stub.requests.first)
    }
    try expectSigned(sent, like: vector)
  }

  @Test(arguments: WriteVector.required("kodo_batch_request"))
  func batchRequest(_ vector: WriteVector) async throws {
    let expectedOps = vector.expected["ops"]?.arrayValue?.compactMap(\.stringValue) ?? []
    var sent: HTTPRequest
    if vector.id == "kodo-batch-go-style-leading-slash" {
      // Go's spelling, with a leading `/`: the same encoder and signature.
      sent = HTTPRequest(
        method: "POST", url: "https://rs-z0.qiniuapi.com/batch",
        body: KodoBatch.formBody(expectedOps))
      KodoClient.sign(&sent, at: vectorClock.now(), credentials: vectorCredentials)
    } else {
      let operations = try batchOperations(vector)
      #expect(operations.map { String($0.path.dropFirst()) } == expectedOps)
      let answer =
        "["
        + Array(repeating: #"{"code":200}"#, count: operations.count)
        .joined(separator: ",") + "]"
      let stub = StubTransport(answers: [.response(.json(200, answer))])
      let results = try await client(stub).batch(operations)
      #expect(results == Array(repeating: KodoBatch.Result(code: 200), count: operations.count))
      sent = try #require(stub.requests.first)
    }
    #expect(sent.url == vector.expected["url"]?.stringValue)
    #expect(String(decoding: sent.sentBytes, as: UTF8.self) == vector.expected["body"]?.stringValue)
    try expectSigned(sent, like: vector)
  }

  @Test(arguments: WriteVector.required("kodo_form_upload"))
  func formUpload(_ vector: WriteVector) throws {
    let inputs = vector.inputs
    let data = try vector.data
    let crc = CRC32.checksum(data)
    #expect(Int64(crc) == vector.expected["crc32"]?.int64Value)
    let boundary = try #require(inputs["multipart_boundary"]?.stringValue)
    let body = KodoForm.body(
      token: try #require(inputs["upload_token"]?.stringValue), key: inputs["key"]?.stringValue,
      crc32: crc, fields: (pairs(inputs["custom_vars"]) ?? []) + (pairs(inputs["metadata"]) ?? []),
      fileName: try #require(inputs["file_name"]?.stringValue),
      mimeType: inputs["mime_type"]?.stringValue, data: data, boundary: boundary)
    #expect(String(decoding: body, as: UTF8.self) == vector.expected["body"]?.stringValue)
    #expect(Int64(body.count) == vector.expected["body_len"]?.int64Value)
    #expect(
      KodoForm.contentType(boundary: boundary)
        == vector.expected["headers"]?["Content-Type"]?.stringValue)
  }

  @Test(arguments: WriteVector.required("kodo_resumable_v1"))
  func resumableV1(_ vector: WriteVector) throws {
    let url = try #require(vector.expected["url"]?.stringValue)
    if let index = vector.inputs["block_index"]?.int64Value {
      let data = try vector.data
      let start = Int(index) * KodoResumableV1.blockSize
      let block = Array(data[start..<min(data.count, start + KodoResumableV1.blockSize)])
      #expect(upBase + KodoResumableV1.makeBlockPath(blockSize: block.count) == url)
      #expect(Int64(block.count) == vector.expected["block_size"]?.int64Value)
      #expect(Int64(CRC32.checksum(block)) == vector.expected["block_crc32"]?.int64Value)
      #expect(Hex.encode(Digest.sha1(block)) == vector.expected["body_sha1"]?.stringValue)
      return
    }
    let inputs = vector.inputs
    let path = KodoResumableV1.makeFilePath(
      size: try #require(inputs["size"]?.int64Value), key: inputs["key"]?.stringValue,
      mimeType: inputs["mime_type"]?.stringValue, fileName: inputs["file_name"]?.stringValue,
      fields: (pairs(inputs["custom_vars"]) ?? []) + (pairs(inputs["metadata"]) ?? []))
    #expect(upBase + path == url)
    if let body = vector.expected["body"]?.stringValue {
      // The generator's contexts are `ctx-block-<CRC-32 of the block>` of the v1 data.
      let blocks = try #require(WriteVector.all.first { $0.id == "kodo-v1-mkblk-1" })
      let data = try blocks.data
      let contexts = stride(from: 0, to: data.count, by: KodoResumableV1.blockSize).map {
        "ctx-block-"
          + String(
            CRC32.checksum(data[$0..<min(data.count, $0 + KodoResumableV1.blockSize)]))
      }
      #expect(
        String(decoding: KodoResumableV1.makeFileBody(contexts: contexts), as: UTF8.self) == body)
    }
  }

  @Test(arguments: WriteVector.required("kodo_resumable_v2"))
  func resumableV2(_ vector: WriteVector) throws {
    let inputs = vector.inputs
    let url = try #require(vector.expected["url"]?.stringValue)
    let bucket = inputs["bucket"]?.stringValue ?? "my-bucket"
    let key = inputs["key"]?.stringValue
    let uploadID = inputs["upload_id"]?.stringValue ?? "vectorUploadId-1"
    if vector.id.hasPrefix("kodo-v2-url-") {
      let path: String
      if let part = inputs["part_no"]?.int64Value {
        path = KodoResumableV2.partPath(
          bucket: bucket, key: key, uploadID: uploadID, partNumber: Int(part))
      } else if inputs["upload_id"]?.stringValue != nil {
        path = KodoResumableV2.uploadPath(bucket: bucket, key: key, uploadID: uploadID)
      } else {
        path = KodoResumableV2.initiatePath(bucket: bucket, key: key)
      }
      #expect(upBase + path == url)
      return
    }
    let token = try #require(inputs["upload_token"]?.stringValue)
    #expect(vector.expected["headers"]?["Authorization"]?.stringValue == "UpToken " + token)
    let data = try vector.data
    let partSize = Int(try #require(inputs["part_size"]?.int64Value))
    let parts = stride(from: 0, to: data.count, by: partSize).map {
      Array(data[$0..<min(data.count, $0 + partSize)])
    }
    if vector.id.hasSuffix("-init") {
      #expect(upBase + KodoResumableV2.initiatePath(bucket: bucket, key: key) == url)
    } else if let number = vector.id.split(separator: "-part").last.flatMap({ Int($0) }) {
      let part = parts[number - 1]
      #expect(
        upBase
          + KodoResumableV2.partPath(
            bucket: bucket, key: key, uploadID: uploadID, partNumber: number) == url)
      let headers = KodoResumableV2.partHeaders(md5: Digest.md5(part))
      #expect(headers["Content-MD5"] == vector.expected["headers"]?["Content-MD5"]?.stringValue)
      #expect(headers["Content-Type"] == vector.expected["headers"]?["Content-Type"]?.stringValue)
      #expect(Int64(part.count) == vector.expected["part_size"]?.int64Value)
    } else {
      #expect(vector.id.hasSuffix("-complete"))
      #expect(
        upBase + KodoResumableV2.uploadPath(bucket: bucket, key: key, uploadID: uploadID) == url)
      // The generator's stub answered each part with `etag-<first 8 hex of its MD5>`; the
      // upload named `clip.mp4`, `video/mp4`, `x:b=2` and `x-qn-meta-a=1`. Given out of order:
      // complete sorts.
      let receipts = parts.enumerated().map { index, part in
        KodoResumableV2.Part(
          number: index + 1, etag: "etag-" + Hex.encode(Digest.md5(part)).prefix(8))
      }
      let body = KodoResumableV2.completeBody(
        parts: receipts.reversed(), fileName: "clip.mp4", mimeType: "video/mp4",
        customVars: [(name: "x:b", value: "2")], metadata: [(name: "x-qn-meta-a", value: "1")])
      #expect(String(decoding: body, as: UTF8.self) == vector.expected["body"]?.stringValue)
    }
  }

  @Test(arguments: WriteVector.required("kodo_hash"))
  func hash(_ vector: WriteVector) throws {
    let data = try vector.data
    #expect(QETag.hash(of: data) == vector.expected["hash"]?.stringValue)
    #expect(Int64(CRC32.checksum(data)) == vector.expected["crc32"]?.int64Value)
  }

  @Test(arguments: WriteVector.required("kodo_host_selection"))
  func hostSelection(_ vector: WriteVector) async throws {
    let entry = try #require(vector.inputs["v4_query_host_entry"])
    let answer = JSONValue.object([JSONValue.Member("hosts", .array([entry]))]).asciiCompactText
    let stub = StubTransport(answers: [.response(.json(200, answer))])
    let kodo = client(stub, hosts: ServiceHosts(uc: "https://uc.qiniuapi.com"))
    func strings(_ name: String) -> [String] {
      vector.expected[name]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
    #expect(try await kodo.bases(for: .up, bucket: "my-bucket") == strings("up"))
    #expect(try await kodo.bases(for: .upAccelerated, bucket: "my-bucket") == strings("up_acc"))
    #expect(try await kodo.bases(for: .rs, bucket: "my-bucket") == strings("rs"))
    #expect(stub.requests.count == 1)
  }

  // MARK: Helpers

  /// The operation an rs vector's SDK call made.
  func rsOperation(_ vector: WriteVector) throws -> KodoOperation {
    let inputs = vector.inputs
    let bucket = inputs["bucket"]?.stringValue ?? "my-bucket"
    func at(_ name: String) throws -> ObjectLocation {
      ObjectLocation(bucket: bucket, key: try #require(inputs[name]?.stringValue))
    }
    let function = vector.sdkFunction
    let force = function.contains("force='true'")
    func int(_ name: String) throws -> Int { Int(try #require(inputs[name]?.int64Value)) }
    switch vector.id.split(separator: "-")[2] {
    case "delete": return .delete(try at("key"))
    case "move", "rename", "copy":
      let destination = ObjectLocation(
        bucket: inputs["dst_bucket"]?.stringValue ?? bucket,
        key: try #require(inputs["dst"]?.stringValue))
      return vector.id.contains("copy")
        ? .copy(try at("src"), to: destination, force: force)
        : .move(try at("src"), to: destination, force: force)
    case "chgm":
      return .changeMetadata(try at("key"), mimeType: inputs["mime"]?.stringValue, metadata: [])
    case "chtype": return .changeType(try at("key"), type: try int("type"))
    case "chstatus": return .changeStatus(try at("key"), status: try int("status"))
    case "deleteafterdays": return .deleteAfterDays(try at("key"), days: try int("days"))
    case "lifecycle":
      // The arguments are in the SDK call's text: to_line_after_days=10,
      // delete_after_days=30, cond={"hash": "FhashVector"}.
      #expect(function.contains("to_line_after_days=10, delete_after_days=30"))
      return .lifecycle(
        try at("key"), KodoLifecycle(toIA: 10, delete: 30),
        condition: KodoCondition(hash: "FhashVector"))
    case "restorear": return .restoreArchive(try at("key"), days: try int("days"))
    case "stat": return .stat(try at("key"))
    default:
      Issue.record("no operation for \(vector.id)")
      return .stat(try at("key"))
    }
  }

  /// The operations a batch vector's SDK call built.
  func batchOperations(_ vector: WriteVector) throws -> [KodoOperation] {
    let inputs = vector.inputs
    let bucket = "my-bucket"
    func at(_ key: String, _ inBucket: String = bucket) -> ObjectLocation {
      ObjectLocation(bucket: inBucket, key: key)
    }
    let keys = inputs["keys"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let pairs = pairs(inputs["pairs"]) ?? []
    let destinationBucket = inputs["dst_bucket"]?.stringValue ?? bucket
    let force = vector.sdkFunction.contains("force='true'")
    switch vector.id {
    case "kodo-batch-delete-5": return keys.map { .delete(at($0)) }
    case "kodo-batch-stat-2": return keys.map { .stat(at($0)) }
    case "kodo-batch-move-force-true", "kodo-batch-rename":
      return pairs.map { .move(at($0.name), to: at($0.value, destinationBucket), force: force) }
    case "kodo-batch-copy-noforce":
      return pairs.map { .copy(at($0.name), to: at($0.value, destinationBucket), force: force) }
    case "kodo-batch-mixed":
      // Hand-built in the generator: stat, chtype 1, deleteAfterDays 30, chgm image/png of a.txt.
      return [
        .stat(at("a.txt")), .changeType(at("a.txt"), type: 1),
        .deleteAfterDays(at("a.txt"), days: 30),
        .changeMetadata(at("a.txt"), mimeType: "image/png", metadata: []),
      ]
    default:
      Issue.record("no operations for \(vector.id)")
      return []
    }
  }

  /// `request`'s signatures, in both schemes, against the vector's.
  func expectSigned(_ request: HTTPRequest, like vector: WriteVector) throws {
    let expected = vector.expected
    #expect(request.method == (expected["method"]?.stringValue ?? "POST"))
    for name in ["Authorization", "Content-Type", "X-Qiniu-Date"] {
      #expect(request.headers[name] == expected["headers"]?[name]?.stringValue, "\(name)")
    }
    if let length = expected["headers"]?["Content-Length"]?.stringValue {
      #expect(String(request.sentBytes.count) == length)
    }
    let signable = SignableRequest(
      method: request.method, url: request.url, contentType: request.headers["Content-Type"],
      headers: request.headers.fields.map { ($0.name, $0.value) }, body: request.sentBytes)
    if let text = expected["signing_string_qiniu"]?.stringValue {
      #expect(
        String(decoding: RequestSigning.qiniuSigningString(for: signable), as: UTF8.self) == text)
    }
    if let text = expected["signing_string_qbox"]?.stringValue {
      #expect(
        String(decoding: RequestSigning.qboxSigningString(for: signable), as: UTF8.self) == text)
    }
    #expect(
      RequestSigning.qboxAuthorization(for: signable, credentials: vectorCredentials)
        == expected["authorization_qbox_equivalent"]?.stringValue)
  }
}
