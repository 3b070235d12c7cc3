import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import PropertyBased
import StorageCore
import Testing

/// The answer decoders against generated documents: everything the writers produce reads back
/// exactly, and anything broken (truncated, mutated, random) is a `protocolError`, never a crash
/// or a hang.
@Suite("OSS XML answers, generated and broken")
struct XMLFuzzTests {
  /// Decodes with every decoder; returns whether one succeeded. Any error must be a protocol
  /// error.
  static func decodeAll(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
    -> Bool
  {
    var decoded = false
    let attempts: [() throws -> Void] = [
      { _ = try OSSAnswers.listObjects(bytes, encodingType: "url") },
      { _ = try OSSAnswers.listObjects(bytes, encodingType: nil) },
      { _ = try OSSAnswers.listBuckets(bytes) },
      { _ = try OSSAnswers.bucketInfo(bytes) },
      { _ = try OSSAnswers.bucketLocation(bytes) },
      { _ = try OSSAnswers.errorBody(bytes) },
    ]
    for attempt in attempts {
      do {
        try attempt()
        decoded = true
      } catch let error as StorageError {
        #expect(error.kind == .protocolError, sourceLocation: sourceLocation)
        #expect(!error.message.contains("\n"), sourceLocation: sourceLocation)
      } catch {
        Issue.record("not a StorageError: \(error)", sourceLocation: sourceLocation)
      }
    }
    return decoded
  }

  @Test func listingsReadBackExactly() async {
    await seededCheck(
      count: iterations(60),
      input: randomInput { rng in
        randomListing(count: rng.below(40), version2: rng.below(2) == 0, using: &rng)
      }
    ) { page in
      let xml = OSSAnswers.listObjectsXML(page)
      #expect((try? OSSAnswers.listObjects(xml, encodingType: "url")) == page)
    }
  }

  @Test func plainListingsReadBackExactlyWhenTheKeysAreXMLText() async {
    await seededCheck(
      count: iterations(60),
      input: randomInput { rng in
        var page = randomListing(count: rng.below(20), version2: false, encoded: false, using: &rng)
        for index in page.objects.indices {
          page.objects[index].key = page.objects[index].key.unicodeScalars
            .filter { $0.value >= 0x20 || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            .reduce(into: "") { $0.unicodeScalars.append($1) }
        }
        page.commonPrefixes = []
        page.nextMarker = page.objects.last?.key ?? "z"
        return page
      }
    ) { page in
      let xml = OSSAnswers.listObjectsXML(page)
      #expect((try? OSSAnswers.listObjects(xml, encodingType: nil)) == page)
    }
  }

  @Test func bucketListsErrorsAndInfoReadBack() throws {
    let buckets = OSSListBucketsResult(
      prefix: "p", marker: "m&<", maxKeys: 10, isTruncated: true, nextMarker: "n",
      owner: OSSOwner(id: "1", displayName: "d"),
      buckets: [
        OSSBucketSummary(
          name: "b1", creationDate: OSSTime.parseISO8601("2014-05-14T11:18:32.000Z"),
          location: "oss-cn-hangzhou", region: "cn-hangzhou",
          extranetEndpoint: "oss-cn-hangzhou.aliyuncs.com",
          intranetEndpoint: "oss-cn-hangzhou-internal.aliyuncs.com", storageClass: "Standard"),
        OSSBucketSummary(name: "b2", location: "oss-us-west-1", region: "us-west-1"),
      ])
    #expect(try OSSAnswers.listBuckets(OSSAnswers.listBucketsXML(buckets)) == buckets)
    let info = OSSBucketSummary(
      name: "b1", location: "oss-cn-hangzhou", region: "cn-hangzhou", dataRedundancyType: "ZRS",
      accessControl: "public-read", versioning: "Enabled",
      owner: OSSOwner(id: "1", displayName: "d"), comment: "<hi>")
    #expect(try OSSAnswers.bucketInfo(OSSAnswers.bucketInfoXML(info)) == info)
    #expect(
      try OSSAnswers.bucketLocation(OSSAnswers.bucketLocationXML("oss-cn-hangzhou"))
        == "oss-cn-hangzhou")
    let error = OSSErrorBody(
      code: "SignatureDoesNotMatch", message: "m <&>", requestID: "R", hostID: "H",
      ec: "0002-00000040",
      fields: ["StringToSign": "GET\n\n\n1700003600\n/b/k", "AccessKeyId": "AK", "bad name": "x"])
    var expected = error
    expected.fields["bad name"] = nil
    #expect(try OSSAnswers.errorBody(OSSAnswers.errorXML(error)) == expected)
    #expect(try OSSAnswers.errorHeader(OSSAnswers.errorHeaderValue(error)) == expected)
  }

  @Test func everyTruncationOfAnAnswerIsAProtocolError() {
    var rng = seededGenerator(7)
    let page = randomListing(count: 3, version2: true, using: &rng)
    let xml = OSSAnswers.listObjectsXML(page)
    // Cut before the last byte (a final newline would still be complete).
    for length in 0..<(xml.count - 1) {
      let prefix = Array(xml[0..<length])
      #expect(throws: StorageError.self) { try OSSAnswers.listObjects(prefix, encodingType: "url") }
    }
    let error = OSSAnswers.errorXML(OSSErrorBody(code: "NoSuchKey", message: "m", requestID: "r"))
    for length in 0..<(error.count - 1) {
      #expect(throws: StorageError.self) { try OSSAnswers.errorBody(Array(error[0..<length])) }
    }
  }

  @Test func mutatedAnswersDecodeOrFailCleanly() async {
    let sources: [[UInt8]] = {
      var rng = seededGenerator(11)
      return [
        OSSAnswers.listObjectsXML(randomListing(count: 4, version2: false, using: &rng)),
        OSSAnswers.listObjectsXML(randomListing(count: 4, version2: true, using: &rng)),
        OSSAnswers.listBucketsXML(
          OSSListBucketsResult(buckets: [OSSBucketSummary(name: "b", location: "oss-cn-hangzhou")])),
        OSSAnswers.errorXML(OSSErrorBody(code: "NoSuchKey", message: "m", requestID: "r")),
      ]
    }()
    let tokens: [[UInt8]] = [
      "<", ">", "</", "/>", "&", "&amp;", "&#", ";", "\"", "'", "=", "<!--", "-->", "<![CDATA[",
      "]]>",
      "<?", "?>", "<!DOCTYPE a>", "%", "%zz", "%C3%28", "-1", "99999999999999999999", "\u{0}",
      "\u{FF}", "<Contents>", "</Contents>", "<Key>", "</Key>", "true", "false",
    ].map { Array($0.utf8) }
    await seededCheck(
      count: iterations(400),
      input: randomInput { rng in rng.mutated(sources, inserting: tokens) }
    ) { bytes in
      _ = Self.decodeAll(bytes)
    }
  }

  @Test func randomBytesAreProtocolErrors() async {
    await seededCheck(count: iterations(300), input: Gen.uint8().array(of: 0...300)) { bytes in
      _ = Self.decodeAll(bytes)
    }
  }

  @Test func hugeNumbersOfElementsStayWithinTheLimits() throws {
    // Nesting at the limit reads; one deeper does not.
    func nested(_ depth: Int) -> [UInt8] {
      Array(
        ("<ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>"
          + String(repeating: "<x>", count: depth - 1) + String(repeating: "</x>", count: depth - 1)
          + "</ListBucketResult>").utf8)
    }
    #expect(throws: Never.self) { try OSSAnswers.listObjects(nested(32), encodingType: nil) }
    #expect(throws: StorageError.self) { try OSSAnswers.listObjects(nested(33), encodingType: nil) }
    // A million empty elements are read past without growing anything.
    let many = Array(
      ("<ListBucketResult><Name>b</Name><IsTruncated>false</IsTruncated>"
        + String(repeating: "<x/>", count: 1_000_000) + "</ListBucketResult>").utf8)
    #expect(try OSSAnswers.listObjects(many, encodingType: nil).objects.isEmpty)
  }
}

@Suite("OSS listing continuations")
struct ListContinuationTests {
  @Test func theQuickLookAgreesWithTheFullDecode() async {
    await seededCheck(
      count: iterations(100),
      input: randomInput { rng in
        var page = randomListing(count: rng.below(30), version2: rng.below(2) == 0, using: &rng)
        if rng.below(3) == 0 {
          page.isTruncated = false
          page.nextMarker = nil
          page.nextContinuationToken = nil
        }
        return page
      }
    ) { page in
      let xml = OSSAnswers.listObjectsXML(page)
      let quick = OSSAnswers.listContinuation(xml, encodingType: "url")
      #expect(quick?.isTruncated == page.isTruncated)
      #expect(quick?.nextMarker == (page.isTruncated ? page.nextMarker : nil))
      #expect(quick?.nextContinuationToken == (page.isTruncated ? page.nextContinuationToken : nil))
    }
  }

