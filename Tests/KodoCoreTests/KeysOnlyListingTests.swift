import KodoCore
import KodoTestSupport
import StorageCore
import Testing

/// `ListRequest.keysOnly` (`rm -r`'s listing): Kodo's items decoded for their keys alone, the
/// rest passed over but still checked to be JSON.
@Suite("Kodo listings of keys only")
struct KeysOnlyListingTests {
  static let body = #"""
    {"marker":"bWFyaw==","commonPrefixes":["photos/2024/"],"items":[
      {"hash":"Fme3","fsize":66441,"mimeType":"image/jpeg","putTime":14563802730506377,
       "key":"photos/a.jpg","type":4,"status":1,"md5":"abc","x-qn-meta":{"k":"v\u00e9"},
       "parts":[4194304,-1.5e3],"some\"New":{"x":[true,null,"\"]"]}},
      {"key":"b\u00e9\n","hash":"h","fsize":0,"mimeType":"text/plain","putTime":1,"type":9}
    ]}
    """#

  @Test func aPageHasTheKeysAndKodosDefaults() async throws {
    let stub = StubTransport(answers: [.response(.json(200, Self.body))])
    let page = try await client(stub).listPageAnswer(
      ListRequest(bucket: "b", prefix: "photos/", delimiter: "/", keysOnly: true)
    ).decode()
    #expect(page.nextMarker == "bWFyaw==")
    #expect(page.commonPrefixes == ["photos/2024/"])
    let defaults = ObjectEntry(
      key: "", size: 0, putTime: Timestamp(hundredNanoseconds: 0), storageClass: .kodo(type: 0),
      mimeType: "", hash: "", status: .enabled)
    var first = defaults
    first.key = "photos/a.jpg"
    var second = defaults
    second.key = "bé\n"
    #expect(page.items == [first, second])
  }

  @Test func theRequestIsAFullListingsRequest() async throws {
    let stub = StubTransport(answers: [
      .response(.json(200, Self.body)), .response(.json(200, Self.body)),
    ])
    let kodo = client(stub)
    for keysOnly in [false, true] {
      _ = try await kodo.listPageAnswer(
        ListRequest(bucket: "b", prefix: "photos/", delimiter: "/", keysOnly: keysOnly))
    }
    #expect(stub.requests.count == 2)
    #expect(stub.requests.first?.url == stub.requests.last?.url)
  }

  @Test(arguments: [
    #"{"marker":"x","items":[{"fsize":1}]}"#, #"{"items":[{"key":"a","hash":"\x"}]}"#,
    #"{"items":[{"key":"a","fsize":01}]}"#, "{\"items\":[{\"key\":\"a\",\"md5\":\"a\u{1}\"}]}",
    #"{"items":[{"key":"a","fsize":1.}]}"#, #"{"items":[{"key":"a","hash":"\ud800"}]}"#,
    #"{"items":[{"key":"a","meta":{"k":tru}}]}"#, #"{"items":[{"key":"a","x":-}]}"#,
    #"{"items":[{"key":"a","x":"open}]}"#, #"{"items":[{"key":"a","x":[1,]}]}"#,
  ])
  func whatIsNotJSONIsStillRefused(_ body: String) async {
    let stub = StubTransport(answers: [.response(.json(200, body))])
    let error = await kodoError {
      _ = try await client(stub).listPageAnswer(ListRequest(bucket: "b", keysOnly: true))
        .decode()
    }
    #expect(error?.kind == .protocolError)
  }
}
