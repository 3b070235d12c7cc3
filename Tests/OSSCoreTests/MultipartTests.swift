import Foundation
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

@Suite("OSS multipart through the transfer engine")
struct OSSMultipartTests {
  @Test func partsCarryContentMD5AndTheObjectsCRCIsChecked() async throws {
    let content = (0..<(300 << 10) + 7).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let whole = CRC64.checksum(content)
    let stub = StubTransport { request, _ in
      let bytes = request.body.inMemoryBytes ?? []
      var headers: HTTPHeaders = ["x-oss-request-id": "R"]
      var body = ""
      switch request.method {
      case "POST" where request.url.hasSuffix("?uploads"):
        body =
          "<InitiateMultipartUploadResult><UploadId>U1</UploadId></InitiateMultipartUploadResult>"
      case "PUT":
        headers.add("ETag", "\"" + Hex.encode(Digest.md5(bytes)).uppercased() + "\"")
        headers.add("x-oss-hash-crc64ecma", String(CRC64.checksum(bytes)))
      default:
        headers.add("x-oss-hash-crc64ecma", String(whole))
        body = "<CompleteMultipartUploadResult><ETag>\"M-3\"</ETag></CompleteMultipartUploadResult>"
      }
      return .response(HTTPResponse(status: 200, headers: headers, body: Array(body.utf8)))
    }
    let oss = try OSSClient(
      credentials: Credentials(accessKey: "AK", secretKey: "SK"), transport: stub,
      options: OSSClient.Options(
        addressing: OSSAddressing(
          endpoint: try OSSEndpoint("https://oss-cn-hangzhou.aliyuncs.com")),
        region: "cn-hangzhou", retry: RetryPolicy(maxAttempts: 1)))
    let uploader = try OSSMultipartUpload(
      client: oss, destination: ObjectLocation(bucket: "photos", key: "big.bin"),
      contentType: "video/mp4")
    let outcome = try await withFile(content) { descriptor in
      try await MultipartUpload(options: .init(partSize: 100 << 10, parallel: 3)).run(
        .init(
          descriptor: descriptor,
          identity: SourceIdentity(size: Int64(content.count), modifiedNanoseconds: 1)),
        to: uploader)
    }
    #expect(outcome.object.etag == "M-3")
    let parts = stub.requests.filter { $0.method == "PUT" }
    #expect(parts.count == 4)
    for part in parts {
      let bytes = part.body.inMemoryBytes ?? []
      #expect(part.headers["Content-MD5"] == Data(Digest.md5(bytes)).base64EncodedString())
    }
    let initiate = try #require(stub.requests.first)
    #expect(initiate.headers["x-oss-forbid-overwrite"] == "true")
    #expect(initiate.headers["Content-Type"] == "video/mp4")
    let complete = try #require(stub.requests.last)
    let body = String(decoding: complete.body.inMemoryBytes ?? [], as: UTF8.self)
    #expect(body.components(separatedBy: "<PartNumber>").count == 5)
    #expect(body.hasPrefix("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"))
    #expect(complete.headers["x-oss-forbid-overwrite"] == "true")
    #expect(uploader.isForgotten(StorageError(.notFound, "gone", serviceCode: "NoSuchUpload")))
  }

  func withFile<T>(_ content: [UInt8], _ body: (Int32) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("oss-multipart-\(UUID().uuidString)").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data(content)))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let descriptor = open(path, O_RDONLY)
    #expect(descriptor >= 0)
    defer { close(descriptor) }
    return try await body(descriptor)
  }
}
