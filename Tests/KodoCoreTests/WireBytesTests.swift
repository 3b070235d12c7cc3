import KodoCore
import StorageCore
import Testing

/// Kodo's signing input and answers are read at bytes (issue 20).
@Suite("Kodo protocol text at bytes")
struct KodoWireBytesTests {
  @Test func anXQiniuHeaderWithACombiningMarkIsSigned() {
    // The SDKs test the name's bytes (`strings.HasPrefix(key, "X-Qiniu-")`): a name whose
    // ninth byte starts a combining mark is an X-Qiniu- header like any other.
    let request = SignableRequest(
      method: "POST", url: "http://h/x", host: "h", contentType: nil,
      headers: [("X-Qiniu-\u{301}a", "1"), ("X-Qiniu-B", "2")])
    let text = String(decoding: RequestSigning.qiniuSigningString(for: request), as: UTF8.self)
    #expect(
      Array(text.utf8) == Array("POST /x\nHost: h\nX-Qiniu-B: 2\nX-Qiniu-\u{301}a: 1\n\n".utf8))
  }

  @Test func storageClassNumbersAreReadAtBytes() {
    #expect(StorageClass(name: "x", serviceName: "type 3").kodoType == 3)
    #expect(StorageClass(name: "x", serviceName: "type \u{301}3").kodoType == nil)
  }
}
