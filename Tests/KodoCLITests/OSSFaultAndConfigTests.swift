import Foundation
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// OSS faults (retries, clock skew, interrupted downloads, a bad CRC-64), STS credentials,
/// secrets kept out of every output, and how the provider is chosen and configured.
@Suite("kodo on OSS: faults, STS, secrets and configuration", .serialized)
struct OSSFaultAndConfigTests {
  let env: OSSEnvironment

  init() async throws { env = try await OSSEnvironment.forFaults.value }

  @Test func retryableFailuresAreRetriedAndASkewedClockIsCorrected() async throws {
    try await env.emulator.scheduleFault(endpoint: "list", mode: "status", count: 2, status: 503)
    let retried = try await env.run(["ls", "photos"])
    #expect(retried.status == 0, "\(retried)")
    try await env.emulator.scheduleFault(endpoint: "list", mode: "skewed-date", count: 2)
    let skewed = try await env.run(["ls", "-v", "photos"])
    #expect(skewed.status == 0, "\(skewed)")
    #expect(skewed.stderr.contains("403"), "the skewed answer was seen: \(skewed)")
    #expect(skewed.stderr.contains("signing with the service's time"), "\(skewed)")
    try await env.emulator.scheduleFault(endpoint: "list", mode: "status", count: 5, status: 503)
    let exhausted = try await env.run(["ls", "--retries", "2", "photos"])
    expectFailure(exhausted, status: 75)
    try await env.emulator.clearFaults()
  }

  /// With a third of the requests failing (5xx, 429-like or dropped), a paged listing and a
  /// download still come out exact: every failure is retried.
  @Test func aFailRateIsRetriedThrough() async throws {
    let flaky = try await EmulatorProcess([
      "--protocol", "oss", "--synthetic", "many=600", "--fail-rate", "0.3", "--seed", "5",
    ])
    defer { flaky.stop() }
    let kodo = env.runner(for: flaky)
    let listed = try await kodo.run([
      "ls", "-r", "-0", "--page-size", "50", "--retries", "10", "many",
    ])
    #expect(listed.status == 0, "\(listed)")
    let keys = listed.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(keys.count == 600 && Set(keys).count == 600)
    #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    let stats = try await flaky.stats()
    #expect((stats["faults"] ?? 0) > 0, "the fail rate failed some requests: \(stats)")
  }

  /// A download cut short after some bytes reached a pipe resumes with a Range from where it
  /// stopped (`x-oss-range-behavior: standard`), so the output is the object exactly once.
  @Test func anInterruptedCatResumesWhereItStopped() async throws {
    let bytes = try #require(OSSEnvironment.photos["big/three-mib.bin"])
    try await env.emulator.scheduleFault(endpoint: "download", mode: "short-body")
    let cat = try await env.run(["cat", "-v", "photos", "big/three-mib.bin"])
    #expect(cat.status == 0, "\(cat)")
    #expect(cat.stdoutBytes == bytes)
    try await env.emulator.clearFaults()
  }

  /// A whole-object `cat` checks the CRC-64 HeadObject gave as the bytes stream: a body changed
  /// on its way (same length) is 76, as for `get`, after the bytes went out. A range is of part
  /// of the object only and cannot be checked: it passes.
  @Test func catRefusesABodyWhoseCRC64DiffersFromTheStat() async throws {
    let key = "big/three-mib.bin"
    let bytes = try #require(OSSEnvironment.photos[key])
    try await env.emulator.scheduleFault(endpoint: "download", mode: "corrupt-body")
    let cat = try await env.run(["cat", "photos", key])
    expectFailure(cat, status: 76, containing: "CRC-64", stdoutEmpty: false)
    #expect(cat.stderr.contains("stdout"), "\(cat.stderr)")
    #expect(cat.stdoutBytes.count == bytes.count && cat.stdoutBytes != bytes)
    try await env.emulator.scheduleFault(endpoint: "download", mode: "corrupt-body")
    let ranged = try await env.run(["cat", "--range", "0-9", "photos", key])
    #expect(ranged.status == 0, "\(ranged)")
    #expect(ranged.stdoutBytes.count == 10 && ranged.stdoutBytes != Array(bytes.prefix(10)))
    try await env.emulator.clearFaults()
    let clean = try await env.run(["cat", "photos", key])
    #expect(clean.status == 0, "\(clean)")
    #expect(clean.stdoutBytes == bytes)
  }

