import Foundation
import KodoCore
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

@Suite("Round trips for arbitrary keys")
struct RoundTripPropertyTests {
  @Test func entryURIRoundTripsAnyKey() async {
    await seededCheck(count: 500, input: anyKey, Gen.lowercaseLetter.string(of: 1...12)) {
      key, bucket in
      let encoded = EncodedEntryURI.encode(bucket: bucket, key: key)
      let decoded = EncodedEntryURI.decode(encoded)
      #expect(decoded?.bucket == bucket)
      #expect(decoded?.key == key)
      #expect(!encoded.contains("+") && !encoded.contains("/"))
    }
  }

  /// `KodoBatch.body` writes deletes, moves and copies as bytes: the same bytes as the form
  /// built from each operation's `path`, for any keys (and the generic path for the rest).
  @Test func batchBodyIsTheFormOfThePathsForAnyKeys() async {
    await seededCheck(
      count: 300, input: anyKey.array(of: 1...6), Gen.lowercaseLetter.string(of: 1...12)
    ) { keys, bucket in
      var operations: [KodoOperation] = []
      for (index, key) in keys.enumerated() {
        let here = ObjectLocation(bucket: bucket, key: key)
        let there = ObjectLocation(bucket: "b" + bucket, key: key + String(index))
        operations += [
          .delete(here), .move(here, to: there, force: index % 2 == 0),
          .copy(there, to: here, force: index % 2 == 1), .stat(here),
          .delete(here, condition: KodoCondition(hash: key, size: Int64(index))),
        ]
      }
      let expected = KodoBatch.formBody(operations.map { String($0.path.dropFirst()) })
      #expect(KodoBatch.body(operations) == expected)
      #expect(
        KodoBatch.body(Array(operations.prefix(1)))
          == KodoBatch.formBody([String(operations[0].path.dropFirst())]))
    }
  }

  /// `KodoBatch.deleteBody` writes the deletes of keys as `KodoBatch.body` writes them.
  @Test func aBatchOfDeletesIsWrittenFromItsKeysAsFromItsOperations() async {
    await seededCheck(
      count: 300, input: anyKey.array(of: 1...8), Gen.lowercaseLetter.string(of: 1...12)
    ) { keys, bucket in
      let operations = keys.map { KodoOperation.delete(ObjectLocation(bucket: bucket, key: $0)) }
      #expect(KodoBatch.deleteBody(bucket: bucket, keys: keys[...]) == KodoBatch.body(operations))
      #expect(
        KodoBatch.deleteBody(bucket: bucket, keys: keys.dropFirst())
          == KodoBatch.body(Array(operations.dropFirst())))
    }
  }

  @Test func urlPathRoundTripsAnyKey() async {
    await seededCheck(count: 500, input: anyKey) { key in
      let path = PercentEncoding.encodePath(key)
      #expect(PercentEncoding.decode(path) == key)
      // Only the unreserved set, `/` and `%XX` escapes ever appear.
      let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~/%".utf8)
      #expect(path.utf8.allSatisfy { allowed.contains($0) })
      let url = DownloadURL.publicURL(domain: "http://dl.example.com", key: key)
      if !key.isEmpty {
        #expect(URLParts(url).path == "/" + path)
        #expect(URLParts(url).query == nil)
      }
    }
  }

  @Test func putTimeFormattingMatchesFoundationForAnySecond() async {
    await seededCheck(
      count: 500, input: Gen<Int64>.value(in: 0...4_102_444_800),
      Gen<Int64>.value(in: 0...9_999_999)
    ) {
      seconds, fraction in
      let text = KodoTime.rfc3339(hundredNanoseconds: seconds * 10_000_000 + fraction)
      let formatter = ISO8601DateFormatter()
      formatter.timeZone = TimeZone(identifier: "UTC")
      let expectedPrefix = formatter.string(
        from: Date(timeIntervalSince1970: TimeInterval(seconds)))
      #expect(text.hasPrefix(String(expectedPrefix.dropLast())))
      #expect(text.hasSuffix(String(format: ".%07lldZ", fraction)))
    }
  }

  @Test func decodersRejectGarbageWithoutCrashing() async {
    await seededCheck(count: 500, input: anyKey) { text in
      _ = URLSafeBase64.decode(text)
      _ = EncodedEntryURI.decode(text)
      _ = PercentEncoding.decode(text)
      _ = try? DurationParser.seconds(text)
      _ = try? JSONValue.parse(text)
      _ = URLParts(text)
    }
  }
}

@Suite("Signing details beyond the vectors")
struct SigningDetailTests {
  let credentials = Credentials(accessKey: "MY_ACCESS_KEY", secretKey: "MY_SECRET_KEY")

  @Test func secretKeyNeverInDescriptions() {
    #expect(!credentials.description.contains("MY_SECRET_KEY"))
    #expect(!String(reflecting: credentials).contains("MY_SECRET_KEY"))
    #expect(credentials.secretKeyAppears(in: "xx MY_SECRET_KEY yy"))
    #expect(!credentials.secretKeyAppears(in: "MY_SECRET_KE"))
  }

  @Test func changingAnyByteOfTheSigningStringChangesTheToken() {
    let request = SignableRequest(
      url: "https://rs-z0.qiniuapi.com/stat/bXktYnVja2V0OmEudHh0",
      contentType: RequestSigning.formContentType, headers: [("X-Qiniu-Date", "20240101T000000Z")])
    let base = RequestSigning.qiniuAuthorization(for: request, credentials: credentials)
    var other = request
    other.headers = [("X-Qiniu-Date", "20240101T000001Z")]
    #expect(RequestSigning.qiniuAuthorization(for: other, credentials: credentials) != base)
    other = request
    other.method = "POST"
    #expect(RequestSigning.qiniuAuthorization(for: other, credentials: credentials) != base)
  }

  @Test func privateURLUsesAmpersandWhenTheBaseHasAQuery() {
    let url = DownloadURL.privateURL(
      baseURL: "http://x.com/a?attname=b", deadline: 5, credentials: credentials)
    #expect(url.hasPrefix("http://x.com/a?attname=b&e=5&token=MY_ACCESS_KEY:"))
  }

  @Test func uploadPolicyKeepsExtraFieldsInOrderAndRejectsOverrides() throws {
    let extra = try JSONValue.parse(#"{"returnBody":"{\"k\":$(key)}","fsizeLimit":1e3,"名":"值"}"#)
    let json = try UploadToken.policyJSON(scope: "b:k", deadline: 7, extra: extra)
    #expect(
      json
        == #"{"scope":"b:k","deadline":7,"returnBody":"{\"k\":$(key)}","fsizeLimit":1e3,"\u540d":"\u503c"}"#
    )
    let override = #expect(throws: StorageError.self) {
      try UploadToken.policyJSON(
        scope: "b", deadline: 1, extra: try JSONValue.parse(#"{"scope":"x"}"#))
    }
    // The library names no command-line flag: it gives a typed hint for the caller to word.
    #expect(override?.hint == .fieldFromArguments("scope"))
    #expect(override?.message.contains("--") == false)
    #expect(throws: StorageError.self) {
      try UploadToken.policyJSON(scope: "b", deadline: 1, extra: try JSONValue.parse("[1]"))
    }
  }

  @Test func displayTextEscapesControlCharacters() {
    #expect(DisplayText.escaped("a\nb\tc\u{1B}[31m") == "a\\nb\\tc\\u{1B}[31m")
    #expect(DisplayText.escaped("中文 ok") == "中文 ok")
  }
}
