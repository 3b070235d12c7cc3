import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// `--protocol oss`: signatures checked as OSS checks them, public-read versus private buckets,
/// STS tokens, clock skew, and the shared fault engine answering in OSS's terms.
@Suite struct OSSAuthTests {
  private static let objects = [
    EmulatorObject(key: "a b/plus+sign.txt", body: Array("plus".utf8)),
    EmulatorObject(key: "中文/文件 名.txt", body: Array("cjk".utf8)),
  ]

  private func with(
    securityToken: String? = nil, failRate: Double = 0,
    _ body: (EmulatorHarness) async throws -> Void
  ) async throws {
    var configuration = OSSTestClient.configuration(
      [.objects("open", Self.objects), .objects("closed", Self.objects)],
      privateBuckets: ["closed"], securityToken: securityToken)
    configuration.failRate = failRate
    try await EmulatorHarness.with(configuration) { emulator in try await body(emulator) }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func presignedURLsWorkOverPlainHTTP(_ version: OSSSigner.Version) async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator, version: version)
      for key in Self.objects.map(\.key) {
        let target = try client.presignedTarget(OSSRequest(bucket: "closed", key: key))
        let response = try await client.fetch(target)
        #expect(response.status == 200, "\(target): \(response.text)")
        #expect(response.body == Self.objects.first { $0.key == key }?.body)
        // Tampering with the key breaks the signature.
        let other = target.replacingOccurrences(of: ".txt", with: ".TXT")
        #expect(try await client.fetch(other).status != 200)
      }
      let expired = try client.presignedTarget(
        OSSRequest(bucket: "closed", key: "a b/plus+sign.txt"), at: OSSTestClient.now - 7_200,
        expiresIn: 60)
      let refused = try await client.fetch(expired)
      #expect(refused.status == 403)
      #expect(refused.ossError?.code == "AccessDenied")
      #expect(refused.ossError?.message == "Request has expired.")
    }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func aWrongSecretIsSignatureDoesNotMatchWithTheStringToSign(_ version: OSSSigner.Version)
    async throws
  {
    try await with { emulator in
      let client = try OSSTestClient(emulator, version: version, secretKey: "wrong")
      let request = OSSRequest(bucket: "open", key: "中文/文件 名.txt")
      let time = OSSTestClient.now
      let response = try await client.send(request, at: time)
      #expect(response.status == 403)
      let error = try #require(response.ossError)
      #expect(error.code == "SignatureDoesNotMatch")
      #expect(error.ec == "0002-00000040")
      #expect(error.hostID == emulator.hostHeader)
      let signer = try #require(client.signer)
      let expected = signer.sign(request, at: time, addressing: client.addressing)
      #expect(error.fields["StringToSign"] == expected.stringToSign)
      #expect(error.fields["OSSAccessKeyId"] == OSSTestClient.accessKey)
      #expect(error.fields["SignatureProvided"] != nil)

      let head = try await client.send(OSSRequest(method: "HEAD", bucket: "open", key: "x"))
      #expect(head.status == 403)
      #expect(head.body.isEmpty)
      #expect(head.ossError?.code == "SignatureDoesNotMatch")
      // A signature is checked even where anonymous reads are allowed.
      #expect(try await client.send(request).status == 403)
    }
  }

  @Test func unknownKeysWrongRegionsAndMethods() async throws {
    try await with { emulator in
      let stranger = try await emulator.response(
        to: RawHTTPRequest(
          method: "GET", target: "/open/",
          headers: [
            ("Host", emulator.hostHeader),
            ("Date", HTTPDate.format(unixSeconds: OSSTestClient.now)),
            ("Authorization", "OSS somebody:c2lnbmF0dXJl"),
          ]))
      #expect(stranger.status == 403)
      #expect(stranger.ossError?.code == "InvalidAccessKeyId")
      let elsewhere = try OSSTestClient(emulator, region: "cn-beijing")
      let wrongRegion = try await elsewhere.send(OSSRequest(bucket: "open"))
      #expect(wrongRegion.status == 400)
      #expect(wrongRegion.ossError?.code == "InvalidArgument")
      let client = try OSSTestClient(emulator)
      // Writes are served (OSSWriteTests); a method OSS has no API for is not.
      let patch = try await client.send(OSSRequest(method: "PATCH", bucket: "open", key: "new"))
      #expect(patch.status == 405)
      #expect(patch.ossError?.code == "MethodNotAllowed")
      let tagging = try await client.send(
        OSSRequest(bucket: "open", query: [OSSQueryItem("tagging", nil)]))
      #expect(tagging.status == 501)
      #expect(tagging.ossError?.code == "NotImplemented")
    }
  }

  @Test func publicReadBucketsServeAnonymousReadsOnly() async throws {
    try await with { emulator in
      let anonymous = try OSSTestClient(emulator, version: nil)
      let key = "a b/plus+sign.txt"
      let get = try await anonymous.send(OSSRequest(bucket: "open", key: key))
      #expect(get.status == 200 && get.body == Array("plus".utf8))
      #expect(
        try await anonymous.send(OSSRequest(method: "HEAD", bucket: "open", key: key)).status == 200
      )
      for request in [
        OSSRequest(bucket: "closed", key: key),
        OSSRequest(method: "HEAD", bucket: "closed", key: key),
        OSSRequest(bucket: "open"), OSSRequest(),
        OSSRequest(bucket: "open", query: [OSSQueryItem("bucketInfo", nil)]),
      ] {
        let response = try await anonymous.send(request)
        #expect(response.status == 403, "\(request)")
        #expect(response.ossError?.code == "AccessDenied", "\(request)")
      }
      let signed = try OSSTestClient(emulator)
      #expect(try await signed.send(OSSRequest(bucket: "closed", key: key)).status == 200)
    }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func theSecurityTokenIsRequiredWhenConfigured(_ version: OSSSigner.Version) async throws {
    let token = "CAISexampleSTS+token/with=base64chars"
    try await with(securityToken: token) { emulator in
      let sts = try OSSTestClient(emulator, version: version, securityToken: token)
      let request = OSSRequest(bucket: "closed", key: "中文/文件 名.txt")
      #expect(try await sts.send(request).status == 200)
      #expect(try await sts.send(OSSRequest(bucket: "closed")).status == 200)
      #expect(try await sts.fetch(try sts.presignedTarget(request)).status == 200)
      let without = try await OSSTestClient(emulator, version: version).send(request)
      #expect(without.status == 403)
      #expect(without.ossError?.code == "InvalidSecurityToken")
      let other = try OSSTestClient(emulator, version: version, securityToken: "other")
      #expect(try await other.send(request).status == 403)
    }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func requestsOverFifteenMinutesOffAreTooSkewed(_ version: OSSSigner.Version) async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator, version: version)
      let now = OSSTestClient.now
      #expect(try await client.send(OSSRequest(bucket: "open"), at: now - 600).status == 200)
      let late = try await client.send(OSSRequest(bucket: "open"), at: now - 1_200)
      #expect(late.status == 403)
      let error = try #require(late.ossError)
      #expect(error.code == "RequestTimeTooSkewed")
      #expect(error.fields["MaxAllowedSkewMilliseconds"] == "900000")
      #expect(error.fields["RequestTime"] == OSSTime.iso8601(Timestamp(unixSeconds: now - 1_200)))
      let serverTime = try #require(error.serverTime?.unixSeconds)
      #expect(abs(serverTime - now) < 600)
    }
  }

  @Test func theSkewedDateFaultShiftsTheServersClock() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      let scheduled = try await emulator.response(
        to: RawHTTPRequest(
          method: "POST", target: "/_emulator/faults",
          headers: [("Host", emulator.hostHeader), ("Content-Type", "application/json")],
          body: Array("{\"mode\":\"skewed-date\",\"skew\":3600,\"count\":1}".utf8)))
      #expect(scheduled.status == 200)
      #expect(scheduled.text.contains("\"mode\":\"skewed-date\",\"skew\":3600"))
      let now = OSSTestClient.now
      let skewed = try await client.send(OSSRequest(bucket: "open"), at: now)
      #expect(skewed.status == 403)
      let error = try #require(skewed.ossError)
      #expect(error.code == "RequestTimeTooSkewed")
      let date = try #require(skewed.header("Date").flatMap(HTTPDate.parse))
      #expect(abs(date - (now + 3_600)) < 600)
      #expect(error.serverTime?.unixSeconds == date)
      // A client that corrects its clock by the server's Date gets through.
      let corrected = try await client.send(OSSRequest(bucket: "open"), at: now)
      #expect(corrected.status == 200)
    }
  }

  @Test func faultsAndFailRateAnswerInOSSTerms() async throws {
    try await with { emulator in
      let client = try OSSTestClient(emulator)
      emulator.server.scheduleFault(EmulatorFault(endpoint: .list, mode: .status(503), count: 1))
      let unavailable = try await client.send(OSSRequest(bucket: "open"))
      #expect(unavailable.status == 503)
      #expect(unavailable.ossError?.code == "ServiceUnavailable")
      #expect(unavailable.header("x-oss-request-id") != nil)
      let xmlBody = "<Error><Code>SlowDown</Code></Error>"
      emulator.server.scheduleFault(
        EmulatorFault(endpoint: .buckets, mode: .status(503, body: xmlBody), count: 1))
      let custom = try await client.send(OSSRequest())
      #expect(custom.status == 503 && custom.text == xmlBody)
      #expect(custom.header("Content-Type") == "application/xml")
      #expect(custom.ossError?.code == "SlowDown")
      emulator.server.scheduleFault(EmulatorFault(endpoint: .download, mode: .drop, count: 1))
      let signer = try #require(client.signer)
      let signed = signer.sign(
        OSSRequest(bucket: "open", key: "a b/plus+sign.txt"), at: OSSTestClient.now,
        addressing: client.addressing)
      let dropped = try await emulator.send(
        RawHTTPRequest(
          method: "GET", target: URLParts(signed.url).pathAndQuery,
          headers: [("Host", emulator.hostHeader)]
            + signed.headers.fields.map { ($0.name, $0.value) }))
      #expect(dropped.response == nil)
      emulator.server.scheduleFault(EmulatorFault(endpoint: .stat, mode: .noReqid, count: 1))
      let bare = try await client.send(
        OSSRequest(method: "HEAD", bucket: "open", key: "a b/plus+sign.txt"))
      #expect(bare.status == 200 && bare.header("x-oss-request-id") == nil)
      let stats = emulator.server.stats
      #expect(stats.list == 1 && stats.download == 1 && stats.stat == 1 && stats.faults == 4)
      #expect(stats.buckets == 1)
    }
    try await with(failRate: 1) { emulator in
      let client = try OSSTestClient(emulator)
      for _ in 0..<8 {
        let result = try await emulator.send(try #require(client.rawListRequest(bucket: "open")))
        if let response = result.response {
          #expect(response.status >= 500)
          #expect(response.ossError != nil)
        }
      }
    }
  }

  @Test func anOSSRegionMustBeARegionID() async throws {
    var configuration = OSSTestClient.configuration([])
    configuration.region = "oss-cn-hangzhou"
    await #expect(throws: EmulatorError.self) {
      _ = try await EmulatorServer.start(configuration)
    }
  }

  @Test func theCommandRefusesAnUnknownProtocolOrRegion() async throws {
    let runner = CLIRunner("kodo-emulator")
    let protocolResult = try await runner.run(["--protocol", "s3", "--port", "0"])
    #expect(protocolResult.status == 64)
    #expect(protocolResult.stderr.contains("--protocol must be kodo or oss"))
    let regionResult = try await runner.run([
      "--protocol", "oss", "--region", "oss-cn-hangzhou", "--port", "0",
    ])
    #expect(regionResult.status == 64)
    #expect(regionResult.stderr.contains("not an OSS region ID"))
  }

  @Test func theCommandServesOSSWithTheContractsStartUpLine() async throws {
    let emulator = try await EmulatorProcess([
      "--protocol", "oss", "--synthetic", "many=20", "--region", "eu-central-1",
      "--security-token", "tok",
    ])
    defer { emulator.stop() }
    let lines = emulator.output.split(separator: "\n").map(String.init)
    #expect(lines.first == "kodo-emulator listening on " + emulator.baseURL)
    #expect(
      lines.contains { $0.hasPrefix("bucket many: " + emulator.baseURL + "/many (20 objects") })
    #expect(lines.contains("protocol: oss, region eu-central-1, path style"))
    #expect(
      lines.contains(
        "export KODO_PROVIDER=oss OSS_ENDPOINT=\(emulator.baseURL) OSS_REGION=eu-central-1 "
          + "OSS_ACCESS_KEY_ID=\(emulator.accessKey)"))
    #expect(lines.contains("# and OSS_SESSION_TOKEN: the token given with --security-token"))
    #expect(!emulator.output.contains("tok\n"))
  }
}

