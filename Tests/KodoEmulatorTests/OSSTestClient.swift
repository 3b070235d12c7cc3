import Foundation
import KodoEmulator
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// Requests to an in-process emulator speaking OSS, signed with OSSCore's signer (V1 or V4, in
/// headers or as presigned URLs) and sent byte for byte by `RawHTTPClient`.
struct OSSTestClient {
  let emulator: EmulatorHarness
  /// `nil`: anonymous requests.
  let signer: OSSSigner?
  let addressing: OSSAddressing

  static let accessKey = "oss-test-access-key"
  static let secretKey = "oss-test-secret-key"

  init(
    _ emulator: EmulatorHarness, version: OSSSigner.Version? = .v4, secretKey: String? = nil,
    securityToken: String? = nil, region: String = "cn-hangzhou"
  ) throws {
    self.emulator = emulator
    if let version {
      signer = try OSSSigner(
        credentials: Credentials(
          accessKey: Self.accessKey, secretKey: secretKey ?? Self.secretKey,
          securityToken: securityToken), version: version, region: region)
    } else {
      signer = nil
    }
    addressing = OSSAddressing(endpoint: try OSSEndpoint(emulator.server.baseURL))
  }

  /// An OSS configuration of `buckets` with the test credentials.
  static func configuration(
    _ buckets: [EmulatorBucket], privateBuckets: Set<String> = [], seed: UInt64 = 0,
    securityToken: String? = nil
  ) -> EmulatorConfiguration {
    var configuration = EmulatorConfiguration(
      credentials: Credentials(accessKey: accessKey, secretKey: secretKey), buckets: buckets,
      privateBuckets: privateBuckets, seed: seed)
    configuration.wireProtocol = .oss
    configuration.securityToken = securityToken
    return configuration
  }

  static var now: Int64 { Int64(Date().timeIntervalSince1970) }

  /// Sends `request` signed in its headers at `time` (default now), or unsigned.
  func send(
    _ request: OSSRequest, at time: Int64? = nil, encodeSlashes: Bool = false, body: [UInt8] = []
  ) async throws -> RawHTTPResponse {
    let url: String
    var headers: [(String, String)] = [("Host", emulator.hostHeader)]
    if let signer {
      let signed = signer.sign(
        request, at: time ?? Self.now, addressing: addressing, encodeSlashes: encodeSlashes)
      url = signed.url
      headers += signed.headers.fields.map { ($0.name, $0.value) }
    } else {
      url = addressing.url(for: request, encodeSlashes: encodeSlashes)
      headers += request.headers.fields.map { ($0.name, $0.value) }
    }
    return try await emulator.response(
      to: RawHTTPRequest(
        method: request.method, target: URLParts(url).pathAndQuery, headers: headers, body: body))
  }

  /// A presigned URL's path and query.
  func presignedTarget(_ request: OSSRequest, at time: Int64? = nil, expiresIn: Int64 = 600)
    throws -> String
  {
    let signer = try #require(signer)
    let signed = try signer.presign(
      request, at: time ?? Self.now, expiresIn: expiresIn, addressing: addressing)
    return URLParts(signed.url).pathAndQuery
  }

  /// `GET` of a target as is, with only `Host` (a browser following a link).
  func fetch(_ target: String, method: String = "GET") async throws -> RawHTTPResponse {
    try await emulator.response(
      to: RawHTTPRequest(method: method, target: target, headers: [("Host", emulator.hostHeader)]))
  }

  /// Every key and common prefix of a listing, page by page (`max-keys` `pageSize`), with
  /// `encoding-type=url`, decoded with OSSCore's decoder; also the number of pages.
  func listAll(bucket: String, prefix: String = "", delimiter: String = "", pageSize: Int, v2: Bool)
    async throws -> (entries: [String], pages: Int)
  {
    var entries: [String] = []
    var pages = 0
    var next: String?
    repeat {
      var query = [
        OSSQueryItem("prefix", prefix), OSSQueryItem("delimiter", delimiter),
        OSSQueryItem("max-keys", String(pageSize)), OSSQueryItem("encoding-type", "url"),
      ]
      if v2 {
        query.append(OSSQueryItem("list-type", "2"))
        query.append(OSSQueryItem("continuation-token", next ?? ""))
      } else {
        query.append(OSSQueryItem("marker", next ?? ""))
      }
      let response = try await send(OSSRequest(bucket: bucket, query: query))
      try #require(response.status == 200, "\(response.text)")
      let page = try OSSAnswers.listObjects(response.body, encodingType: "url")
      entries += page.objects.map(\.key) + page.commonPrefixes
      pages += 1
      next = v2 ? page.nextContinuationToken : page.nextMarker
      if !page.isTruncated { break }
      try #require(next != nil)
    } while pages < 1_000
    return (entries.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, pages)
  }
}

extension RawHTTPResponse {
  /// The OSS `<Error>` body, or for HEAD the one in `x-oss-err`.
  var ossError: OSSErrorBody? {
    if let header = header("x-oss-err") { return try? OSSAnswers.errorHeader(header) }
    return try? OSSAnswers.errorBody(body)
  }
}

/// What OSS lists for `keys`: objects and common prefixes, in byte order.
func expectedOSSListing(_ keys: [String], prefix: String = "", delimiter: String = "") -> [String] {
  var entries = Set<String>()
  for key in keys where key.hasPrefix(prefix) {
    let rest = key.dropFirst(prefix.count)
    if !delimiter.isEmpty, let range = rest.range(of: delimiter) {
      entries.insert(prefix + rest[..<range.upperBound])
    } else {
      entries.insert(key)
    }
  }
  return entries.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
}

/// Hostile keys: space, `+`, `%`, `~`, CJK, emoji, a trailing space, reserved characters.
enum OSSHostileKeys {
  static let keys =
    [
      "plain.txt", "a b/space file.txt", "a b/plus+sign.txt", "percent%41.txt", "100%.txt",
      "tilde~name.txt", "中文/文件 名.txt", "emoji/😀.txt", "trailing space ", "dir/sub/deep.txt",
      "dir/sub/deeper/x.txt", "dir/a.txt", "dir/b.txt", "q?x#y&z=1.txt", "semi;colon,comma.txt",
    ] + (0..<9).map { "page/0\($0).txt" }

  static func body(_ key: String) -> [UInt8] {
    Array(String(repeating: "content of \(key)\n", count: 1 + key.utf8.count % 5).utf8)
  }

  /// A directory holding every key, with its body.
  static func directory() throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    for key in keys { try directory.write(key, body(key)) }
    return directory
  }
}