  @Test func itStopsAtTheFirstObjectOnceItKnows() {
    // Everything after the first <Contents> is garbage: the quick look never reads it.
    let xml = Array(
      ("<ListBucketResult><Name>b</Name><IsTruncated>true</IsTruncated>"
        + "<NextMarker>a%2Bb</NextMarker><EncodingType>url</EncodingType><Contents>&bogus;")
        .utf8)
    #expect(
      OSSAnswers.listContinuation(xml, encodingType: "url")
        == OSSListContinuation(isTruncated: true, nextMarker: "a+b"))
    #expect(throws: StorageError.self) { try OSSAnswers.listObjects(xml, encodingType: "url") }
    // Order does not matter: the flags after the objects are found too.
    let late = Array(
      ("<ListBucketResult><Name>b</Name><EncodingType>url</EncodingType>"
        + "<Contents><Key>k</Key></Contents><IsTruncated>false</IsTruncated></ListBucketResult>")
        .utf8)
    #expect(
      OSSAnswers.listContinuation(late, encodingType: "url")
        == OSSListContinuation(isTruncated: false))
    // Unreadable, or truncated without a way on: no quick answer.
    #expect(OSSAnswers.listContinuation(Array("<x/>".utf8), encodingType: nil) == nil)
    #expect(
      OSSAnswers.listContinuation(
        Array("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>".utf8),
        encodingType: nil) == nil)
  }
}
