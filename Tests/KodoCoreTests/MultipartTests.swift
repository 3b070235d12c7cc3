import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Synchronization
import Testing

/// Runs `body` with a read-only descriptor of a temporary file holding `content`.
func withTemporaryFile<T>(_ content: [UInt8], _ body: (Int32) async throws -> T) async throws -> T {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("kodo-multipart-\(UUID().uuidString)").path
  #expect(FileManager.default.createFile(atPath: path, contents: Data(content)))
  defer { try? FileManager.default.removeItem(atPath: path) }
  let descriptor = open(path, O_RDONLY)
  #expect(descriptor >= 0)
  defer { close(descriptor) }
  return try await body(descriptor)
}

@Suite("Kodo resumable v2 through the transfer engine")
struct KodoMultipartTests {
  /// A resumable v2 service: an upload id, each part's etag and hex MD5, and `hash` for the
  /// completed object.
  static func resumableService(hash: String) -> StubTransport {
    StubTransport { request, _ in
      let bytes = request.body.inMemoryBytes ?? []
      switch request.method {
      case "POST" where request.url.hasSuffix("/uploads"):
        return .response(.json(200, #"{"uploadId":"U1","expireAt":1800000000}"#))
      case "PUT":
        let md5 = Hex.encode(Digest.md5(bytes))
        return .response(.json(200, #"{"etag":"e-\#(md5.prefix(6))","md5":"\#(md5)"}"#))
      default:
        return .response(.json(200, #"{"hash":"\#(hash)","key":"big.bin"}"#))
      }
    }
  }

  @Test func partsCarryHexMD5AndCompleteListsThemInOrder() async throws {
    let content = (0..<(2 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    let stub = Self.resumableService(hash: "H")
    let kodo = client(stub, hosts: ServiceHosts(rs: "https://rs", up: "https://up-z0.qiniup.com"))
    let uploader = try KodoMultipartUpload(
      client: kodo, destination: ObjectLocation(bucket: "my-bucket", key: "big.bin"),
      contentType: "video/mp4", metadata: [MetadataEntry("a", "1")], fileName: "clip.mp4")
    let outcome = try await withTemporaryFile(content) { descriptor in
      try await MultipartUpload(options: .init(partSize: 1 << 20, parallel: 2)).run(
        .init(
          descriptor: descriptor,
          identity: SourceIdentity(size: Int64(content.count), modifiedNanoseconds: 1)),
        to: uploader)
    }
    #expect(outcome.object.etag == "H")
    #expect(outcome.object.size == Int64(content.count))
    let parts = stub.requests.filter { $0.method == "PUT" }
    #expect(parts.count == 3)
    for part in parts {
      let bytes = part.body.inMemoryBytes ?? []
      #expect(part.headers["Content-MD5"] == Hex.encode(Digest.md5(bytes)))
      #expect(part.headers["Authorization"]?.hasPrefix("UpToken MY_ACCESS_KEY:") == true)
      #expect(
        part.url.hasPrefix(
          "https://up-z0.qiniup.com/buckets/my-bucket/objects/YmlnLmJpbg==/uploads/U1/"))
    }
    let complete = try #require(stub.requests.last)
    #expect(complete.headers["Content-Type"] == "application/json")
    let body = String(decoding: complete.body.inMemoryBytes ?? [], as: UTF8.self)
    #expect(body.hasPrefix(#"{"parts": [{"etag": "e-"#))
    #expect(body.contains(#""partNumber": 1}, {"#) && body.contains(#""partNumber": 3}]"#))
    #expect(
      body.hasSuffix(
        #""fname": "clip.mp4", "mimeType": "video/mp4", "customVars": null, "metadata": {"x-qn-meta-a": "1"}}"#
      ))
    let token = try #require(complete.headers["Authorization"]?.dropFirst("UpToken ".count))
    #expect(UploadToken.decode(String(token))?.policy["insertOnly"] == .number("1"))
  }

  @Test func receiptsCarryEachPartsSHA1SoTheHashIsCheckedWithoutReadingAgain() async throws {
    let content = (0..<(9 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
    let blockSize = 4 << 20
    let blocks = stride(from: 0, to: content.count, by: blockSize).map {
      Digest.sha1(Array(content[$0..<min(content.count, $0 + blockSize)]))
    }
    let hash = QETag.hash(blockDigests: blocks)
    let stub = Self.resumableService(hash: hash)
    let kodo = client(stub, hosts: ServiceHosts(rs: "https://rs", up: "https://up"))
    let uploader = try KodoMultipartUpload(
      client: kodo, destination: ObjectLocation(bucket: "my-bucket", key: "big.bin"))
    let saved = Mutex<UploadCheckpoint?>(nil)
    let outcome = try await withTemporaryFile(content) { descriptor in
      try await MultipartUpload(options: .init(partSize: Int64(blockSize), parallel: 2)).run(
        .init(
          descriptor: descriptor,
          identity: SourceIdentity(size: Int64(content.count), modifiedNanoseconds: 1)),
        to: uploader, checkpoints: { checkpoint in saved.withLock { $0 = checkpoint } })
    }
    let parts = try #require(saved.withLock { $0 }).parts
    #expect(parts.map(\.contentSHA1) == blocks.map { Hex.encode($0) })
    var reads = 0
    func verified(_ parts: [PartReceipt]) throws(StorageError) -> WriteResult {
      try kodo.verifiedResult(
        of: outcome.object, parts: parts, partSize: Int64(blockSize), size: Int64(content.count),
        read: { range in
          reads += 1
          return Array(content[Int(range.lowerBound)..<Int(range.upperBound)])
        })
    }
    #expect(try verified(parts).hash == hash)
    #expect(reads == 0)
    // A receipt without its SHA-1 (a checkpoint's from before it was kept) is read again.
    var older = parts
    older[1].contentSHA1 = nil
    #expect(try verified(older).hash == hash)
    #expect(reads == 1)
    // A SHA-1 that is not the part's makes the object's hash differ from the file's.
    var wrong = parts
    wrong[2].contentSHA1 = Hex.encode([UInt8](repeating: 0, count: 20))
    #expect(throws: StorageError.self) { try verified(wrong) }
  }

  @Test func aPartWhoseAnsweredMD5DiffersFails() async throws {
    let stub = StubTransport { request, _ in
      request.method == "PUT"
        ? .response(.json(200, #"{"etag":"e","md5":"00000000000000000000000000000000"}"#))
        : .response(.json(200, #"{"uploadId":"U1"}"#))
    }
    let uploader = try KodoMultipartUpload(
      client: client(stub, hosts: ServiceHosts(up: "https://up")),
      destination: ObjectLocation(bucket: "my-bucket", key: "k"))
    let session = try await uploader.initiate()
    let error = await kodoError {
      var digest = uploader.makePartDigest()
      [UInt8](repeating: 1, count: 10).withUnsafeBytes { digest.update($0) }
      _ = try await uploader.uploadPart(
        session, number: 1, body: .bytes([UInt8](repeating: 1, count: 10)), digest: digest)
    }
    #expect(error?.kind == .protocolError)
    #expect(uploader.isForgotten(StorageError(.notFound, "gone", status: 612)))
  }

  @Test func listedPartsAreReadPageByPage() async throws {
    let stub = StubTransport { request, index in
      index == 0
        ? .response(
          .json(
            200,
            #"{"uploadId":"U","partNumberMarker":2,"parts":[{"size":5,"etag":"b","partNumber":2},{"size":5,"etag":"a","partNumber":1}]}"#
          ))
        : .response(
          .json(
            200,
            #"{"uploadId":"U","partNumberMarker":0,"parts":[{"size":3,"etag":"c","partNumber":3}]}"#
          ))
    }
    let uploader = try KodoMultipartUpload(
      client: client(stub, hosts: ServiceHosts(up: "https://up")),
      destination: ObjectLocation(bucket: "my-bucket", key: "k"))
    let parts = try await uploader.listParts(UploadSession(uploadID: "U"))
    #expect(parts.map(\.etag) == ["a", "b", "c"])
    #expect(
      stub.requests.map(\.url).last?.hasSuffix("?max-parts=1000&part-number-marker=2") == true)
  }
}
