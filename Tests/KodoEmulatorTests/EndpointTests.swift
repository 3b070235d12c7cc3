import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

@Suite struct EndpointTests {
  @Test func regionQueryPointsBackAtTheEmulatorWithoutSignature() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let response = try await emulator.get(
        "/v4/query?ak=\(emulator.credentials.accessKey)&bucket=public", signing: .none)
      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      let host = try #require(try response.json()["hosts"]?.arrayValue?.first)
      #expect(host["region"]?.stringValue == "z0")
      #expect(host["ttl"]?.int64Value == 86_400)
      for service in ["uc", "rs", "rsf", "api", "io", "up"] {
        #expect(host[service]?["domains"]?.strings == [emulator.hostHeader], "\(service)")
      }
      #expect(host["io_src"]?["domains"]?.strings == [emulator.hostHeader + "/dl/public"])

      let missing = try await emulator.get("/v4/query?ak=x&bucket=nope", signing: .none)
      #expect(missing.status == 631)
      #expect(missing.errorMessage == "no such bucket")
    }
  }

  @Test func bucketListsAreSortedAndAcceptGETAndPOST() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      for target in ["/buckets", "/buckets?shared=rd", "/buckets?shared=rw"] {
        let response = try await emulator.get(target)
        #expect(response.status == 200)
        #expect(try response.json().strings == ["public", "secret"])
      }
      let posted = try await emulator.response(to: emulator.request("POST", "/buckets"))
      #expect(try posted.json().strings == ["public", "secret"])

      let v2 = try await emulator.get("/v2/buckets?shared=rd")
      let entries = try #require(try v2.json().arrayValue)
      #expect(entries.map { $0["tbl"]?.stringValue } == ["public", "secret"])
      #expect(entries.map { $0["private"]?.int64Value } == [0, 1])
      #expect(entries.allSatisfy { $0["region"]?.stringValue == "z0" })
      #expect(entries.allSatisfy { $0["perm"]?.int64Value == 0 })
      #expect(entries.allSatisfy { ($0["ctime"]?.int64Value ?? 0) > 1_600_000_000 })
      #expect(entries.allSatisfy { $0["id"]?.stringValue != nil })
    }
  }

  @Test func bucketInfoReportsVisibility() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let secret = try await emulator.response(
        to: emulator.request("POST", "/v2/bucketInfo?bucket=secret"))
      #expect(secret.status == 200)
      let info = try secret.json()
      #expect(info["private"]?.int64Value == 1)
      #expect(info["protected"]?.int64Value == 0)
      #expect(info["region"]?.stringValue == "z0")
      #expect(info["no_index_page"]?.int64Value == 0)
      #expect(info["max_age"]?.int64Value == 0)
      #expect(info["separator"]?.stringValue == "-")
      #expect(info["styles"]?.objectMembers?.isEmpty == true)
      #expect(info["ctime"]?.stringValue?.hasSuffix("Z") == true)
      #expect(
        try await emulator.get("/v2/bucketInfo?bucket=public").json()["private"]?.int64Value == 0)

      let missing = try await emulator.get("/v2/bucketInfo?bucket=nope")
      #expect(missing.status == 631)
      #expect(missing.errorMessage == "no such bucket")
    }
  }

  @Test func domainsAreFullDownloadBaseURLs() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let response = try await emulator.get("/v2/domains?tbl=public")
      #expect(try response.json().strings == ["http://\(emulator.hostHeader)/dl/public"])
      #expect(
        emulator.server.downloadDomain(for: "public") == "http://\(emulator.hostHeader)/dl/public")
      let missing = try await emulator.get("/v2/domains?tbl=nope")
      #expect(missing.status == 631)
    }
  }

  @Test func statReportsEveryFieldTheObjectHas() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let plain = try await emulator.get(EmulatorHarness.statTarget(bucket: "public", key: "a.txt"))
      #expect(plain.status == 200)
      let body = SampleObjects.body(for: "a.txt")
      #expect(
        plain.text
          == "{\"fsize\":\(body.count),\"hash\":\"\(QETag.hash(of: body))\","
          + "\"mimeType\":\"text/plain\",\"putTime\":17040672000000000,\"type\":0}")

      let full = try await emulator.response(
        to: emulator.request(
          "POST", EmulatorHarness.statTarget(bucket: "public", key: "x/full.jpg")))
      let stat = try full.json()
      #expect(stat["fsize"]?.int64Value == 100)
      #expect(stat["mimeType"]?.stringValue == "image/jpeg")
      #expect(stat["putTime"]?.int64Value == 13_603_956_734_587_420)
      #expect(stat["type"]?.int64Value == 2)
      #expect(stat["status"] == nil)
      #expect(stat["md5"]?.stringValue == "0123456789abcdef0123456789abcdef")
      #expect(stat["endUser"]?.stringValue == "alice")
      #expect(stat["x-qn-meta"]?["a-key"]?.stringValue == "一")
      #expect(stat["x-qn-meta"]?["b-key"]?.stringValue == "two")
      #expect(stat["restoreStatus"]?.int64Value == 2)
      #expect(stat["lastModify"]?.int64Value == 13_603_956_744_587_420)
      #expect(stat["expiration"]?.int64Value == 1_700_000_000)
      #expect(stat["transitionToIA"]?.int64Value == 1_600_000_000)
      #expect(stat["transitionToArchiveIR"]?.int64Value == 1_600_086_400)
      #expect(stat["transitionToARCHIVE"]?.int64Value == 1_600_172_800)
      #expect(stat["transitionToDeepArchive"]?.int64Value == 1_600_259_200)

      let disabled = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "public", key: "x/disabled.bin"))
      #expect(try disabled.json()["status"]?.int64Value == 1)

      // A key that starts with a combining mark (it joins the colon into one Character).
      let combining = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "public", key: "\u{301}starts-with-a-combining-mark"))
      #expect(combining.status == 200)
      let chinese = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "public", key: "中文/文件.txt"))
      #expect(chinese.status == 200)
    }
  }

  @Test func statErrors() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let noKey = try await emulator.get(EmulatorHarness.statTarget(bucket: "public", key: "nope"))
      #expect(noKey.status == 612)
      #expect(noKey.text == "{\"error\":\"no such file or directory\"}")
      let noBucket = try await emulator.get(
        EmulatorHarness.statTarget(bucket: "nope", key: "a.txt"))
      #expect(noBucket.status == 631)
      #expect(noBucket.text == "{\"error\":\"no such bucket\"}")
      // Bad base64, a bad escape, no key, not UTF-8.
      for entry in ["!!!", "%zz", "cHVibGlj", "_w=="] {
        let bad = try await emulator.get("/stat/" + entry)
        #expect(bad.status == 400, "\(entry)")
        #expect(bad.text == "{\"error\":\"invalid argument\"}", "\(entry)")
      }
      let emptyKey = try await emulator.get(EmulatorHarness.statTarget(bucket: "public", key: ""))
      #expect(emptyKey.status == 612)
    }
  }

  @Test func qiniuAndQBoxSignaturesAreBothAccepted() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      for signing in [EmulatorHarness.Signing.qiniu, .qiniuWithoutDate, .qbox] {
        let response = try await emulator.get("/buckets", signing: signing)
        #expect(response.status == 200, "\(signing)")
      }
      // Without a content type, and with a signed form body (the body is part of both schemes).
      let noType = emulator.request("GET", "/buckets", contentType: nil)
      #expect(try await emulator.response(to: noType).status == 200)
      for signing in [EmulatorHarness.Signing.qiniu, .qbox] {
        let form = emulator.request(
          "POST", "/v2/bucketInfo?bucket=public", signing: signing, body: Array("x=1".utf8))
        #expect(try await emulator.response(to: form).status == 200, "\(signing)")
      }
    }
  }

  @Test func badTokens() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let unsigned = try await emulator.get("/buckets", signing: .none)
      #expect(unsigned.status == 401)
      #expect(unsigned.text == "{\"error\":\"bad token\"}")

      let wrongSecret = Credentials(accessKey: emulator.credentials.accessKey, secretKey: "wrong")
      let unknownKey = Credentials(accessKey: "someone-else", secretKey: "kodo-emulator-secret-key")
      for credentials in [wrongSecret, unknownKey] {
        for signing in [EmulatorHarness.Signing.qiniu, .qbox] {
          let request = emulator.request(
            "GET", "/buckets", signing: signing, credentials: credentials)
          let response = try await emulator.response(to: request)
          #expect(response.status == 401)
          #expect(response.errorMessage == "bad token")
        }
      }

      // A signature over one target does not authorise another.
      var tampered = emulator.request("GET", "/list?bucket=public&limit=1")
      tampered.target = "/list?bucket=public&limit=2"
      #expect(try await emulator.response(to: tampered).status == 401)
      // Nor over another method, or with a header changed after signing.
      var otherMethod = emulator.request("GET", "/buckets")
      otherMethod.method = "POST"
      #expect(try await emulator.response(to: otherMethod).status == 401)
      var otherDate = emulator.request("GET", "/buckets")
      otherDate.headers = otherDate.headers.map {
        $0.0 == "X-Qiniu-Date"
          ? ($0.0, RequestSigning.qiniuDate(Date().addingTimeInterval(60))) : $0
      }
      #expect(try await emulator.response(to: otherDate).status == 401)
      let garbage = RawHTTPRequest(
        target: "/buckets", headers: [("Host", emulator.hostHeader), ("Authorization", "Bearer x")])
      #expect(try await emulator.response(to: garbage).status == 401)
    }
  }

  @Test func skewedDatesAreRejected() async throws {
    let fast = SampleObjects.configuration(clock: WallClock.system.offset(by: 3_600))
    try await EmulatorHarness.with(fast) { emulator in
      let skewed = try await emulator.get("/buckets")
      #expect(skewed.status == 403)
      #expect(skewed.text == "{\"error\":\"request time too skewed\"}")
      // A request dated by the emulator's clock, or with no date, passes.
      let inStep = try await emulator.get(
        "/buckets", signing: .qiniu(date: Date().addingTimeInterval(3_600)))
      #expect(inStep.status == 200)
      #expect(try await emulator.get("/buckets", signing: .qiniuWithoutDate).status == 200)
      // 14 minutes off is within the 15-minute window.
      let close = try await emulator.get(
        "/buckets", signing: .qiniu(date: Date().addingTimeInterval(3_600 - 840)))
      #expect(close.status == 200)
      // A date that does not parse counts as skewed.
      let unparseable = emulator.request(
        "GET", "/buckets", signing: .qiniuWithoutDate, headers: [("X-Qiniu-Date", "yesterday")])
      #expect(try await emulator.response(to: unparseable).status == 403)
      // A bad signature is reported as such, before the date is looked at.
      let bad = emulator.request(
        "GET", "/buckets",
        credentials: Credentials(accessKey: "kodo-emulator-access-key", secretKey: "x"))
      #expect(try await emulator.response(to: bad).status == 401)
    }
  }

  @Test func everyResponseCarriesReqidDateAndJSONType() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let requests: [RawHTTPRequest] = [
        emulator.request("GET", "/buckets"),
        emulator.request("GET", "/buckets", signing: .none),
        emulator.request("GET", "/v4/query?bucket=nope", signing: .none),
        emulator.request("GET", "/list?bucket=public&limit=0"),
        emulator.request("GET", "/nowhere"),
        emulator.request("PUT", "/buckets"),
        emulator.request("GET", "/dl/public/a.txt", signing: .none),
        emulator.request("GET", "/dl/public/missing", signing: .none),
        emulator.request("GET", "/dl/secret/a.txt", signing: .none),
        emulator.request("GET", "/_emulator/stats", signing: .none),
        emulator.request("GET", "/_emulator/nothing", signing: .none),
      ]
      var reqids = Set<String>()
      for request in requests {
        let response = try await emulator.response(to: request)
        let reqid = try #require(response.header("X-Reqid"), "\(request.target)")
        #expect(reqid.count == 16)
        reqids.insert(reqid)
        #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        if request.target != "/dl/public/a.txt" {
          #expect(response.header("Content-Type") == "application/json", "\(request.target)")
          #expect((try? response.json()) != nil, "\(request.target)")
        }
      }
      #expect(reqids.count == requests.count)
    }
  }

  @Test func dateHeaderFollowsTheEmulatorClock() async throws {
    let fixed = SampleObjects.configuration(clock: .fixed(unixSeconds: 784_111_777))
    try await EmulatorHarness.with(fixed) { emulator in
      let response = try await emulator.get("/v4/query?bucket=public", signing: .none)
      #expect(response.header("Date") == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
  }

  @Test func unknownPathsAndMethods() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let unknown = try await emulator.get("/v3/nothing")
      #expect(unknown.status == 404)
      #expect(unknown.errorMessage == "no such API")
      let put = try await emulator.response(to: emulator.request("PUT", "/list?bucket=public"))
      #expect(put.status == 405)
      let postQuery = try await emulator.response(
        to: emulator.request("POST", "/v4/query?bucket=public"))
      #expect(postQuery.status == 405)
      let tooLarge = try await emulator.response(
        to: emulator.request(
          "POST", "/buckets", body: Array(repeating: 0x61, count: 1_048_577)))
      #expect(tooLarge.status == 413)
    }
  }
}
