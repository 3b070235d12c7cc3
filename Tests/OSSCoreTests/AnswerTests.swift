import Foundation
import OSSCore
import StorageCore
import Testing

/// Expects `body` to throw a `.protocolError` whose message contains every one of `parts`.
func expectProtocolError<T>(
  _ parts: String..., sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> T
) {
  do {
    let value = try body()
    Issue.record("expected a protocol error, got \(value)", sourceLocation: sourceLocation)
  } catch {
    guard let error = error as? StorageError else {
      Issue.record("expected a StorageError, got \(error)", sourceLocation: sourceLocation)
      return
    }
    #expect(error.kind == .protocolError, sourceLocation: sourceLocation)
    for part in parts {
      #expect(error.description.contains(part), "\(error)", sourceLocation: sourceLocation)
    }
  }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite("OSS answers")
struct AnswerTests {
  static let listV1 = """
    <?xml version="1.0" encoding="UTF-8"?>
    <ListBucketResult xmlns="http://doc.oss-cn-hangzhou.aliyuncs.com">
      <Name>oss-example</Name>
      <Prefix>hello%20world%21</Prefix>
      <Marker>hello%20</Marker>
      <MaxKeys>100</MaxKeys>
      <Delimiter>%2F</Delimiter>
      <IsTruncated>true</IsTruncated>
      <EncodingType>url</EncodingType>
      <NextMarker>fun%2Fmovie%2F007.avi</NextMarker>
      <Contents>
        <Key>fun%2Fmovie%2F001.avi</Key>
        <LastModified>2012-02-24T08:43:07.000Z</LastModified>
        <ETag>&quot;5B3C1A2E053D763E1B002CC607C5A0FE&quot;</ETag>
        <Type>Normal</Type>
        <Size>344606</Size>
        <StorageClass>Standard</StorageClass>
        <Owner>
          <ID>00220120222</ID>
          <DisplayName>user-example</DisplayName>
        </Owner>
      </Contents>
      <Contents>
        <Key>a+b%2Bc%20d%25~%E4%B8%AD%F0%9F%98%80%01%0A</Key>
        <LastModified>2020-06-22T11:42:32.123Z</LastModified>
        <ETag>"5B3C1A2E053D763E1B002CC607C5A0FE-2"</ETag>
        <Type>Multipart</Type>
        <Size>9223372036854775807</Size>
        <StorageClass>DeepColdArchive</StorageClass>
        <RestoreInfo>ongoing-request="false", expiry-date="Thu, 24 Sep 2020 12:40:33 GMT"</RestoreInfo>
      </Contents>
      <CommonPrefixes><Prefix>photos%2F2023%20%E5%B9%B4%2F</Prefix></CommonPrefixes>
    </ListBucketResult>
    """

  @Test func listObjectsV1DecodesKeysStrictlyAndTimesExactly() throws {
    let page = try OSSAnswers.listObjects(bytes(Self.listV1), encodingType: "url")
    #expect(page.name == "oss-example")
    #expect(page.prefix == "hello world!")
    #expect(page.marker == "hello ")
    #expect(page.delimiter == "/")
    #expect(page.isTruncated)
    #expect(page.nextMarker == "fun/movie/007.avi")
    #expect(page.maxKeys == 100)
    #expect(page.objects.count == 2)
    let first = page.objects[0]
    #expect(first.key == "fun/movie/001.avi")
    #expect(first.etag == "5B3C1A2E053D763E1B002CC607C5A0FE")
    #expect(first.owner == OSSOwner(id: "00220120222", displayName: "user-example"))
    #expect(first.lastModified.unixSeconds == 1_330_072_987)
    #expect(first.lastModified.rfc3339 == "2012-02-24T08:43:07.000Z")
    let second = page.objects[1]
    // A `+` stays a `+`; only %XX is decoded.
    #expect(second.key == "a+b+c d%~中😀\u{01}\n")
    #expect(second.lastModified.hundredNanoseconds % 10_000_000 == 1_230_000)
    #expect(second.size == Int64.max)
    #expect(second.type == "Multipart")
    #expect(second.storageClass == "DeepColdArchive")
    #expect(second.restore == OSSRestore(ongoing: false, expiry: 1_600_951_233))
    #expect(page.commonPrefixes == ["photos/2023 年/"])
  }

  @Test func listObjectsV2() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <ListBucketResult>
      <Name>examplebucket</Name>
          <Prefix></Prefix>
          <StartAfter>b</StartAfter>
          <MaxKeys>3</MaxKeys>
          <EncodingType>url</EncodingType>
          <IsTruncated>true</IsTruncated>
          <NextContinuationToken>CgJiYw--</NextContinuationToken>
          <Contents>
              <Key>b%2Fc</Key>
              <LastModified>2020-05-18T05:45:54.000Z</LastModified>
              <ETag>"35A27C2B9EAEEB6F48FD7FB5861D****"</ETag>
              <Size>25</Size>
              <StorageClass>STANDARD</StorageClass>
          </Contents>
          <KeyCount>1</KeyCount>
      </ListBucketResult>
      """
    let page = try OSSAnswers.listObjects(bytes(xml), encodingType: "url")
    #expect(page.startAfter == "b")
    #expect(page.nextContinuationToken == "CgJiYw--")
    #expect(page.keyCount == 1)
    #expect(page.objects.map(\.key) == ["b/c"])
    #expect(page.objects[0].storageClass == "STANDARD")
  }

  @Test func listingFailuresSayWhatAndWhere() {
    func list(_ xml: String, _ encodingType: String? = "url") throws(StorageError)
      -> OSSListObjectsResult
    {
      try OSSAnswers.listObjects(bytes(xml), encodingType: encodingType, requestID: "RID")
    }
    let head = "<ListBucketResult><Name>b</Name><EncodingType>url</EncodingType>"
    let tail = "<IsTruncated>false</IsTruncated></ListBucketResult>"
    func contents(_ inner: String) -> String { head + "<Contents>" + inner + "</Contents>" + tail }
    let time = "<LastModified>2020-05-18T05:45:54.000Z</LastModified>"
    expectProtocolError("ListBucketResult/Contents/Key", "percent-encoding") {
      try list(contents("<Key>a%zz</Key>\(time)<Size>1</Size>"))
    }
    expectProtocolError("percent-encoding") {
      try list(contents("<Key>%C3%28</Key>\(time)<Size>1</Size>"))
    }
    expectProtocolError("<Key> is empty") { try list(contents("<Key></Key>\(time)<Size>1</Size>")) }
    expectProtocolError("<Contents> has no <Key>") { try list(contents("\(time)<Size>1</Size>")) }
    expectProtocolError("<Contents> has no <Size>") { try list(contents("<Key>a</Key>\(time)")) }
    expectProtocolError("ListBucketResult/Contents/Size", "\"-1\" is not a number") {
      try list(contents("<Key>a</Key>\(time)<Size>-1</Size>"))
    }
    expectProtocolError("is not a number") {
      try list(contents("<Key>a</Key>\(time)<Size>9223372036854775808</Size>"))
    }
    expectProtocolError("LastModified", "is not a time") {
      try list(
        contents("<Key>a</Key><LastModified>2020-02-30T00:00:00.000Z</LastModified><Size>1</Size>"))
    }
    expectProtocolError("truncated but names no NextMarker") {
      try list(head + "<IsTruncated>true</IsTruncated></ListBucketResult>")
    }
    expectProtocolError("has no <IsTruncated>") { try list(head + "</ListBucketResult>") }
    expectProtocolError("not URL-encoded") {
      try list("<ListBucketResult><Name>b</Name>" + tail)
    }
    expectProtocolError("not <ListBucketResult>") { try list("<Error><Code>x</Code></Error>") }
    expectProtocolError("DOCTYPE") {
      try list("<!DOCTYPE x [<!ENTITY a \"b\">]>" + head + tail)
    }
    expectProtocolError("nest deeper than 32") {
      try list(
        head + String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40) + tail)
    }
    expectProtocolError("does not match") { try list(head + "<Contents></Content>" + tail) }
    expectProtocolError("ends inside") { try list(head) }
    expectProtocolError("after the root element") { try list(head + tail + "<x/>") }
    expectProtocolError("not in UTF-8") {
      try list("<?xml version=\"1.0\" encoding=\"GBK\"?>" + head + tail)
    }
    expectProtocolError("control character") { try list(contents("<Key>a\u{01}</Key>")) }
    expectProtocolError("unknown entity") { try list(contents("<Key>&nbsp;</Key>")) }
    expectProtocolError("is not a character XML allows") { try list(contents("<Key>&#0;</Key>")) }
    expectProtocolError("request id RID") { try list("") }
    expectProtocolError("larger than 16 MiB") {
      try OSSAnswers.listObjects(
        [UInt8](repeating: 0x20, count: (16 << 20) + 1), encodingType: nil)
    }
  }

  @Test func xmlSyntaxThatOSSMayUseIsRead() throws {
    let xml = """
      \u{FEFF}<?xml version='1.0' encoding='utf-8'?>
      <!-- a comment --><?pi data?>
      <ListBucketResult a="1" b='2'>
        <Name>b<!-- inside -->ucket</Name>
        <Prefix><![CDATA[x%20<y>]]>&amp;&#x4E2D;&#20013;</Prefix>
        <EncodingType>url</EncodingType>
        <Unknown><Deep><Deeper attr="v">text &lt; &amp;</Deeper></Deep><Empty/></Unknown>
        <IsTruncated> false </IsTruncated>
        <Delimiter/>
      </ListBucketResult>
      <!-- trailing -->
      """
    let page = try OSSAnswers.listObjects(Array(xml.utf8), encodingType: "url")
    #expect(page.name == "bucket")
    #expect(page.prefix == "x <y>&中中")
    #expect(page.delimiter == "")
    #expect(!page.isTruncated)
  }

  @Test func crLineEndsAreNormalisedAndCharacterReferencesKept() throws {
    let xml =
      "<ListBucketResult><Name>a\r\nb\rc&#13;</Name><IsTruncated>false</IsTruncated></ListBucketResult>"
    let page = try OSSAnswers.listObjects(bytes(xml), encodingType: nil)
    #expect(page.name == "a\nb\nc\r")
  }

  @Test func listBuckets() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <ListAllMyBucketsResult>
        <Prefix>my</Prefix><Marker>mybucket</Marker><MaxKeys>10</MaxKeys>
        <IsTruncated>true</IsTruncated><NextMarker>mybucket10</NextMarker>
        <Owner><ID>ut_test_put_bucket</ID><DisplayName>ut_test_put_bucket</DisplayName></Owner>
        <Buckets>
          <Bucket>
            <CreationDate>2014-05-14T11:18:32.000Z</CreationDate>
            <ExtranetEndpoint>oss-cn-hangzhou.aliyuncs.com</ExtranetEndpoint>
            <IntranetEndpoint>oss-cn-hangzhou-internal.aliyuncs.com</IntranetEndpoint>
            <Location>oss-cn-hangzhou</Location>
            <Name>mybucket01</Name>
            <Region>cn-hangzhou</Region>
            <StorageClass>Standard</StorageClass>
          </Bucket>
          <Bucket>
            <CreationDate>2014-12-25T11:21:04.000Z</CreationDate>
            <Location>oss-ap-southeast-1</Location>
            <Name>mybucket02</Name>
            <StorageClass>IA</StorageClass>
          </Bucket>
        </Buckets>
      </ListAllMyBucketsResult>
      """
    let page = try OSSAnswers.listBuckets(bytes(xml))
    #expect(page.isTruncated)
    #expect(page.nextMarker == "mybucket10")
    #expect(page.maxKeys == 10)
    #expect(page.buckets.map(\.name) == ["mybucket01", "mybucket02"])
    #expect(page.buckets[0].region == "cn-hangzhou")
    #expect(page.buckets[0].intranetEndpoint == "oss-cn-hangzhou-internal.aliyuncs.com")
    #expect(page.buckets[0].creationDate?.rfc3339 == "2014-05-14T11:18:32.000Z")
    // No <Region>: derived from <Location>.
    #expect(page.buckets[1].region == "ap-southeast-1")
    #expect(page.buckets[1].storageClass == "IA")
    let untruncated = try OSSAnswers.listBuckets(
      bytes("<ListAllMyBucketsResult><Buckets/></ListAllMyBucketsResult>"))
    #expect(!untruncated.isTruncated && untruncated.buckets.isEmpty)
    expectProtocolError("Buckets/Bucket", "<Bucket> has no <Name>") {
      try OSSAnswers.listBuckets(
        bytes("<ListAllMyBucketsResult><Buckets><Bucket/></Buckets></ListAllMyBucketsResult>"))
    }
  }

  @Test func bucketInfoAndLocation() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <BucketInfo>
        <Bucket>
          <AccessMonitor>Enabled</AccessMonitor>
          <CreationDate>2013-07-31T10:56:21.000Z</CreationDate>
          <ExtranetEndpoint>oss-cn-hangzhou.aliyuncs.com</ExtranetEndpoint>
          <IntranetEndpoint>oss-cn-hangzhou-internal.aliyuncs.com</IntranetEndpoint>
          <Location>oss-cn-hangzhou</Location>
          <StorageClass>Standard</StorageClass>
          <TransferAcceleration>Disabled</TransferAcceleration>
          <CrossRegionReplication>Disabled</CrossRegionReplication>
          <DataRedundancyType>LRS</DataRedundancyType>
          <Name>oss-example</Name>
          <ResourceGroupId>rg-aek27tc********</ResourceGroupId>
          <Owner><DisplayName>username</DisplayName><ID>27183473914****</ID></Owner>
          <AccessControlList><Grant>private</Grant></AccessControlList>
          <ServerSideEncryptionRule><SSEAlgorithm>KMS</SSEAlgorithm></ServerSideEncryptionRule>
          <BucketPolicy><LogBucket>examplebucket</LogBucket><LogPrefix>log/</LogPrefix></BucketPolicy>
        </Bucket>
      </BucketInfo>
      """
    let info = try OSSAnswers.bucketInfo(bytes(xml))
    #expect(info.name == "oss-example")
    #expect(info.region == "cn-hangzhou")
    #expect(info.dataRedundancyType == "LRS")
    #expect(info.accessControl == "private")
    #expect(info.owner?.id == "27183473914****")
    #expect(info.resourceGroupID == "rg-aek27tc********")
    #expect(
      try OSSAnswers.bucketLocation(
        bytes(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<LocationConstraint>oss-cn-hangzhou</LocationConstraint>"
        ))
        == "oss-cn-hangzhou")
    expectProtocolError("<BucketInfo> has no <Bucket>") {
      try OSSAnswers.bucketInfo(bytes("<BucketInfo/>"))
    }
    expectProtocolError("empty") { try OSSAnswers.bucketLocation(bytes("<LocationConstraint/>")) }
  }

  static let skewedError = """
    <?xml version="1.0" encoding="UTF-8"?>
    <Error>
      <Code>RequestTimeTooSkewed</Code>
      <Message>The difference between the request time and the current time is too large.</Message>
      <RequestId>5C9F6F2B1C9E7E8C2F0A****</RequestId>
      <HostId>oss-cn-hangzhou.aliyuncs.com</HostId>
      <MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds>
      <RequestTime>1970-01-01T12:52:35.000Z</RequestTime>
      <ServerTime>2019-03-30T13:18:53.000Z</ServerTime>
      <EC>0002-00000504</EC>
      <Nested><A>1</A></Nested>
    </Error>
    """

  @Test func errorBodyAndHeader() throws {
    let body = try OSSAnswers.errorBody(bytes(Self.skewedError))
    #expect(body.code == "RequestTimeTooSkewed")
    #expect(body.requestID == "5C9F6F2B1C9E7E8C2F0A****")
    #expect(body.ec == "0002-00000504")
    #expect(body.fields["MaxAllowedSkewMilliseconds"] == "900000")
    #expect(body.fields["Nested"] == nil)
    #expect(body.serverTime?.unixSeconds == 1_553_951_933)
    let header = Data(bytes(Self.skewedError)).base64EncodedString()
    #expect(try OSSAnswers.errorHeader(header) == body)
    expectProtocolError("not base64") { try OSSAnswers.errorHeader("%%%") }
    expectProtocolError("<Error> has no <Code>") {
      try OSSAnswers.errorBody(bytes("<Error><Message>m</Message></Error>"))
    }
  }

  @Test func headObjectHeaders() throws {
    let headers: HTTPHeaders = [
      "Content-Length": "344606",
      "Content-Type": "image/jpg",
      "ETag": "\"fba9dede5f27731c9771645a3986****\"",
      "Last-Modified": "Fri, 24 Feb 2012 06:07:48 GMT",
      "Content-MD5": "1B2M2Y8AsgTpgAmY7PhCfg==",
      "x-oss-hash-crc64ecma": "18446744073709551615",
      "x-oss-object-type": "Normal",
      "x-oss-storage-class": "Archive",
      "x-oss-restore": "ongoing-request=\"true\"",
      "X-Oss-Meta-Author": "alice",
      "x-oss-meta-Empty": "",
      "x-oss-request-id": "5F1A****",
    ]
    let head = try OSSAnswers.objectHead(headers)
    #expect(head.size == 344_606)
    #expect(head.etag == "fba9dede5f27731c9771645a3986****")
    #expect(head.lastModified.unixSeconds == 1_330_063_668)
    #expect(head.md5 == "d41d8cd98f00b204e9800998ecf8427e")
    #expect(head.crc64 == UInt64.max)
    #expect(head.storageClass == "Archive")
    #expect(head.restore?.status == .restoring)
    #expect(head.meta == ["author": "alice", "empty": ""])
    var bad = headers
    bad.set("x-oss-hash-crc64ecma", "-1")
    expectProtocolError("x-oss-hash-crc64ecma") { try OSSAnswers.objectHead(bad) }
    bad = headers
    bad.set("Content-Length", "+5")
    expectProtocolError("Content-Length") { try OSSAnswers.objectHead(bad) }
    bad = HTTPHeaders(
      headers.filter { $0.name.lowercased() != "last-modified" }.map { ($0.name, $0.value) })
    expectProtocolError("Last-Modified header is missing") { try OSSAnswers.objectHead(bad) }
    bad = headers
    bad.set("Content-MD5", "bm90IG1kNQ==")
    expectProtocolError("Content-MD5") { try OSSAnswers.objectHead(bad) }
    bad = headers
    bad.set("x-oss-restore", "ongoing-request=maybe")
    expectProtocolError("x-oss-restore") { try OSSAnswers.objectHead(bad) }
  }

  @Test func restoreStates() {
    #expect(OSSRestore("ongoing-request=\"true\"") == OSSRestore(ongoing: true))
    #expect(
      OSSRestore("ongoing-request=\"false\", expiry-date=\"Sun, 16 Apr 2017 08:12:33 GMT\"")
        == OSSRestore(ongoing: false, expiry: 1_492_330_353))
    #expect(OSSRestore("") == nil)
    #expect(OSSRestore("expiry-date=\"Sun, 16 Apr 2017 08:12:33 GMT\"") == nil)
    #expect(OSSRestore("ongoing-request=\"true\", ongoing-request=\"false\"") == nil)
    let restored = OSSRestore(ongoing: false, expiry: 1_492_330_353)
    #expect(OSSRestore(restored.text) == restored)
    #expect(OSSRestore(ongoing: true).text == "ongoing-request=\"true\"")
    #expect(OSSRestore(ongoing: false).text == "ongoing-request=\"false\"")
    #expect(
      restored.text == "ongoing-request=\"false\", expiry-date=\"Sun, 16 Apr 2017 08:12:33 GMT\"")
    #expect(
      OSSRestore(ongoing: true, expiry: .min).text
        == "ongoing-request=\"true\", expiry-date=\"\(HTTPDate.format(unixSeconds: .min))\"")
  }

  @Test func iso8601Times() {
    let exact = OSSTime.parseISO8601("2012-02-24T08:42:32.000Z")
    #expect(exact?.unixSeconds == 1_330_072_952)
    #expect(exact?.fractionDigits == 3)
    #expect(OSSTime.parseISO8601("2012-02-24T08:42:32Z")?.fractionDigits == 0)
    #expect(
      OSSTime.parseISO8601("2012-02-24T08:42:32.123456789Z")?.hundredNanoseconds
        == 13_300_729_521_234_567)
    #expect(OSSTime.parseISO8601("2000-02-29T00:00:00.000Z") != nil)
    for bad in [
      "2100-02-29T00:00:00.000Z", "2012-02-24 08:42:32.000Z", "2012-02-24T08:42:32.000",
      "2012-02-24T24:00:00.000Z", "2012-02-24T08:42:32.Z", "2012-13-01T00:00:00Z", "",
      "+012-02-24T08:42:32.000Z",
    ] {
      #expect(OSSTime.parseISO8601(bad) == nil, "\(bad)")
    }
  }
}
