import KodoTestSupport
import OSSCore
import StorageCore
import Testing

private func at(_ key: String, _ bucket: String = "photos") -> ObjectLocation {
  ObjectLocation(bucket: bucket, key: key)
}

private func client(_ transport: StubTransport) throws -> OSSClient {
  try OSSClient(
    credentials: Credentials(accessKey: "AK", secretKey: "SK"), transport: transport,
    options: OSSClient.Options(
      addressing: OSSAddressing(endpoint: try OSSEndpoint("https://oss-cn-hangzhou.aliyuncs.com")),
      region: "cn-hangzhou",
      retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), sleep: { _ in })))
}

private func answer(
  _ status: Int, _ body: String = "", headers: [(String, String)] = []
) -> StubTransport.Answer {
  .response(
    HTTPResponse(
      status: status, headers: HTTPHeaders([("x-oss-request-id", "R\(status)")] + headers),
      body: Array(body.utf8)))
}

private func errorBody(_ code: String) -> String {
  "<Error><Code>\(code)</Code><Message>m</Message><RequestId>R</RequestId></Error>"
}

private func head(size: Int, crc: UInt64, etag: String = "\"E\"") -> StubTransport.Answer {
  answer(
    200,
    headers: [
      ("Content-Length", String(size)), ("Last-Modified", "Tue, 14 Nov 2023 22:13:20 GMT"),
      ("ETag", etag), ("x-oss-hash-crc64ecma", String(crc)),
    ])
}

private func failure(_ body: () async throws -> Void) async -> StorageError? {
  do {
    try await body()
    return nil
  } catch let error as StorageError {
    return error
  } catch {
    Issue.record("unexpected error type: \(error)")
    return nil
  }
}

@Suite("OSS writes: requests, answers and errors")
struct OSSWriteClientTests {
  let data = Array("hello oss\n".utf8)

  @Test func aPutSendsContentMD5AndForbidsOverwriting() async throws {
    let crc = CRC64.checksum(data)
    let stub = StubTransport(answers: [
      answer(
        200,
        headers: [
          ("ETag", "\"4B4114A18BBF2A4C5446F9AFCCF9923F\""), ("x-oss-hash-crc64ecma", String(crc)),
        ])
    ])
    let result = try await client(stub).put(
      PutRequest(
        destination: at("中文/a b.txt"), body: data, contentType: "text/plain",
        metadata: [MetadataEntry("author", "kodo")],
        storageClass: StorageClass(name: "ia", serviceName: "IA")))
    #expect(result.etag == "4B4114A18BBF2A4C5446F9AFCCF9923F")
    #expect(result.crc64 == String(crc))
    let sent = try #require(stub.requests.first)
    #expect(sent.method == "PUT")
    #expect(sent.url == "https://photos.oss-cn-hangzhou.aliyuncs.com/%E4%B8%AD%E6%96%87/a%20b.txt")
    #expect(sent.headers["Content-MD5"] == "S0EUoYu/KkxURvmvzPmSPw==")
    #expect(sent.headers["x-oss-forbid-overwrite"] == "true")
    #expect(sent.headers["x-oss-meta-author"] == "kodo")
    #expect(sent.headers["x-oss-storage-class"] == "IA")
    #expect(sent.headers["Content-Type"] == "text/plain")
    #expect(sent.sentBytes == data)
  }

  @Test func aStoredCRCOtherThanTheDataSentFails() async throws {
    let stub = StubTransport(answers: [answer(200, headers: [("x-oss-hash-crc64ecma", "1")])])
    let error = await failure {
      _ = try await client(stub).put(PutRequest(destination: at("k"), body: data))
    }
    #expect(error?.kind == .protocolError)
  }

  @Test func anExistingObjectIsAConflictUnlessItHoldsTheSameBytes() async throws {
    let crc = CRC64.checksum(data)
    let same = StubTransport(answers: [
      answer(409, errorBody("FileAlreadyExists")), head(size: data.count, crc: crc),
    ])
    let result = try await client(same).put(PutRequest(destination: at("k"), body: data))
    #expect(result.crc64 == String(crc))
    #expect(same.requests.map(\.method) == ["PUT", "HEAD"])
    let other = StubTransport(answers: [
      answer(409, errorBody("FileAlreadyExists")), head(size: data.count, crc: crc ^ 1),
    ])
    let error = await failure {
      _ = try await client(other).put(PutRequest(destination: at("k"), body: data))
    }
    #expect(error?.kind == .exists)
    #expect(error?.serviceCode == "FileAlreadyExists")
  }

