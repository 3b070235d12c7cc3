import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// `--protocol oss`: ListBuckets, GetBucketInfo, GetBucketLocation, ListObjects and
/// ListObjectsV2 over a served directory of hostile keys, signed as the official SDKs sign.
@Suite struct OSSListingTests {
  private func withHostile(
    _ body: (EmulatorHarness, [String]) async throws -> Void
  ) async throws {
    let directory = try OSSHostileKeys.directory()
    defer { directory.remove() }
    let configuration = OSSTestClient.configuration(
      [
        .directory("hostile", path: directory.path), .directory("locked", path: directory.path),
        .synthetic("zz-synthetic", count: 50),
      ], privateBuckets: ["locked"])
    try await EmulatorHarness.with(configuration) { emulator in
      try await body(emulator, OSSHostileKeys.keys)
    }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4])
  func listBucketsPagesByNameWithPrefix(_ version: OSSSigner.Version) async throws {
    try await withHostile { emulator, _ in
      let client = try OSSTestClient(emulator, version: version)
      let all = try await client.send(OSSRequest())
      #expect(all.status == 200)
      #expect(all.header("Server") == "AliyunOSS")
      #expect(all.header("x-oss-request-id")?.utf8.count == 24)
      #expect(all.header("Date") != nil)
      let page = try OSSAnswers.listBuckets(all.body)
      #expect(page.buckets.map(\.name) == ["hostile", "locked", "zz-synthetic"])
      #expect(page.buckets.first?.region == "cn-hangzhou")
      #expect(page.buckets.first?.location == "oss-cn-hangzhou")
      #expect(page.buckets.first?.extranetEndpoint == emulator.hostHeader)
      #expect(!page.isTruncated)

      let first = try OSSAnswers.listBuckets(
        try await client.send(OSSRequest(query: [OSSQueryItem("max-keys", "1")])).body)
      #expect(first.buckets.map(\.name) == ["hostile"])
      #expect(first.isTruncated && first.nextMarker == "hostile")
      let second = try OSSAnswers.listBuckets(
        try await client.send(
          OSSRequest(query: [OSSQueryItem("max-keys", "1"), OSSQueryItem("marker", "hostile")])
        ).body)
      #expect(second.buckets.map(\.name) == ["locked"])
      let prefixed = try OSSAnswers.listBuckets(
        try await client.send(OSSRequest(query: [OSSQueryItem("prefix", "zz")])).body)
      #expect(prefixed.buckets.map(\.name) == ["zz-synthetic"])
    }
  }

  @Test func bucketInfoAndLocation() async throws {
    try await withHostile { emulator, _ in
      let client = try OSSTestClient(emulator)
      let info = try await client.send(
        OSSRequest(bucket: "locked", query: [OSSQueryItem("bucketInfo", nil)]))
      #expect(info.status == 200)
      let bucket = try OSSAnswers.bucketInfo(info.body)
      #expect(bucket.name == "locked")
      #expect(bucket.accessControl == "private")
      #expect(bucket.region == "cn-hangzhou")
      let publicInfo = try OSSAnswers.bucketInfo(
        try await client.send(
          OSSRequest(bucket: "hostile", query: [OSSQueryItem("bucketInfo", nil)])
        ).body)
      #expect(publicInfo.accessControl == "public-read")
      let acl = try await client.send(
        OSSRequest(bucket: "locked", query: [OSSQueryItem("acl", "")]))
      #expect(acl.status == 200)
      #expect(acl.text.contains("<AccessControlList><Grant>private</Grant></AccessControlList>"))
      let objectACL = try await client.send(
        OSSRequest(bucket: "hostile", key: "a b/plus+sign.txt", query: [OSSQueryItem("acl", "")]))
      #expect(objectACL.text.contains("<Grant>default</Grant>"))
      let missingACL = try await client.send(
        OSSRequest(bucket: "hostile", key: "nope", query: [OSSQueryItem("acl", "")]))
      #expect(missingACL.ossError?.code == "NoSuchKey")
      let anonymousACL = try await OSSTestClient(emulator, version: nil).send(
        OSSRequest(bucket: "hostile", key: "a b/plus+sign.txt", query: [OSSQueryItem("acl", "")]))
      #expect(anonymousACL.status == 403)
      let location = try await client.send(
        OSSRequest(bucket: "hostile", query: [OSSQueryItem("location", "")]))
      #expect(try OSSAnswers.bucketLocation(location.body) == "oss-cn-hangzhou")
    }
  }

  @Test(arguments: [OSSSigner.Version.v1, .v4], [false, true])
  func listingsMatchTheDirectoryPageByPage(_ version: OSSSigner.Version, _ v2: Bool)
    async throws
  {
    try await withHostile { emulator, keys in
      let client = try OSSTestClient(emulator, version: version)
      let all = try await client.listAll(bucket: "hostile", pageSize: 2, v2: v2)
      #expect(all.entries == expectedOSSListing(keys))
      #expect(all.pages == (keys.count + 1) / 2)
      for prefix in ["", "dir/", "a b/", "中文/", "dir/sub/", "page/"] {
        let listed = try await client.listAll(
          bucket: "hostile", prefix: prefix, delimiter: "/", pageSize: 2, v2: v2)
        #expect(
          listed.entries == expectedOSSListing(keys, prefix: prefix, delimiter: "/"),
          "prefix \(prefix)")
      }
    }
  }

  @Test func urlEncodingIsStrictRFC3986() async throws {
    try await withHostile { emulator, _ in
      let client = try OSSTestClient(emulator)
      let response = try await client.send(
        OSSRequest(
          bucket: "hostile",
          query: [OSSQueryItem("prefix", "a b/"), OSSQueryItem("encoding-type", "url")]))
      // Space is %20 and + is %2B, never +, so both SDKs' decoders read the same key.
      #expect(response.text.contains("<Key>a%20b%2Fplus%2Bsign.txt</Key>"))
      #expect(response.text.contains("<Prefix>a%20b%2F</Prefix>"))
      let raw = try await client.send(
        OSSRequest(bucket: "hostile", query: [OSSQueryItem("prefix", "中文/")]))
      #expect(raw.text.contains("<Key>中文/文件 名.txt</Key>"))
    }
  }

  @Test func v2ParametersTokensAndOwners() async throws {
    try await withHostile { emulator, keys in
      let client = try OSSTestClient(emulator)
      let expected = expectedOSSListing(keys)
      let started = try OSSAnswers.listObjects(
        try await client.send(
          OSSRequest(
            bucket: "hostile",
            query: [
              OSSQueryItem("list-type", "2"), OSSQueryItem("start-after", "dir/b.txt"),
              OSSQueryItem("max-keys", "3"), OSSQueryItem("fetch-owner", "true"),
            ])
        ).body, encodingType: nil)
      let after = expected.filter { $0.utf8.lexicographicallyPrecedes("dir/b.txt".utf8) == false }
        .filter { $0 != "dir/b.txt" }
      #expect(started.objects.map(\.key) == Array(after.prefix(3)))
      #expect(started.keyCount == 3)
      #expect(started.startAfter == "dir/b.txt")
      #expect(started.objects.allSatisfy { $0.owner != nil })
      let token = try #require(started.nextContinuationToken)
      let next = try OSSAnswers.listObjects(
        try await client.send(
          OSSRequest(
            bucket: "hostile",
            query: [
              OSSQueryItem("list-type", "2"), OSSQueryItem("continuation-token", token),
              OSSQueryItem("max-keys", "3"),
            ])
        ).body, encodingType: nil)
      #expect(next.objects.map(\.key) == Array(after.dropFirst(3).prefix(3)))
      #expect(next.continuationToken == token)
      #expect(next.objects.allSatisfy { $0.owner == nil })

      let badToken = try await client.send(
        OSSRequest(
          bucket: "hostile",
          query: [OSSQueryItem("list-type", "2"), OSSQueryItem("continuation-token", "nope")]))
      #expect(badToken.status == 400)
      #expect(badToken.ossError?.code == "InvalidArgument")
    }
  }

  @Test(arguments: ["0", "1001", "-1", "ten", "99999999999999999999"])
  func maxKeysOutsideOneToAThousandIsInvalidArgument(_ value: String) async throws {
    try await withHostile { emulator, _ in
      let client = try OSSTestClient(emulator)
      for request in [
        OSSRequest(bucket: "hostile", query: [OSSQueryItem("max-keys", value)]),
        OSSRequest(query: [OSSQueryItem("max-keys", value)]),
      ] {
        let response = try await client.send(request)
        #expect(response.status == 400)
        #expect(response.ossError?.code == "InvalidArgument")
        #expect(response.ossError?.fields["ArgumentName"] == "max-keys")
      }
    }
    let fits = try await OSSTestClient.emptyListingStatus(maxKeys: "1000")
    #expect(fits == 200)
  }

  @Test func syntheticObjectsCarryOSSAttributes() async throws {
    let configuration = OSSTestClient.configuration([.synthetic("big", count: 3_000)], seed: 7)
    try await EmulatorHarness.with(configuration) { emulator in
      let client = try OSSTestClient(emulator)
      let page = try OSSAnswers.listObjects(
        try await client.send(
          OSSRequest(
            bucket: "big",
            query: [OSSQueryItem("list-type", "2"), OSSQueryItem("max-keys", "1000")])
        ).body, encodingType: nil)
      #expect(page.objects.count == 1_000)
      #expect(
        Set(page.objects.compactMap(\.storageClass)).isSuperset(of: [
          "Standard", "IA", "Archive", "ColdArchive",
        ]))
      #expect(
        Set(page.objects.compactMap(\.type)) == ["Normal", "Multipart", "Appendable"])
      for object in page.objects where object.type == "Multipart" {
        #expect(object.etag?.contains("-") == true, "\(object.key)")
      }
      #expect(page.objects.contains { $0.restore != nil })
      // A listed ETag is the one HEAD shows (built from all the object's metadata): for a
      // "Normal" object with an MD5, that MD5, which the listing computes only for those.
      var md5Tags = 0
      for object in page.objects.prefix(300) {
        let head = try await client.send(
          OSSRequest(method: "HEAD", bucket: "big", key: object.key))
        #expect(head.header("ETag") == object.etag.map { "\"\($0)\"" }, "\(object.key)")
        if object.type == "Normal", object.etag?.count == 32 { md5Tags += 1 }
      }
      #expect(md5Tags > 0)
      // The same seed lists the same page.
      let again = try OSSAnswers.listObjects(
        try await client.send(
          OSSRequest(
            bucket: "big",
            query: [OSSQueryItem("list-type", "2"), OSSQueryItem("max-keys", "1000")])
        ).body, encodingType: nil)
      #expect(again.objects == page.objects)
    }
  }
}

extension OSSTestClient {
  /// The status of a signed ListObjects of an empty bucket with `max-keys`.
  static func emptyListingStatus(maxKeys: String) async throws -> Int {
    try await EmulatorHarness.with(configuration([.objects("empty", [])])) { emulator in
      let client = try OSSTestClient(emulator)
      return try await client.send(
        OSSRequest(bucket: "empty", query: [OSSQueryItem("max-keys", maxKeys)])
      ).status
    }
  }
}
