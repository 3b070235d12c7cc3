import Foundation
import KodoTestSupport
import Testing

/// `kodo token` signs through the provider's token capability, and words the library's typed
/// hint itself: the library names no flag, the message is the one the command always gave.
@Suite("Token commands through the provider's capability")
struct TokenCapabilityTests {
  @Test(arguments: ["scope", "deadline"])
  func aPolicyFieldFromTheArgumentsIsNamedWithTheFlags(_ field: String) async throws {
    let kodo = try BadInputTests.kodo()
    let result = try await kodo.run(["token", "upload", "--policy", "{\"\(field)\":1}", "b"])
    expectFailure(result, status: 65)
    #expect(
      result.stderr.contains(
        "kodo: error: the put policy sets \"\(field)\"; give it as an argument (BUCKET[:KEY], --deadline or --expires) instead\n"
      ), "\(result)")
  }

  @Test func qboxAndQiniuStillSignWithTheConfiguredCredentials() async throws {
    let kodo = try BadInputTests.kodo()
    let qbox = try await kodo.run(["token", "qbox", "https://uc.qiniuapi.com/buckets"])
    #expect(qbox.status == 0, "\(qbox)")
    #expect(qbox.stdout.hasPrefix("QBox "), "\(qbox)")
    let qiniu = try await kodo.run([
      "token", "qiniu", "--no-date", "https://rs-z0.qiniuapi.com/stat/bXktYnVja2V0OmEudHh0",
    ])
    #expect(qiniu.status == 0, "\(qiniu)")
    #expect(qiniu.stdout.hasPrefix("Qiniu "), "\(qiniu)")
    let bad = try await kodo.run(["token", "qbox", "ftp://example/x"])
    expectFailure(bad, status: 65, containing: "expected an http:// or https:// URL")
  }
}
