import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import PropertyBased
import StorageCore
import Testing

@Suite("OSS signing and verification")
struct SigningTests {
  static let credentials = Credentials(
    accessKey: "LTAI5tExampleAccessKeyId", secretKey: "ExampleAccessKeySecret0123456789abc")
  static let sts = Credentials(
    accessKey: "STS.AK", secretKey: "sts-secret",
    securityToken: "CAISexampleSTS+token/with=base64chars")
  static let emulator = OSSAddressing(endpoint: try! OSSEndpoint("http://127.0.0.1:9000"))
  static let now: Int64 = 1_700_000_000

  static func verifier(_ credentials: Credentials...) -> OSSVerifier {
    OSSVerifier(region: "cn-hangzhou") { accessKey in
      credentials.first { $0.accessKey == accessKey }
    }
  }

  /// What a server receives for a signed request: its path-style target and headers.
  static func received(_ signed: OSSSignedRequest) -> OSSIncomingRequest? {
    let parts = URLParts(signed.url)
    return OSSIncomingRequest(
      method: signed.method, pathStyleTarget: parts.pathAndQuery, headers: signed.headers)
  }

  static func verify(
    _ signed: OSSSignedRequest, _ verifier: OSSVerifier, at time: Int64 = now
  ) -> Result<String?, OSSVerificationFailure> {
    guard let request = received(signed) else {
      return .failure(OSSVerificationFailure(400, "Undecodable", signed.url))
    }
    return Result { () throws(OSSVerificationFailure) in try verifier.verify(request, now: time) }
  }

  /// A random request: hostile key, signed and unsigned parameters, metadata headers.
  static func randomRequest(_ rng: inout Xoshiro) -> OSSRequest {
    var request = OSSRequest(
      method: rng.element(["GET", "HEAD"]), bucket: rng.below(8) == 0 ? nil : "examplebucket",
      key: rng.hostileKey())
    if request.bucket == nil { request.key = "" }
    let names = [
      "prefix", "marker", "continuation-token", "versionId", "response-content-disposition",
      "x-oss-process", "encoding-type", "+odd", "|odd", "a b", "objectMeta",
    ]
    for _ in 0..<rng.below(4) {
      let value: String? = rng.below(4) == 0 ? nil : rng.hostileKey(pieces: 4)
      request.query.append(OSSQueryItem(rng.element(names), value))
    }
    if rng.below(2) == 0 { request.headers.add("x-oss-meta-Author", "  alice ") }
    if rng.below(3) == 0 { request.headers.add("Content-Type", "text/plain") }
    if rng.below(3) == 0 { request.headers.add("Range", "bytes=0-99") }
    if rng.below(3) == 0 { request.headers.add("x-oss-range-behavior", "standard") }
    return request
  }