  /// `get` checks the CRC-64 HeadObject gave: a body with other bytes of the same length is 76,
  /// and nothing is left under the destination name.
  @Test func getRefusesABodyWhoseCRC64DiffersFromTheStat() async throws {
    let body = Array("same length, other bytes".utf8)
    let script: ScriptedHTTPServer.Script = { request in
      var headers: HTTPHeaders = [
        "x-oss-request-id": "scripted", "Last-Modified": "Mon, 02 Jun 2025 10:00:00 GMT",
        "ETag": "\"0123456789ABCDEF0123456789ABCDEF\"", "Content-Type": "text/plain",
        "x-oss-hash-crc64ecma": String(CRC64.checksum(Array("the object's real bytes!".utf8))),
      ]
      if request.method == "HEAD" {
        headers.add("Content-Length", String(body.count))
        return .respond(ScriptedHTTPServer.Response(status: 200, headers: headers, body: []))
      }
      return .respond(ScriptedHTTPServer.Response(status: 200, headers: headers, body: body))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "kodo-oss-crc-\(UUID())"
      ).path
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let result = try await env.run(
        ["get", "photos", "k.txt", "-o", directory + "/k.txt"],
        environment: ["OSS_ENDPOINT": server.baseURL])
      expectFailure(result, status: 76, containing: "CRC-64")
      #expect(!FileManager.default.fileExists(atPath: directory + "/k.txt"))
    }
  }

  /// stat's JSON on OSS: every field the contract lists, from HeadObject's headers.
  @Test func statJSONCarriesEveryOSSField() async throws {
    let script: ScriptedHTTPServer.Script = { _ in
      let headers: HTTPHeaders = [
        "x-oss-request-id": "scripted", "Last-Modified": "Mon, 02 Jun 2025 10:00:00 GMT",
        "ETag": "\"5EB63BBBE01EEED093CB22BB8F5ACDC3\"", "Content-Type": "text/plain",
        "Content-Length": "11", "Content-MD5": "XrY7u+Ae7tCTyyK7j1rNww==",
        "x-oss-hash-crc64ecma": "5981764153023615706", "x-oss-object-type": "Appendable",
        "x-oss-storage-class": "ColdArchive", "x-oss-meta-author": "Zhang San",
        "x-oss-restore": "ongoing-request=\"true\"",
      ]
      return .respond(ScriptedHTTPServer.Response(status: 200, headers: headers, body: []))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let result = try await env.run(
        ["stat", "--json", "photos", "k.txt"], environment: ["OSS_ENDPOINT": server.baseURL])
      #expect(result.status == 0, "\(result)")
      let record = try #require(try OSSEnvironment.jsonLines(result).first)
      #expect(record["etag"] as? String == "5EB63BBBE01EEED093CB22BB8F5ACDC3")
      #expect(record["md5"] as? String == "5eb63bbbe01eeed093cb22bb8f5acdc3")
      #expect(record["crc64"] as? String == "5981764153023615706")
      #expect(record["objectType"] as? String == "appendable")
      #expect(record["storageClass"] as? String == "cold_archive")
      #expect(record["mimeType"] as? String == "text/plain")
      #expect((record["meta"] as? [String: String]) == ["author": "Zhang San"])
      #expect(record["restoreStatus"] as? String == "restoring")
      #expect(record["putTime"] as? String == "2025-06-02T10:00:00Z")
      #expect(record["hash"] == nil && record["status"] == nil)
    }
  }

  /// An answer that is not OSS's XML is 76; a HEAD refusal names OSS's code from `x-oss-err`.
  @Test func unreadableAnswersAre76AndHeadErrorsNameTheirCode() async throws {
    let error = Data(
      "<Error><Code>AccessDenied</Code><Message>no</Message><RequestId>R9</RequestId></Error>".utf8
    ).base64EncodedString()
    let script: ScriptedHTTPServer.Script = { request in
      if request.method == "HEAD" {
        return .respond(
          ScriptedHTTPServer.Response(
            status: 403, headers: ["x-oss-request-id": "R9", "x-oss-err": error], body: []))
      }
      return .respond(.text("<html>not OSS</html>", headers: ["x-oss-request-id": "R8"]))
    }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let listing = try await env.run(
        ["ls", "photos"], environment: ["OSS_ENDPOINT": server.baseURL])
      expectFailure(listing, status: 76, containing: "R8")
      let stat = try await env.run(
        ["stat", "photos", "k"], environment: ["OSS_ENDPOINT": server.baseURL])
      expectFailure(stat, status: 77, containing: "AccessDenied")
      #expect(stat.stderr.contains("request id R9"), "\(stat)")
    }
  }

  /// STS: the token is sent (the emulator insists on it), and never shown, not even with -v.
  @Test func stsCredentialsWorkAndTheTokenAndSecretAreNeverPrinted() async throws {
    let token = "sts-token-\(UUID().uuidString)"
    let sts = try await EmulatorProcess([
      "--protocol", "oss", "--security-token", token, "--synthetic", "many=30",
    ])
    defer { sts.stop() }
    let without = try await env.runner(for: sts).run(["ls", "many"])
    expectFailure(without, status: 77)
    let withToken = env.runner(for: sts, token: token)
    let first = try await withToken.run(["ls", "-r", "-0", "--limit", "1", "many"])
    #expect(first.status == 0, "\(first)")
    let key = String(decoding: first.stdoutBytes.prefix { $0 != 0 }, as: UTF8.self)
    for arguments in [
      ["-v", "buckets"], ["-v", "ls", "-r", "many"],
      ["-v", "stat", "many", key],
      ["-v", "cat", "many", key], ["-v", "domains", "many"],
    ] {
      let result = try await withToken.run(arguments)
      #expect(
        result.status == 0 || arguments.contains("stat") || arguments.contains("cat"), "\(result)")
      let everything = result.stdout + result.stderr
      #expect(!everything.contains(token), "\(arguments)")
      #expect(!everything.contains(sts.secretKey), "\(arguments)")
    }
    let url = try await withToken.run(["-v", "url", "many", key])
    #expect(url.status == 0, "\(url)")
    #expect(!url.stderr.contains(token) && !url.stdout.contains(sts.secretKey))
    #expect(url.stdout.contains("x-oss-security-token="), "the link carries the token it needs")
  }

  @Test func theProviderComesFromTheSchemeFlagEnvironmentOrFile() async throws {
    // A scheme picks OSS even without KODO_PROVIDER.
    let scheme = try await env.run(["ls", "oss://photos/dir/"], environment: ["KODO_PROVIDER": ""])
    #expect(scheme.status == 0, "\(scheme)")
    #expect(scheme.lines.count == 3, "\(scheme)")
    let conflict = try await env.run(["ls", "--provider", "kodo", "oss://photos"])
    expectFailure(conflict, status: 64, containing: "--provider")
    let badFlag = try await env.run(["ls", "--provider", "s3", "photos"])
    expectFailure(badFlag, status: 64)
    let badVariable = try await env.run(["ls", "photos"], environment: ["KODO_PROVIDER": "s3"])
    expectFailure(badVariable, status: 78, containing: "KODO_PROVIDER")
    // The file's provider, from the profile over the top level.
    let profile = try await env.run(
      config: #"{"provider":"kodo","profiles":{"ali":{"provider":"oss","region":"cn-hangzhou"}}}"#,
      ["ls", "--profile", "ali", "photos/dir/"], environment: ["KODO_PROVIDER": ""])
    #expect(profile.status == 0, "\(profile)")
    // A Kodo top level with hosts does not spoil an OSS profile.
    let mixed = try await env.run(
      config:
        #"{"hosts":{"uc":"http://127.0.0.1:1"},"profiles":{"ali":{"provider":"oss","region":"cn-hangzhou"}}}"#,
      ["ls", "--profile", "ali", "photos/dir/"], environment: ["KODO_PROVIDER": ""])
    #expect(mixed.status == 0, "\(mixed)")
    // Keys that mean nothing to the chosen provider name themselves.
    let hosts = try await env.run(
      config: #"{"provider":"oss","hosts":{"uc":"http://127.0.0.1:1"}}"#, ["ls", "photos"])
    expectFailure(hosts, status: 78, containing: "\"hosts\"")
    let region = try await env.run(
      config: #"{"region":"cn-hangzhou"}"#, ["ls", "photos"], environment: ["KODO_PROVIDER": "kodo"]
    )
    expectFailure(region, status: 78, containing: "\"region\"")
    let version = try await env.run(config: #"{"signatureVersion":"v3"}"#, ["ls", "photos"])
    expectFailure(version, status: 78, containing: "signatureVersion")
    let token = try await env.run(["token", "qbox", "http://example.com/"])
    expectFailure(token, status: 64, containing: "Kodo's")
    let noCredentials = try await env.run(
      ["ls", "photos"], environment: ["OSS_ACCESS_KEY_SECRET": ""])
    expectFailure(noCredentials, status: 78, containing: "OSS_ACCESS_KEY_SECRET")
  }

  /// The emulator's export line, run by a shell, is all kodo needs.
  @Test func theEmulatorsExportLineWorksAsPrinted() async throws {
    let line = try #require(
      env.emulator.output.split(separator: "\n").first { $0.hasPrefix("export KODO_PROVIDER=oss") })
    // The emulator was given its secret, so the line leaves it out and says so.
    let kodo = CLIRunner("kodo", environment: ["OSS_ACCESS_KEY_SECRET": env.emulator.secretKey])
    let result = try await kodo.runShell(
      "unset KODO_CONFIG; " + line + "\n\"$KODO\" ls --json photos/dir/")
    #expect(result.status == 0, "\(result)")
    #expect(result.lines.count == 3, "\(result)")
  }
}
