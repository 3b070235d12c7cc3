import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

private let hosts = ServiceHosts(
  uc: "https://uc.qiniuapi.com", rs: "https://rs-z0.qiniuapi.com",
  rsf: "https://rsf-z0.qiniuapi.com", up: "https://up-z0.qiniup.com")

private func at(_ key: String, _ bucket: String = "my-bucket") -> ObjectLocation {
  ObjectLocation(bucket: bucket, key: key)
}

/// The upload token in a form body's `token` field, decoded.
private func formToken(_ body: String) -> UploadToken.Decoded? {
  let lines = body.split(separator: "\r\n", omittingEmptySubsequences: false)
  guard let field = lines.firstIndex(where: { $0.hasSuffix("name=\"token\"") }),
    field + 2 < lines.count
  else { return nil }
  return UploadToken.decode(String(lines[field + 2]))
}

@Suite("Kodo writes: answers, errors and retries")
struct KodoWriteClientTests {
  @Test func aBatchAnswered298GivesEachOperationItsOutcome() async throws {
    let answer =
      #"[{"code":200},{"code":612,"data":{"error":"no such file or directory"}},{"code":614,"data":{"error":"file exists"}}]"#
    let stub = StubTransport(answers: [.response(.json(298, answer))])
    let outcomes = try await client(stub, hosts: hosts).deleteBatch(
      bucket: "my-bucket", keys: ["a", "b", "c"])
    #expect(outcomes.map(\.key) == ["a", "b", "c"])
    #expect(outcomes[0].error == nil)
    #expect(outcomes[1].error?.kind == .notFound)
    #expect(outcomes[1].error?.serverMessage == "no such file or directory")
    #expect(outcomes[1].error?.message.contains("\"b\"") == true)
    #expect(outcomes[2].error?.kind == .exists)
    #expect(stub.requests.count == 1)
  }