extension OSSTestClient {
  /// A signed ListObjects of `bucket`, as raw bytes to send.
  func rawListRequest(bucket: String) -> RawHTTPRequest? {
    guard let signer else { return nil }
    let signed = signer.sign(
      OSSRequest(bucket: bucket), at: Self.now, addressing: addressing)
    return RawHTTPRequest(
      method: "GET", target: URLParts(signed.url).pathAndQuery,
      headers: [("Host", emulator.hostHeader)] + signed.headers.fields.map { ($0.name, $0.value) })
  }
}

/// Malformed and odd OSS requests get OSS errors, never a crash or a hang.
@Suite struct OSSMalformedRequestTests {
  @Test func oddTargetsGetOSSAnswers() async throws {
    let configuration = OSSTestClient.configuration([
      .objects("b", [EmulatorObject(key: "k", body: [1])])
    ])
    try await EmulatorHarness.with(configuration) { emulator in
      let cases: [(target: String, status: Int, code: String?)] = [
        ("/b/%zz", 400, "InvalidURI"), ("/b/%", 400, "InvalidURI"), ("/%ff/k", 400, "InvalidURI"),
        ("/b/?max-keys=%", 400, "InvalidURI"), ("/b/k?x=%E4%B8", 400, "InvalidURI"),
        ("/nobucket/", 404, "NoSuchBucket"), ("/b/k", 200, nil), ("/b/k?", 200, nil),
        ("/b//k", 404, "NoSuchKey"),
        ("/b/" + String(repeating: "x", count: 4_000), 404, "NoSuchKey"),
        ("http://\(emulator.hostHeader)/b/k", 200, nil), ("/b/k#fragment", 200, nil),
        ("/b/?encoding-type=xml", 403, "AccessDenied"),
      ]
      for (target, status, code) in cases {
        let response = try await emulator.response(
          to: RawHTTPRequest(
            method: "GET", target: target, headers: [("Host", emulator.hostHeader)]))
        #expect(response.status == status, "\(target): \(response.text)")
        #expect(response.header("x-oss-request-id") != nil, "\(target)")
        if let code { #expect(response.ossError?.code == code, "\(target)") }
      }
      let client = try OSSTestClient(emulator)
      let badEncoding = try await client.send(
        OSSRequest(bucket: "b", query: [OSSQueryItem("encoding-type", "xml")]))
      #expect(badEncoding.status == 400)
      #expect(badEncoding.ossError?.code == "InvalidArgument")
    }
  }
}
