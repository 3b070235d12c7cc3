import Foundation
import KodoCore
import KodoTestSupport
import PropertyBased
import StorageCore
import Testing

/// Fuzzing Kodo's codecs (entry URIs, download URLs, `putTime`s) with arbitrary text; the
/// provider-neutral codecs are fuzzed in StorageCoreTests.
@Suite("Fuzzing Kodo's codecs")
struct FuzzCodecPropertyTests {
  // MARK: Entry URIs

  @Test func entryURIsDecodeToWhatEncodesBackToThem() async {
    await seededCheck(count: fuzzCount(500), input: text(from: "ABCOZabcoz0189-_=")) { text in
      guard let (bucket, key) = EncodedEntryURI.decode(text) else { return }
      #expect(!bucket.utf8.contains(UInt8(ascii: ":")))
      #expect(EncodedEntryURI.encode(bucket: bucket, key: key) == padded(text))
    }
  }

  @Test func entryURIsOfAnyBytesSplitAtTheFirstColonWhenUTF8() async {
    let bytes = Gen.oneOf(
      Gen<UInt8>.value(in: 0...255), Gen<UInt8>.value(in: 0x3A...0x3A),
      Gen<UInt8>.value(in: 0x61...0x62), Gen<UInt8>.value(in: 0x80...0xBF),
      Gen<UInt8>.value(in: 0xC2...0xF4)
    )
    .array(of: 0...24)
    await seededCheck(count: fuzzCount(500), input: bytes) { bytes in
      let decoded = EncodedEntryURI.decode(URLSafeBase64.encode(bytes))
      let isUTF8 = String(validating: bytes, as: UTF8.self) != nil
      #expect((decoded != nil) == isUTF8)
      guard let decoded else { return }
      if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
        #expect(Array(decoded.bucket.utf8) == Array(bytes[..<colon]))
        #expect(decoded.key.map { Array($0.utf8) } == Array(bytes[(colon + 1)...]))
      } else {
        #expect(Array(decoded.bucket.utf8) == bytes)
        #expect(decoded.key == nil)
      }
    }
  }

  @Test func entryURISplitsOnAColonFollowedByACombiningMark() {
    let decoded = EncodedEntryURI.decode(EncodedEntryURI.encode(bucket: "b", key: "\u{301}k:"))
    #expect(decoded?.bucket == "b")
    #expect(decoded?.key == "\u{301}k:")
  }

  // MARK: Download URLs

  @Test func downloadURLsOfAnyKeyAndDomainAreBuilt() async {
    await seededCheck(count: fuzzCount(300), input: anyKey, text(from: "htps:/?#.example")) {
      key, domain in
      let url = DownloadURL.publicURL(domain: domain, key: key)
      let credentials = Credentials(accessKey: "ak", secretKey: "sk")
      let signed = DownloadURL.privateURL(baseURL: url, deadline: .max, credentials: credentials)
      #expect(signed.hasPrefix(url))
      #expect(signed.contains("e=9223372036854775807&token=ak:"))
    }
  }

  @Test func theURLBuilderWritesWhatTheStepByStepRecipeGives() async {
    // `url --stdin` builds each URL in one buffer (`DownloadURL.Builder`); here the same URL is
    // made the long way, from the documented recipe and the one-shot HMAC, for any key, on
    // domains with and without trailing slashes, paths and queries.
    let credentials = Credentials(accessKey: "ak", secretKey: "sk")
    func reference(domain: String, key: String, deadline: Int64?) -> String {
      var base = domain
      while base.hasSuffix("/") { base.removeLast() }
      let url = key.isEmpty ? base : base + "/" + PercentEncoding.encodePath(key)
      guard let deadline else { return url }
      let toSign = url + (url.contains("?") ? "&" : "?") + "e=" + String(deadline)
      let mac = HMAC.authenticationCode(.sha1, key: Array("sk".utf8), message: Array(toSign.utf8))
      let signature = Data(mac).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      return toSign + "&token=ak:" + signature
    }
    let domains = Gen.oneOf(
      text(from: "htps:/?#.example"),
      Gen<String?>.element(of: [
        "http://dl.example.com", "https://dl.example.com//", "http://h/a/b/", "http://h/a?x=1&y",
        "http://[::1]:8080/", "",
      ]).map { $0 ?? "" })
    await seededCheck(count: fuzzCount(300), input: anyKey, domains) { key, domain in
      let builder = DownloadURL.Builder(domain: domain)
      for deadline in [nil, 0, 5, 1_900_000_000, -1, .max, .min] as [Int64?] {
        let expected = reference(domain: domain, key: key, deadline: deadline)
        #expect(builder.url(key: key, deadline: deadline, credentials: credentials) == expected)
        // Unsigned without credentials, whatever the deadline.
        #expect(
          builder.url(key: key, deadline: deadline, credentials: nil)
            == reference(domain: domain, key: key, deadline: nil))
        if let deadline {
          #expect(
            DownloadURL.privateURL(
              baseURL: DownloadURL.publicURL(domain: domain, key: key), deadline: deadline,
              credentials: credentials) == expected)
        }
      }
    }
  }

  // MARK: Times in answers

  /// Formats `value` every way an answer's time is shown, and checks the seconds are floored.
  static func expectFormats(_ value: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
    _ = KodoTime.rfc3339(hundredNanoseconds: value)
    _ = KodoTime.rfc3339(unixSeconds: value)
    _ = HTTPDate.format(unixSeconds: value)
    let seconds = Int128(KodoTime.unixSeconds(hundredNanoseconds: value))
    #expect(
      seconds * 10_000_000 <= Int128(value) && Int128(value) < (seconds + 1) * 10_000_000,
      sourceLocation: sourceLocation)
  }

  @Test func anyTimestampFormatsAndFloorsItsSeconds() async {
    await seededCheck(count: fuzzCount(500), input: Gen<Int64>.value()) { value in
      Self.expectFormats(value)
    }
  }

}