  @Test func keysOSSRefusesAreRefusedBeforeSending() async throws {
    let stub = StubTransport(answers: [answer(200)])
    for key in ["", "/lead", "\\lead", String(repeating: "k", count: 1024)] {
      let error = await failure {
        _ = try await client(stub).put(PutRequest(destination: at(key), body: []))
      }
      #expect(error?.kind == .invalidInput, "\(key)")
    }
    let error = await failure {
      _ = try await client(stub).put(
        PutRequest(destination: at("k"), body: [], metadata: [MetadataEntry("a", "x\r\ny: z")]))
    }
    #expect(error?.kind == .invalidInput)
    #expect(stub.requests.isEmpty)
  }

  @Test func aBatchDeleteReadsEveryKeysOutcome() async throws {
    let result = """
      <?xml version="1.0" encoding="UTF-8"?>
      <DeleteResult><EncodingType>url</EncodingType>\
      <Deleted><Key>a%20b</Key></Deleted>\
      <Error><Key>q%3C%26</Key><Code>AccessDenied</Code><Message>no</Message></Error>\
      </DeleteResult>
      """
    let stub = StubTransport(answers: [answer(200, result), answer(204)])
    let outcomes = try await client(stub).deleteBatch(
      bucket: "photos", keys: ["a b", "q<&", "ctrl\u{01}", "missing"])
    #expect(outcomes.map(\.key) == ["a b", "q<&", "ctrl\u{01}", "missing"])
    #expect(outcomes[0].error == nil)
    #expect(outcomes[1].error?.kind == .unauthorized)
    #expect(outcomes[1].error?.serviceCode == "AccessDenied")
    #expect(outcomes[2].error == nil)
    #expect(outcomes[3].error?.kind == .protocolError)
    let batch = try #require(stub.requests.first)
    #expect(batch.url == "https://photos.oss-cn-hangzhou.aliyuncs.com/?delete&encoding-type=url")
    let body = String(decoding: batch.sentBytes, as: UTF8.self)
    #expect(
      body
        == "<Delete><Quiet>false</Quiet><Object><Key>a b</Key></Object><Object><Key>q&lt;&amp;</Key></Object><Object><Key>missing</Key></Object></Delete>"
    )
    #expect(batch.headers["Content-MD5"] == OSSWriteRequests.contentMD5(batch.sentBytes))
    // The key XML cannot carry went alone.
    #expect(stub.requests.last?.method == "DELETE")
    #expect(stub.requests.last?.url.hasSuffix("/ctrl%01") == true)
  }

  /// Two keys that differ only in their Unicode normalization are two objects: an answer that
  /// names one deleted says nothing of the other, and a refusal of one is not the other's.
  @Test func equivalentKeysHaveOutcomesOfTheirOwn() async throws {
    let result = """
      <?xml version="1.0" encoding="UTF-8"?>
      <DeleteResult><EncodingType>url</EncodingType>\
      <Deleted><Key>caf%C3%A9</Key></Deleted>\
      <Error><Key>n%C3%A9</Key><Code>AccessDenied</Code><Message>no</Message></Error>\
      </DeleteResult>
      """
    let stub = StubTransport(answers: [answer(200, result)])
    let keys = ["caf\u{E9}", "cafe\u{301}", "ne\u{301}", "n\u{E9}"]
    let outcomes = try await client(stub).deleteBatch(bucket: "photos", keys: keys)
    #expect(outcomes.map { Array($0.key.utf8) } == keys.map { Array($0.utf8) })
    #expect(outcomes[0].error == nil)
    #expect(outcomes[1].error?.kind == .protocolError, "named neither deleted nor refused")
    #expect(outcomes[2].error?.kind == .protocolError, "the refusal was of the composed key")
    #expect(outcomes[3].error?.serviceCode == "AccessDenied")
  }

  @Test func aQuietAnswerWithoutBodyDeletedEverything() throws {
    let empty = try OSSAnswers.deleteResult([])
    #expect(empty.deleted.isEmpty && empty.errors.isEmpty)
    #expect(throws: StorageError.self) { try OSSAnswers.deleteResult(Array("<Other/>".utf8)) }
  }

  @Test func aMoveCopiesVerifiesAndOnlyThenDeletes() async throws {
    let crc: UInt64 = 42
    let stub = StubTransport(answers: [
      head(size: 5, crc: crc),
      answer(200, "<CopyObjectResult><ETag>\"E\"</ETag></CopyObjectResult>"),
      head(size: 5, crc: crc), head(size: 5, crc: crc), answer(204),
    ])
    try await client(stub).move(CopyRequest(source: at("a/b"), destination: at("c d", "other")))
    #expect(stub.requests.map(\.method) == ["HEAD", "PUT", "HEAD", "HEAD", "DELETE"])
    let copy = stub.requests[1]
    #expect(copy.headers["x-oss-copy-source"] == "/photos/a/b")
    #expect(copy.headers["x-oss-forbid-overwrite"] == "true")
    #expect(copy.headers["x-oss-metadata-directive"] == "COPY")
    #expect(copy.url == "https://other.oss-cn-hangzhou.aliyuncs.com/c%20d")
    #expect(stub.requests[4].url == "https://photos.oss-cn-hangzhou.aliyuncs.com/a/b")
  }

  @Test func aCopyThatCannotBeShownEqualKeepsTheSource() async throws {
    let stub = StubTransport(answers: [
      answer(200, "<CopyObjectResult><ETag>\"E\"</ETag></CopyObjectResult>"),
      head(size: 5, crc: 1), head(size: 5, crc: 2), answer(204),
    ])
    let error = await failure {
      try await client(stub).move(
        CopyRequest(source: at("a"), destination: at("b"), sourceSize: 5))
    }
    #expect(error?.kind == .protocolError)
    #expect(!stub.requests.contains { $0.method == "DELETE" })
  }

  @Test func metadataChangesCopyOntoItselfKeepingTheRest() async throws {
    let stub = StubTransport(answers: [
      answer(
        200,
        headers: [
          ("Content-Type", "text/plain"), ("Cache-Control", "no-cache"), ("ETag", "\"E1\""),
          ("x-oss-meta-Author", "kodo"), ("x-oss-meta-keep", "yes"),
          ("x-oss-storage-class", "IA"),
        ]),
      answer(200, "<CopyObjectResult><ETag>\"E2\"</ETag></CopyObjectResult>"),
    ])
    try await client(stub).changeMetadata(
      at("k"),
      MetadataChange(contentType: "text/markdown", metadata: [MetadataEntry("author", "me")]))
    let copy = try #require(stub.requests.last)
    #expect(copy.method == "PUT")
    #expect(copy.headers["x-oss-copy-source"] == "/photos/k")
    #expect(copy.headers["x-oss-metadata-directive"] == "REPLACE")
    #expect(copy.headers["x-oss-copy-source-if-match"] == "\"E1\"")
    #expect(copy.headers["Content-Type"] == "text/markdown")
    #expect(copy.headers["Cache-Control"] == "no-cache")
    #expect(copy.headers["x-oss-storage-class"] == "IA")
    #expect(copy.headers["x-oss-meta-author"] == "me")
    #expect(copy.headers["x-oss-meta-keep"] == "yes")
  }

  @Test func anObjectChangedSinceReadIsAFailedPrecondition() async throws {
    let stub = StubTransport(answers: [
      answer(200, headers: [("ETag", "\"E1\"")]), answer(412, errorBody("PreconditionFailed")),
    ])
    let error = await failure {
      try await client(stub).changeMetadata(at("k"), MetadataChange(contentType: "a/b"))
    }
    #expect(error?.kind == .preconditionFailed)
    #expect(stub.requests.count == 2)
  }

  @Test func storageClassAndRestore() async throws {
    let stub = StubTransport(answers: [
      answer(200, "<CopyObjectResult><ETag>\"E\"</ETag></CopyObjectResult>"), answer(202),
      answer(409, errorBody("RestoreAlreadyInProgress")),
    ])
    let oss = try client(stub)
    try await oss.changeStorageClass(
      at("k"), to: StorageClass(name: "cold_archive", serviceName: "x"))
    try await oss.restore(at("k"), days: 2)
    try await oss.restore(at("k"), days: 2)
    #expect(stub.requests[0].headers["x-oss-storage-class"] == "ColdArchive")
    #expect(stub.requests[1].url.hasSuffix("/k?restore"))
    #expect(
      String(decoding: stub.requests[1].sentBytes, as: UTF8.self)
        == "<RestoreRequest><Days>2</Days></RestoreRequest>")
    let error = await failure {
      try await oss.changeStorageClass(
        at("k"), to: StorageClass(name: "deep_archive", serviceName: "x"))
    }
    #expect(error?.kind == .invalidInput)
  }

  @Test func multipartAnswersAreRead() throws {
    #expect(
      try OSSAnswers.initiatedUploadID(
        Array(
          "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>U1</UploadId></InitiateMultipartUploadResult>"
            .utf8)) == "U1")
    let parts = try OSSAnswers.listParts(
      Array(
        """
        <ListPartsResult><IsTruncated>true</IsTruncated><NextPartNumberMarker>2</NextPartNumberMarker>\
        <Part><PartNumber>1</PartNumber><ETag>"A"</ETag><Size>6</Size><HashCrc64ecma>18446744073709551615</HashCrc64ecma></Part>\
        <Part><PartNumber>2</PartNumber><ETag>"B"</ETag><Size>7</Size></Part></ListPartsResult>
        """.utf8))
    #expect(parts.parts.map(\.etag) == ["A", "B"])
    #expect(parts.parts.first?.crc64 == UInt64.max)
    #expect(parts.nextPartNumberMarker == 2)
    #expect(throws: StorageError.self) {
      try OSSAnswers.listParts(
        Array("<ListPartsResult><IsTruncated>true</IsTruncated></ListPartsResult>".utf8))
    }
    let uploads = try OSSAnswers.listUploads(
      Array(
        """
        <ListMultipartUploadsResult><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>\
        <Upload><Key>a%2Fb%20c</Key><UploadId>U</UploadId><Initiated>2012-02-23T04:18:23.000Z</Initiated></Upload>\
        </ListMultipartUploadsResult>
        """.utf8))
    #expect(uploads.uploads.map(\.key) == ["a/b c"])
  }

  @Test func aCompletedUploadsCRCIsTheCombinationOfItsParts() async throws {
    let first = Array("1234".utf8)
    let second = Array("56789".utf8)
    let whole = CRC64.checksum(first + second)
    let body = "<CompleteMultipartUploadResult><ETag>\"M-2\"</ETag></CompleteMultipartUploadResult>"
    let crcs = [
      1: (crc: CRC64.checksum(first), size: Int64(4)),
      2: (crc: CRC64.checksum(second), size: Int64(5)),
    ]
    let parts = [
      OSSWriteRequests.Part(number: 2, etag: "B"), OSSWriteRequests.Part(number: 1, etag: "A"),
    ]
    let good = StubTransport(answers: [
      answer(200, body, headers: [("x-oss-hash-crc64ecma", String(whole))])
    ])
    let result = try await client(good).completeMultipartUpload(
      at("k"), uploadID: "U", parts: parts, crcs: crcs)
    #expect(result.etag == "M-2")
    let sent = try #require(good.requests.first)
    #expect(
      String(decoding: sent.sentBytes, as: UTF8.self)
        == "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"A\"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>\"B\"</ETag></Part></CompleteMultipartUpload>"
    )
    #expect(sent.headers["Content-MD5"] == OSSWriteRequests.contentMD5(sent.sentBytes))
    let bad = StubTransport(answers: [answer(200, body, headers: [("x-oss-hash-crc64ecma", "7")])])
    let error = await failure {
      _ = try await client(bad).completeMultipartUpload(
        at("k"), uploadID: "U", parts: parts, crcs: crcs)
    }
    #expect(error?.kind == .protocolError)
    // Complete is sent once.
    let busy = StubTransport(answers: [answer(503, errorBody("ServiceUnavailable"))])
    _ = await failure {
      _ = try await client(busy).completeMultipartUpload(at("k"), uploadID: "U", parts: parts)
    }
    #expect(busy.requests.count == 1)
  }
}

extension HTTPRequest {
  /// The body's bytes (every write request here has its body in memory).
  var sentBytes: [UInt8] { body.inMemoryBytes ?? [] }
}
