import Foundation
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// Every command on OSS, against `kodo-emulator --protocol oss` over loopback, configured by the
/// environment alone.
@Suite("kodo on OSS against kodo-emulator --protocol oss", .serialized)
struct OSSCommandTests {
  let env: OSSEnvironment

  init() async throws { env = try await OSSEnvironment.get() }

  @Test func bucketsAndOneLevelWithFoldersFirst() async throws {
    let buckets = try await env.run(["buckets", "--json"])
    #expect(buckets.status == 0, "\(buckets)")
    let names = try OSSEnvironment.jsonLines(buckets).compactMap { $0["name"] as? String }
    #expect(names == ["many", "photos", "vault"])
    let ls = try await env.run(["ls", "--json", "photos"])
    #expect(ls.status == 0, "\(ls)")
    let lines = try OSSEnvironment.jsonLines(ls)
    let prefixes = lines.filter { $0["type"] as? String == "prefix" }.compactMap {
      $0["key"] as? String
    }
    #expect(prefixes == ["big/", "dir/", "中文/"])
    #expect(lines.prefix(3).allSatisfy { $0["type"] as? String == "prefix" })
    let a = try #require(lines.first { $0["key"] as? String == "a.txt" })
    #expect(a["size"] as? Int == 6)
    #expect(a["storageClass"] as? String == "standard")
    #expect(a["hash"] == nil && a["status"] == nil)
    let etag = try #require(a["etag"] as? String)
    #expect(!etag.contains("\"") && etag.count == 32)
    let text = try await env.run(["ls", "oss://photos/dir/"])
    #expect(text.status == 0, "\(text)")
    #expect(text.lines.count == 3, "\(text)")
  }

  /// Keys with space, `+`, `%`, `~`, CJK, emoji and a trailing space are listed, stat'ed and
  /// read byte for byte, with V4 (environment) and V1 (config file) signatures.
  @Test(arguments: ["v4", "v1"])
  func hostileKeysAreExactEverywhere(_ version: String) async throws {
    func run(_ arguments: [String]) async throws -> CLIRunner.Result {
      version == "v4"
        ? try await env.run(arguments) : try await env.run(config: env.v1Config, arguments)
    }
    let listed = try await run(["ls", "-r", "-0", "photos"])
    #expect(listed.status == 0, "\(listed)")
    let keys = listed.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(keys == OSSEnvironment.keys(OSSEnvironment.photos))
    for key in OSSEnvironment.keys(OSSEnvironment.photos) where !key.hasPrefix("big/") {
      let bytes = try #require(OSSEnvironment.photos[key])
      let stat = try await run(["stat", "--json", "photos", key])
      #expect(stat.status == 0, "\(stat)")
      let record = try #require(try OSSEnvironment.jsonLines(stat).first)
      #expect(record["key"] as? String == key)
      #expect(record["size"] as? Int == bytes.count)
      #expect(record["crc64"] as? String == String(CRC64.checksum(bytes)))
      #expect(record["objectType"] as? String == "normal")
      let cat = try await run(["cat", "photos", key])
      #expect(cat.status == 0, "\(cat)")
      #expect(cat.stdoutBytes == bytes, "\(key)")
    }
  }

