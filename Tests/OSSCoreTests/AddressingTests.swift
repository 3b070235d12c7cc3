import OSSCore
import StorageCore
import Testing

@Suite("OSS endpoints, addressing and encodings")
struct AddressingTests {
  @Test func endpointsAreParsedStrictly() throws {
    let region = try OSSEndpoint(region: "cn-hangzhou")
    #expect(region.baseURL == "https://oss-cn-hangzhou.aliyuncs.com")
    #expect(
      try OSSEndpoint(region: "oss-cn-hangzhou", internalNetwork: true).baseURL
        == "https://oss-cn-hangzhou-internal.aliyuncs.com")
    #expect(
      try OSSEndpoint("oss-cn-hangzhou.aliyuncs.com").baseURL
        == "https://oss-cn-hangzhou.aliyuncs.com")
    #expect(try OSSEndpoint("HTTP://127.0.0.1:9000/").baseURL == "http://127.0.0.1:9000")
    #expect(try OSSEndpoint("http://[::1]:9000").isIPAddress)
    #expect(try OSSEndpoint("http://127.0.0.1:9000").isIPAddress)
    #expect(try !OSSEndpoint("http://localhost:9000").isIPAddress)
    #expect(try !OSSEndpoint("http://256.0.0.1").isIPAddress)
    for bad in [
      "", "ftp://oss-cn-hangzhou.aliyuncs.com", "https://oss.aliyuncs.com/path",
      "https://oss.aliyuncs.com?x=1", "https://user@oss.aliyuncs.com", "https://oss.aliyuncs.com:0",
      "https://oss.aliyuncs.com:99999", "https://oss aliyuncs.com", "https://-a.com",
      "https://a..com",
      "https://a.com#frag", "https://evil.com\\@oss.aliyuncs.com", "https://a.com:8x",
    ] {
      #expect(throws: StorageError.self, "\(bad)") { try OSSEndpoint(bad) }
    }
  }

  @Test func regionIDs() throws {
    #expect(try OSSRegion.id("cn-hangzhou") == "cn-hangzhou")
    #expect(try OSSRegion.id("oss-cn-hangzhou") == "cn-hangzhou")
    #expect(try OSSRegion.id("oss-cn-beijing-internal") == "cn-beijing")
    #expect(try OSSRegion.id("ap-southeast-1") == "ap-southeast-1")
    #expect(try OSSRegion.id("rus-west-1") == "rus-west-1")
    for bad in ["beijing", "", "cn-", "-cn", "CN-HANGZHOU", "cn_hangzhou", "1cn-x", "cn-hang zhou"]
    {
      #expect(throws: StorageError.self, "\(bad)") { try OSSRegion.id(bad) }
    }
    #expect(try OSSEndpoint("oss-cn-hangzhou.aliyuncs.com").regionID == "cn-hangzhou")
    #expect(try OSSEndpoint("oss-cn-hangzhou-internal.aliyuncs.com").regionID == "cn-hangzhou")
    #expect(try OSSEndpoint("cn-hangzhou.oss.aliyuncs.com").regionID == "cn-hangzhou")
    #expect(try OSSEndpoint("oss-accelerate.aliyuncs.com").regionID == nil)
    #expect(try OSSEndpoint("static.example.com").regionID == nil)
  }

  @Test func bucketNames() {
    for good in ["abc", "a-b", "0bucket", String(repeating: "a", count: 63)] {
      #expect(OSSBucketName.isValid(good), "\(good)")
    }
    for bad in [
      "ab", "-abc", "abc-", "Abc", "a_b", "a.b", "a b", String(repeating: "a", count: 64), "a/b",
      "中文",
    ] {
      #expect(!OSSBucketName.isValid(bad), "\(bad)")
      #expect(throws: StorageError.self) { try OSSBucketName.validate(bad) }
    }
  }

  @Test func addressingStyles() throws {
    let aliyun = OSSAddressing(endpoint: try OSSEndpoint(region: "cn-hangzhou"))
    let object = OSSRequest(bucket: "examplebucket", key: "dir/a b.txt")
    #expect(!aliyun.usesPathStyle)
    #expect(
      aliyun.url(for: object) == "https://examplebucket.oss-cn-hangzhou.aliyuncs.com/dir/a%20b.txt")
    #expect(
      aliyun.url(for: object, encodeSlashes: true)
        == "https://examplebucket.oss-cn-hangzhou.aliyuncs.com/dir%2Fa%20b.txt")
    #expect(
      aliyun.url(for: OSSRequest(bucket: "examplebucket", query: [OSSQueryItem("location", nil)]))
        == "https://examplebucket.oss-cn-hangzhou.aliyuncs.com/?location")
    #expect(
      aliyun.url(for: OSSRequest(query: [OSSQueryItem("max-keys", "10")]))
        == "https://oss-cn-hangzhou.aliyuncs.com/?max-keys=10")
    let domain = try OSSEndpoint("https://static.example.com")
    #expect(
      aliyun.url(for: object, customDomain: domain) == "https://static.example.com/dir/a%20b.txt")
    let forced = OSSAddressing(
      endpoint: try OSSEndpoint("https://minio.local:9000"), pathStyle: true)
    #expect(forced.url(for: object) == "https://minio.local:9000/examplebucket/dir/a%20b.txt")
    let emulator = OSSAddressing(endpoint: try OSSEndpoint("http://127.0.0.1:9000"))
    #expect(emulator.usesPathStyle)
    #expect(
      emulator.url(for: OSSRequest(bucket: "examplebucket"))
        == "http://127.0.0.1:9000/examplebucket/")
    // A name that cannot be a bucket never becomes part of a host name.
    let hostile = OSSRequest(bucket: "evil.com/x?", key: "k")
    #expect(aliyun.url(for: hostile) == "https://oss-cn-hangzhou.aliyuncs.com/evil.com%2Fx%3F/k")
  }

  @Test func keysKeepTheirBytesOnTheWire() {
    #expect(OSSEncoding.path(key: "a+b=c&d.txt") == "a%2Bb%3Dc%26d.txt")
    #expect(OSSEncoding.path(key: "100%/%2F%20.txt") == "100%25/%252F%2520.txt")
    #expect(OSSEncoding.path(key: "~user/x~y.txt") == "~user/x~y.txt")
    #expect(
      OSSEncoding.path(key: "中文/文件 名.txt")
        == "%E4%B8%AD%E6%96%87/%E6%96%87%E4%BB%B6%20%E5%90%8D.txt")
    // A dot segment would be collapsed by URL normalisation: the slashes are encoded instead.
    #expect(OSSEncoding.path(key: "a/../b") == "a%2F..%2Fb")
    #expect(OSSEncoding.path(key: "./x") == ".%2Fx")
    #expect(OSSEncoding.path(key: "a/.b/..c") == "a/.b/..c")
    #expect(
      OSSEncoding.query([
        OSSQueryItem("prefix", "photos/2023 年/"), OSSQueryItem("marker", "a+b"),
        OSSQueryItem("acl", nil),
        OSSQueryItem("empty", ""),
      ]) == "prefix=photos%2F2023%20%E5%B9%B4%2F&marker=a%2Bb&acl&empty=")
  }

  @Test func strictPercentDecoding() {
    #expect(PercentEncoding.decode("a+b%2Bc%20d") == "a+b+c d")
    #expect(PercentEncoding.decode("%E4%B8%AD") == "中")
    for bad in ["%", "%2", "%zz", "%C3%28", "%FF", "abc%"] {
      #expect(PercentEncoding.decode(bad) == nil, "\(bad)")
    }
  }
}
