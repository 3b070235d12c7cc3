import Foundation
import KodoTestSupport
import Testing

/// The verbs work through the provider interface: the same commands on OSS, against
/// `kodo-emulator --protocol oss`, with answers computed from the served files.
@Suite("More verbs on OSS", .serialized)
struct OSSVerbTests {
  let env: OSSEnvironment

  init() async throws { env = try await OSSEnvironment.get() }

  @Test func rangeDuFindAndRecursiveGetOnOSS() async throws {
    let photos = OSSEnvironment.photos
    let big = try #require(photos["big/three-mib.bin"])
    for (range, expected) in [("10-19", big[10...19]), ("=-7", big[(big.count - 7)...])] {
      let result = try await env.run(
        [
          "cat", "--range" + (range.hasPrefix("=") ? range : "=" + range), "photos",
          "big/three-mib.bin",
        ])
      #expect(result.status == 0, "\(range): \(result.stderr)")
      let same = result.stdoutBytes == Array(expected)
      #expect(same, "\(range)")
    }
    let du = try await env.run(["du", "--json", "photos"])
    #expect(du.status == 0, "\(du)")
    let total = try #require(try OSSEnvironment.jsonLines(du).last)
    #expect(total["objects"] as? Int == photos.count)
    #expect(total["size"] as? Int == photos.values.reduce(0) { $0 + $1.count })
    let find = try await env.run(["find", "-0", "photos", "--larger", "1k"])
    #expect(find.status == 0, "\(find)")
    #expect(
      find.stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        == OSSEnvironment.keys(photos).filter { (photos[$0]?.count ?? 0) > 1024 })
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-oss-get-r-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let get = try await env.run(["get", "-r", "photos", directory])
    #expect(get.status == 0, "\(get)")
    for (key, bytes) in photos {
      let same =
        FileManager.default.contents(atPath: directory + "/" + key).map(Array.init) == bytes
      #expect(same, "\(key)")
    }
  }
}