  @Test func limitMarkerPageSizeParallelAndSummarize() async throws {
    let all = try await env.run(["ls", "-r", "-0", "--page-size", "100", "many"])
    #expect(all.status == 0, "\(all)")
    let keys = all.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(keys.count == 2500)
    let first = try await env.run(["ls", "-r", "-0", "--limit", "7", "many"])
    #expect(first.status == 0, "\(first)")
    let marker = try #require(
      first.stderr.split(separator: " ").last.map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      })
    #expect(first.stderr.contains("--marker "), "\(first)")
    let rest = try await env.run(["ls", "-r", "-0", "--limit", "5", "--marker", marker, "many"])
    #expect(rest.status == 0, "\(rest)")
    let paged = (first.stdoutBytes.split(separator: 0) + rest.stdoutBytes.split(separator: 0))
      .map { String(decoding: $0, as: UTF8.self) }
    #expect(paged == Array(keys.prefix(12)))
    let parallel = try await env.run(["ls", "-r", "-0", "--parallel", "4", "many"])
    #expect(parallel.status == 0, "\(parallel)")
    let parallelKeys = parallel.stdoutBytes.split(separator: 0).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(Set(parallelKeys) == Set(keys) && parallelKeys.count == keys.count)
    let summary = try await env.run(["ls", "-r", "--json", "--summarize", "many"])
    #expect(summary.lines.last?.contains(#""objects":2500"#) == true, "\(summary.lines.last ?? "")")
    let bogus = try await env.run(["ls", "many", "--marker", "not-ours"])
    expectFailure(bogus, status: 65, containing: "not a marker kodo printed for an OSS listing")
  }

  @Test func urlsV4V1PublicAndTheSevenDayLimit() async throws {
    let key = "secret/plan.txt"
    let bytes = try #require(OSSEnvironment.vault[key])
    let v4 = try await env.run(["url", "vault", key])
    #expect(v4.status == 0, "\(v4)")
    #expect(v4.stdout.contains("x-oss-signature-version=OSS4-HMAC-SHA256"))
    #expect(!v4.stdout.contains(env.emulator.secretKey))
    let fetched = try await OSSEnvironment.fetch(v4.stdout.trimmingCharacters(in: .newlines))
    #expect(fetched.status == 200 && fetched.body == bytes)
    let v1 = try await env.run(config: env.v1Config, ["url", "--expires", "30d", "vault", key])
    #expect(v1.status == 0, "\(v1)")
    #expect(v1.stdout.contains("Expires=") && v1.stdout.contains("Signature="))
    let fetchedV1 = try await OSSEnvironment.fetch(v1.stdout.trimmingCharacters(in: .newlines))
    #expect(fetchedV1.status == 200 && fetchedV1.body == bytes)
    let unsigned = try await env.run(["url", "--public", "vault", key])
    #expect(unsigned.stdout == env.emulator.baseURL + "/vault/secret/plan.txt\n")
    #expect(
      try await OSSEnvironment.fetch(env.emulator.baseURL + "/vault/secret/plan.txt").status == 403)
    let publicURL = try await env.run(["url", "--public", "photos", "dir/b c+%.txt"])
    let publicFetch = try await OSSEnvironment.fetch(
      publicURL.stdout.trimmingCharacters(in: .newlines))
    #expect(publicFetch.body == OSSEnvironment.photos["dir/b c+%.txt"])
    let tooLong = try await env.run(["url", "--expires", "8d", "vault", key])
    expectFailure(tooLong, status: 65, containing: "at most 7 days")
    #expect(tooLong.stderr.contains("V1"))
    let domain = try await env.run([
      "url", "--public", "--domain", "https://cdn.example.com", "photos", "a.txt",
    ])
    #expect(domain.stdout == "https://cdn.example.com/a.txt\n", "\(domain)")
  }

  @Test func getWritesTheFileAndDomainsListsTheEndpoints() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-oss-get-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let destination = directory + "/three.bin"
    let get = try await env.run(["get", "photos", "big/three-mib.bin", "-o", destination])
    #expect(get.status == 0, "\(get)")
    #expect(
      FileManager.default.contents(atPath: destination)
        == Data(OSSEnvironment.photos["big/three-mib.bin"] ?? []))
    let again = try await env.run(["get", "photos", "big/three-mib.bin", "-o", destination])
    #expect(again.status != 0, "an existing file is kept without --force")
    let domains = try await env.run([
      "domains", "--json", "photos",
    ])
    #expect(domains.status == 0, "\(domains)")
    let bases = try OSSEnvironment.jsonLines(domains).compactMap { $0["baseURL"] as? String }
    #expect(bases.contains(env.emulator.baseURL + "/photos"), "\(domains)")
    let custom = try await env.run(
      config: #"{"provider":"oss","domains":{"photos":"https://img.example.com"}}"#,
      ["domains", "--json", "photos"])
    #expect(custom.stdout.contains(#""baseURL":"https://img.example.com""#), "\(custom)")
  }

  @Test func errorsMapToTheContractsExitCodes() async throws {
    let wrong = try await env.run(
      ["ls", "photos"], environment: ["OSS_ACCESS_KEY_SECRET": "wrong"])
    expectFailure(wrong, status: 77, containing: "SignatureDoesNotMatch")
    #expect(wrong.stderr.contains("request id "), "\(wrong)")
    #expect(!wrong.stderr.contains("wrong"), "the secret given is never repeated")
    let noKey = try await env.run(["stat", "photos", "no such key"])
    expectFailure(noKey, status: 66, containing: "NoSuchKey")
    let noBucket = try await env.run(["ls", "nosuchbucket"])
    expectFailure(noBucket, status: 66, containing: "NoSuchBucket")
    let catMissing = try await env.run(["cat", "photos", "missing.txt"])
    expectFailure(catMissing, status: 66)
  }
}