  @Test func aBatchAnswerOfTheWrongLengthIsAProtocolError() async {
    let stub = StubTransport(answers: [.response(.json(200, #"[{"code":200}]"#))])
    let error = await kodoError {
      _ = try await client(stub, hosts: hosts).deleteBatch(bucket: "my-bucket", keys: ["a", "b"])
    }
    #expect(error?.kind == .protocolError)
  }

  @Test func batchesHoldAtMost1000Operations() async throws {
    let stub = StubTransport { request, _ in
      let count = String(decoding: request.sentBytes, as: UTF8.self)
        .split(separator: "&").count
      let answer =
        "[" + Array(repeating: #"{"code":200}"#, count: count).joined(separator: ",") + "]"
      return .response(.json(200, answer))
    }
    let keys = (0..<2500).map { "k\($0)" }
    let outcomes = try await client(stub, hosts: hosts).deleteBatch(bucket: "my-bucket", keys: keys)
    #expect(outcomes.count == 2500)
    #expect(outcomes.allSatisfy { $0.error == nil })
    #expect(
      stub.requests.map {
        String(decoding: $0.sentBytes, as: UTF8.self).split(separator: "&").count
      }
        == [1000, 1000, 500])
  }

  @Test func anExistingDestinationIsAConflict() async {
    let stub = StubTransport(answers: [.response(.json(614, #"{"error":"file exists"}"#))])
    let error = await kodoError {
      try await client(stub, hosts: hosts).copy(CopyRequest(source: at("a"), destination: at("b")))
    }
    #expect(error?.kind == .exists)
    #expect(error?.status == 614)
    #expect(stub.requests.first?.url.hasSuffix("/force/false") == true)
  }

  @Test func movesAndBatchesAreSentOnce() async {
    let stub = StubTransport(answers: [.response(.json(599, #"{"error":"server busy"}"#))])
    let kodo = client(stub, hosts: hosts)
    let moveError = await kodoError {
      try await kodo.move(CopyRequest(source: at("a"), destination: at("b"), overwrite: true))
    }
    #expect(moveError?.kind == .temporary)
    #expect(stub.requests.count == 1)
    #expect(stub.requests.first?.url.contains("/move/") == true)
    _ = await kodoError { _ = try await kodo.batch([.delete(at("a"))]) }
    #expect(stub.requests.count == 2)
    // A delete after one that worked would answer 612: sent once too.
    _ = await kodoError { try await kodo.delete(at("a")) }
    #expect(stub.requests.count == 3)
    // A storage class change sets a value: retried (4 attempts).
    _ = await kodoError {
      try await kodo.changeStorageClass(at("a"), to: StorageClass.kodo(type: 1))
    }
    #expect(stub.requests.count == 7)
  }

  @Test func aMoveOntoItselfIsRefused() async {
    let stub = StubTransport(answers: [.response(.json(200, "{}"))])
    let error = await kodoError {
      try await client(stub, hosts: hosts).move(CopyRequest(source: at("a"), destination: at("a")))
    }
    #expect(error?.kind == .invalidInput)
    #expect(stub.requests.isEmpty)
  }

  @Test func aPutIsAFormUploadWithAnInsertOnlyTokenForTheKey() async throws {
    let data = Array("hello kodo\n".utf8)
    let hash = QETag.hash(of: data)
    let stub = StubTransport(answers: [
      .response(.json(200, #"{"hash":"\#(hash)","key":"dir/a b.txt"}"#))
    ])
    let result = try await client(stub, hosts: hosts).put(
      PutRequest(
        destination: at("dir/a b.txt"), body: data, contentType: "text/plain",
        metadata: [MetadataEntry("author", "kodo")], storageClass: StorageClass.kodo(type: 1)))
    #expect(result.hash == hash)
    let request = try #require(stub.requests.first)
    #expect(request.method == "POST")
    #expect(request.url == "https://up-z0.qiniup.com/")
    #expect(request.headers["Authorization"] == nil)
    let contentType = try #require(request.headers["Content-Type"])
    #expect(contentType.hasPrefix("multipart/form-data; boundary="))
    let body = String(decoding: request.sentBytes, as: UTF8.self)
    #expect(body.contains("name=\"key\"\r\n\r\ndir/a b.txt\r\n"))
    #expect(body.contains("name=\"crc32\"\r\n\r\n836152152\r\n"))
    #expect(body.contains("name=\"x-qn-meta-author\"\r\n\r\nkodo\r\n"))
    #expect(
      body.contains("filename=\"a b.txt\"\r\nContent-Type: text/plain\r\n\r\nhello kodo\n\r\n"))
    let decoded = try #require(formToken(body))
    #expect(decoded.accessKey == "MY_ACCESS_KEY")
    #expect(decoded.policy["scope"]?.stringValue == "my-bucket:dir/a b.txt")
    #expect(decoded.policy["insertOnly"] == .number("1"))
    #expect(decoded.policy["fileType"] == .number("1"))
    #expect(decoded.policy["deadline"] == .number(String(1_704_067_200 + 3600)))
  }

  @Test func anOverwritingPutHasNoInsertOnly() async throws {
    let data: [UInt8] = [1, 2, 3]
    let stub = StubTransport(answers: [
      .response(.json(200, #"{"hash":"\#(QETag.hash(of: data))","key":"k"}"#))
    ])
    _ = try await client(stub, hosts: hosts).put(
      PutRequest(destination: at("k"), body: data, overwrite: true))
    let body = String(decoding: try #require(stub.requests.first).sentBytes, as: UTF8.self)
    #expect(!body.contains("Content-Type: "))
    let decoded = try #require(formToken(body))
    #expect(decoded.policy["scope"]?.stringValue == "my-bucket:k")
    #expect(decoded.policy["insertOnly"] == nil)
  }

  @Test func aPutWhoseStoredHashDiffersFails() async {
    let stub = StubTransport(answers: [
      .response(.json(200, #"{"hash":"Fto5o-5ea0sNMlW_75VgGJCv2AcJ","key":"k"}"#))
    ])
    let error = await kodoError {
      _ = try await client(stub, hosts: hosts).put(PutRequest(destination: at("k"), body: [1]))
    }
    #expect(error?.kind == .protocolError)
  }

  @Test func aPutOfAnExistingKeyIsAConflict() async {
    let stub = StubTransport(answers: [.response(.json(614, #"{"error":"file exists"}"#))])
    let error = await kodoError {
      _ = try await client(stub, hosts: hosts).put(PutRequest(destination: at("k"), body: [1]))
    }
    #expect(error?.kind == .exists)
    #expect(stub.requests.count == 1)
  }

  @Test func metadataNamesThatWouldChangeThePathAreRefused() async {
    let stub = StubTransport(answers: [.response(.json(200, "{}"))])
    for name in ["a/b", "", "é", String(repeating: "n", count: 51)] {
      let error = await kodoError {
        try await client(stub, hosts: hosts).changeMetadata(
          at("k"), MetadataChange(metadata: [MetadataEntry(name, "v")]))
      }
      #expect(error?.kind == .invalidInput, "\(name)")
    }
    #expect(stub.requests.isEmpty)
  }

  @Test func storageClassesAndRestoreUseKodosNumbers() async throws {
    let stub = StubTransport(answers: [.response(.json(200, "{}"))])
    let kodo = client(stub, hosts: hosts)
    try await kodo.changeStorageClass(at("k"), to: StorageClass.kodo(type: 2))
    try await kodo.changeStorageClass(
      at("k"), to: StorageClass(name: "deep_archive", serviceName: "DeepArchive"))
    try await kodo.restore(at("k"), days: 3)
    try await kodo.changeMetadata(
      at("k"), MetadataChange(contentType: "text/plain", metadata: [MetadataEntry("a-b", "v")]))
    #expect(
      stub.requests.map { String($0.url.dropFirst("https://rs-z0.qiniuapi.com".count)) } == [
        "/chtype/bXktYnVja2V0Oms=/type/2", "/chtype/bXktYnVja2V0Oms=/type/3",
        "/restoreAr/bXktYnVja2V0Oms=/freezeAfterDays/3",
        "/chgm/bXktYnVja2V0Oms=/mime/dGV4dC9wbGFpbg==/x-qn-meta-a-b/dg==",
      ])
    let error = await kodoError {
      try await kodo.changeStorageClass(
        at("k"), to: StorageClass(name: "cold_archive", serviceName: "ColdArchive"))
    }
    #expect(error?.kind == .invalidInput)
    #expect(await kodoError { try await kodo.restore(at("k"), days: 8) }?.kind == .invalidInput)
  }

  @Test func uploadsGoToTheRegionsUpHosts() async throws {
    let query =
      #"{"hosts":[{"region":"z0","ttl":86400,"up":{"domains":["up-z0.qiniup.com"],"old":["up.qbox.me"]},"rs":{"domains":["rs-z0.qiniuapi.com"]}}]}"#
    let data: [UInt8] = [7]
    let stub = StubTransport { request, _ in
      request.url.contains("/v4/query")
        ? .response(.json(200, query))
        : .response(.json(200, #"{"hash":"\#(QETag.hash(of: data))","key":"k"}"#))
    }
    _ = try await client(stub, hosts: ServiceHosts(uc: "https://uc.qiniuapi.com")).put(
      PutRequest(destination: at("k"), body: data))
    #expect(stub.requests.last?.url == "https://up-z0.qiniup.com/")
  }
}

extension HTTPRequest {
  /// The body's bytes (every write request here has its body in memory).
  var sentBytes: [UInt8] { body.inMemoryBytes ?? [] }
}
