import Foundation
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

@Suite("Official OSS vectors")
struct VectorTests {
  @Test func theFixtureIsLoadedAndMatchesShared() throws {
    #expect(OSSVector.all.count == 129)
    #expect(OSSVector.all.filter(\.isRequired).count == 125)
    let shared = Fixtures.repositoryRoot.deletingLastPathComponent()
      .appendingPathComponent("shared/vectors/oss-vectors.json")
    if let sharedText = try? String(contentsOf: shared, encoding: .utf8) {
      #expect(
        try Fixtures.text("oss-vectors.json") == sharedText,
        "Tests/Fixtures/oss-vectors.json differs from ../shared/vectors; copy it again")
    }
  }

  @Test(arguments: OSSVector.required("header_v1"))
  func headerV1(_ vector: OSSVector) {
    #expect(OSSVectorCheck.mismatches(vector) == [])
  }

  @Test(arguments: OSSVector.required("header_v4"))
  func headerV4(_ vector: OSSVector) {
    #expect(OSSVectorCheck.mismatches(vector) == [])
  }

  @Test(arguments: OSSVector.required("presign_v1"))
  func presignV1(_ vector: OSSVector) {
    #expect(OSSVectorCheck.mismatches(vector) == [])
  }

  @Test(arguments: OSSVector.required("presign_v4"))
  func presignV4(_ vector: OSSVector) {
    #expect(OSSVectorCheck.mismatches(vector) == [])
  }

  @Test(arguments: OSSVector.required("crc64"))
  func crc64(_ vector: OSSVector) {
    #expect(OSSVectorCheck.mismatches(vector) == [])
  }

  /// The informative vectors show SDK quirks not to copy: they are run, and exactly the known
  /// ones differ, for the known reasons.
  @Test func informativeVectorsDifferOnlyWhereKnown() {
    var differing: [String: [String]] = [:]
    for vector in OSSVector.informative {
      let mismatches = OSSVectorCheck.mismatches(vector)
      if !mismatches.isEmpty { differing[vector.id] = mismatches }
    }
    // The v2 Python SDK 1.4.1 sends an STS token as an unsigned header named `security-token`;
    // the documented rule (and oss2, and the Go SDK) signs `x-oss-security-token`.
    #expect(Set(differing.keys) == ["v2-v1-get-sts"], "\(differing)")
    let signed = try? OSSVectorCheck.signer(OSSVector.all.first { $0.id == "v2-v1-get-sts" }!)
      .sign(
        OSSRequest(bucket: "examplebucket", key: "hello.txt"), at: 1_700_000_000,
        addressing: OSSAddressing(endpoint: try! OSSEndpoint(region: "cn-hangzhou")))
    #expect(signed?.stringToSign.contains("\nx-oss-security-token:CAISexampleSTS+") == true)
    #expect(signed?.headers["security-token"] == nil)
  }
}