  @Test func everySignedRequestVerifies() async {
    await seededCheck(
      count: iterations(200),
      input: randomInput { rng in
        (
          Self.randomRequest(&rng), rng.element(OSSSigner.Version.allCases), rng.below(2) == 0,
          rng.below(2) == 0, Int64(1 + rng.below(604_800)), rng.below(2) == 0
        )
      }
    ) { input in
      let (request, version, presigned, temporary, expiresIn, encodeSlashes) = input
      let credentials = temporary ? Self.sts : Self.credentials
      let signer = try! OSSSigner(credentials: credentials, version: version, region: "cn-hangzhou")
      let signed =
        presigned
        ? try! signer.presign(
          request, at: Self.now, expiresIn: expiresIn, addressing: Self.emulator,
          encodeSlashes: encodeSlashes)
        : signer.sign(
          request, at: Self.now, addressing: Self.emulator, encodeSlashes: encodeSlashes)
      let verifier = Self.verifier(credentials)
      #expect(Self.received(signed)?.key == request.key)
      let verified = Self.verify(signed, verifier)
      #expect((try? verified.get()) == credentials.accessKey, "\(signed.url) \(verified)")
      // The same request for another key, or signed by another secret, does not verify.
      var other = signed
      other.url = signed.url.replacingOccurrences(of: "/examplebucket/", with: "/examplebucket/x")
      if other.url != signed.url {
        #expect(throws: OSSVerificationFailure.self) { try Self.verify(other, verifier).get() }
      }
      let impostor = Credentials(
        accessKey: credentials.accessKey, secretKey: "wrong",
        securityToken: credentials.securityToken)
      #expect(throws: OSSVerificationFailure.self) {
        try Self.verify(signed, Self.verifier(impostor)).get()
      }
    }
  }

  @Test func aKeyThatStartsWithACombiningMarkIsStillAKey() {
    let request = OSSIncomingRequest(method: "GET", pathStyleTarget: "/b/%CC%81x", headers: [:])
    #expect(request?.bucket == "b")
    #expect(request?.key == "\u{301}x")
  }

  @Test func theVerifierRefusesAsOSSDoes() throws {
    let signer = try OSSSigner(credentials: Self.credentials, region: "cn-hangzhou")
    let request = OSSRequest(bucket: "examplebucket", key: "a b+c")
    let verifier = Self.verifier(Self.credentials)
    func code(_ signed: OSSSignedRequest, _ verifier: OSSVerifier, at time: Int64 = Self.now)
      -> String?
    {
      if case .failure(let failure) = Self.verify(signed, verifier, at: time) {
        return failure.code
      }
      return nil
    }
    let header = signer.sign(request, at: Self.now, addressing: Self.emulator)
    #expect(code(header, verifier, at: Self.now + 900) == nil)
    #expect(code(header, verifier, at: Self.now + 901) == "RequestTimeTooSkewed")
    #expect(code(header, verifier, at: Self.now - 901) == "RequestTimeTooSkewed")
    #expect(code(header, Self.verifier(Self.sts)) == "InvalidAccessKeyId")
    let elsewhere = OSSVerifier(region: "cn-beijing") { _ in Self.credentials }
    #expect(code(header, elsewhere) == "InvalidArgument")
    let link = try signer.presign(request, at: Self.now, expiresIn: 60, addressing: Self.emulator)
    #expect(code(link, verifier, at: Self.now + 60) == nil)
    #expect(code(link, verifier, at: Self.now + 61) == "AccessDenied")
    let v1 = try OSSSigner(credentials: Self.credentials, version: .v1, region: "cn-hangzhou")
    let v1Link = try v1.presign(request, at: Self.now, expiresIn: 60, addressing: Self.emulator)
    #expect(code(v1Link, verifier, at: Self.now + 61) == "AccessDenied")
    // A token is required when the server expects one.
    let plain = Credentials(accessKey: Self.sts.accessKey, secretKey: "sts-secret")
    let unsigned = try OSSSigner(credentials: plain, region: "cn-hangzhou")
      .sign(request, at: Self.now, addressing: Self.emulator)
    #expect(code(unsigned, Self.verifier(Self.sts)) == "InvalidSecurityToken")
    // The mismatch names the server's string to sign, for the error body.
    var tampered = header
    tampered.headers.set("x-oss-meta-extra", "1")
    if case .failure(let failure) = Self.verify(tampered, verifier) {
      #expect(failure.code == "SignatureDoesNotMatch")
      #expect(failure.canonicalRequest?.contains("x-oss-meta-extra:1") == true)
      #expect(failure.stringToSign?.hasPrefix("OSS4-HMAC-SHA256\n20231114T221320Z\n") == true)
    } else {
      Issue.record("a tampered request verified")
    }
    // Anonymous requests are not refused here: the bucket's ACL decides.
    let anonymous = OSSSignedRequest(
      method: "GET", url: "http://127.0.0.1:9000/examplebucket/k", headers: [:], stringToSign: "")
    #expect(try Self.verify(anonymous, verifier).get() == nil)
  }

  @Test func presignedLifetimes() throws {
    let v4 = try OSSSigner(credentials: Self.credentials, region: "oss-cn-hangzhou")
    #expect(v4.region == "cn-hangzhou")
    let request = OSSRequest(bucket: "examplebucket", key: "k")
    let week = try v4.presign(request, at: Self.now, expiresIn: 604_800, addressing: Self.emulator)
    #expect(week.url.contains("x-oss-expires=604800"))
    for bad: Int64 in [0, -1, 604_801, .max] {
      #expect(throws: StorageError.self) {
        try v4.presign(request, at: Self.now, expiresIn: bad, addressing: Self.emulator)
      }
    }
    let v1 = try OSSSigner(credentials: Self.credentials, version: .v1, region: "cn-hangzhou")
    let year = try v1.presign(
      request, at: Self.now, expiresIn: 31_536_000, addressing: Self.emulator)
    #expect(year.url.contains("Expires=1731536000"))
    #expect(throws: StorageError.self) {
      try v1.presign(request, at: .max - 10, expiresIn: 60, addressing: Self.emulator)
    }
    #expect(throws: StorageError.self) {
      try OSSSigner(credentials: Self.credentials, region: "beijing")
    }
  }

  @Test func signaturesAndTokensNeverAppearInMessagesOrDescriptions() throws {
    let signer = try OSSSigner(credentials: Self.sts, region: "cn-hangzhou")
    let signed = signer.sign(
      OSSRequest(bucket: "examplebucket", key: "k"), at: Self.now, addressing: Self.emulator)
    #expect(!"\(Self.sts)".contains("sts-secret"))
    #expect(!"\(Self.sts)".contains("CAIS"))
    // The redaction the pipeline's verbose log uses keeps the scheme and nothing secret.
    let redacted = RequestEvent.redactAuthorization(signed.headers["Authorization"] ?? "")
    #expect(redacted == "OSS4-HMAC-SHA256 <redacted>")
  }

  @Test func signingKeysAreDerivedPerDayAndRegion() throws {
    let signer = try OSSSigner(credentials: Self.credentials, region: "cn-hangzhou")
    let request = OSSRequest(bucket: "examplebucket", key: "k")
    let first = signer.sign(request, at: Self.now, addressing: Self.emulator)
    let again = signer.sign(request, at: Self.now, addressing: Self.emulator)
    let nextDay = signer.sign(request, at: Self.now + 86_400, addressing: Self.emulator)
    #expect(first.headers["Authorization"] == again.headers["Authorization"])
    #expect(nextDay.headers["Authorization"]?.contains("/20231115/cn-hangzhou/") == true)
    #expect(first.headers["Authorization"] != nextDay.headers["Authorization"])
    // Concurrent signers share the cache safely and agree.
    let signatures = Set(
      (0..<200).map { _ in signer.sign(request, at: Self.now, addressing: Self.emulator) }
        .map { $0.headers["Authorization"] ?? "" })
    #expect(signatures.count == 1)
  }
}
