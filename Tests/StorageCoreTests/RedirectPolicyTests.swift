import Foundation
import KodoTestSupport
import Testing

@testable import StorageCore

/// Issue 19 §2, M-2: a redirected download carries no credential, token or signature header to
/// another origin, and never goes from https to http.
@Suite("Redirects carry no credential to another host", .timeLimit(.minutes(10)))
struct RedirectPolicyTests {
  static let loopback = CurlTransport.Configuration(proxy: .none)

  /// A signed OSS GetObject as the client sends it.
  static func signed(_ url: String) -> HTTPRequest {
    HTTPRequest(
      url: url,
      headers: [
        "Host": URLParts(url).authority, "x-oss-date": "20240101T000000Z",
        "x-oss-security-token": "STSTOKEN-XYZ-123", "x-oss-content-sha256": "UNSIGNED-PAYLOAD",
        "Authorization": "OSS4-HMAC-SHA256 Credential=AK/…,Signature=abc", "Range": "bytes=0-4",
        "X-Qiniu-Date": "20240101T000000Z", "Cookie": "a=b",
      ])
  }

  @Test func aRedirectToAnotherHostLeavesEveryCredentialBehind() async throws {
    try await ScriptedHTTPServer.withServer { _ in
      .respond(.text("hello", status: 206))
    } body: { other in
      try await ScriptedHTTPServer.withServer { _ in
        .respond(.init(status: 302, headers: ["Location": other.url("/bkt/a.txt")]))
      } body: { first in
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
          "kodo-redirect-\(UUID())"
        ).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer {
          close(descriptor)
          unlink(path)
        }
        let response = try await CurlTransport(configuration: Self.loopback).download(
          Self.signed(first.url("/bkt/a.txt")), to: descriptor)
        #expect(response.status == 206)
        #expect(FileManager.default.contents(atPath: path) == Data("hello".utf8))
        let sent = try #require(first.requests.first).headers
        #expect(sent["x-oss-security-token"] == "STSTOKEN-XYZ-123")
        let followed = try #require(other.requests.first)
        #expect(other.requests.count == 1)
        for name in [
          "x-oss-security-token", "x-oss-date", "x-oss-content-sha256", "Authorization",
          "X-Qiniu-Date", "Cookie",
        ] {
          #expect(followed.headers[name] == nil, "\(name) crossed to another host")
        }
        #expect(followed.headers["Host"] == URLParts(other.baseURL).authority)
        #expect(followed.headers["Range"] == "bytes=0-4")
      }
    }
  }

  @Test func aRedirectWithinTheOriginKeepsTheRequestAsSigned() async throws {
    try await ScriptedHTTPServer.withServer { request in
      request.path == "/start"
        ? .respond(.init(status: 307, headers: ["Location": "/final"]))
        : .respond(.text("final"))
    } body: { server in
      let descriptor = open("/dev/null", O_WRONLY | O_CLOEXEC)
      defer { close(descriptor) }
      let response = try await CurlTransport(configuration: Self.loopback).download(
        Self.signed(server.url("/start")), to: descriptor)
      #expect(response.status == 200)
      #expect(server.requests.map(\.path) == ["/start", "/final"])
      #expect(server.requests.last?.headers["x-oss-security-token"] == "STSTOKEN-XYZ-123")
    }
  }

  @Test func tooManyRedirectsEndTheDownload() async throws {
    try await ScriptedHTTPServer.withServer { request in
      .respond(.init(status: 302, headers: ["Location": request.path + "x"]))
    } body: { server in
      let descriptor = open("/dev/null", O_WRONLY | O_CLOEXEC)
      defer { close(descriptor) }
      let transport = CurlTransport(
        configuration: CurlTransport.Configuration(maxDownloadRedirects: 2, proxy: .none))
      let caught = await #expect(throws: StorageError.self) {
        _ = try await transport.download(HTTPRequest(url: server.url("/a")), to: descriptor)
      }
      #expect(caught?.kind == .protocolError)
      #expect(caught?.message.contains("redirected too many times") == true)
      #expect(server.requests.map(\.path) == ["/a", "/ax", "/axx"])
    }
  }

  @Test func theRule() throws {
    let request = Self.signed("https://bkt.oss-cn-hangzhou.aliyuncs.com/a.txt")
    // Never from https to http, nor to another scheme.
    for target in ["http://bkt.oss-cn-hangzhou.aliyuncs.com/a.txt", "file:///etc/passwd"] {
      #expect(throws: StorageError.self) {
        _ = try RedirectPolicy.follow(request, status: 302, to: target)
      }
    }
    // The same origin (host in any case, default port named) keeps every field.
    let same = try RedirectPolicy.follow(
      request, status: 301, to: "https://BKT.oss-cn-hangzhou.aliyuncs.com:443/b.txt")
    #expect(same.headers == request.headers)
    // Another port, or http to https, is another origin.
    for target in [
      "https://bkt.oss-cn-hangzhou.aliyuncs.com:8443/a.txt", "https://cdn.example/a.txt",
    ] {
      let moved = try RedirectPolicy.follow(request, status: 302, to: target)
      #expect(moved.headers.fields.map(\.name) == ["Range"])
      #expect(moved.url == target)
    }
    let upgraded = try RedirectPolicy.follow(
      Self.signed("http://cdn.example/a"), status: 308, to: "https://cdn.example/a")
    #expect(upgraded.headers.fields.map(\.name) == ["Range"])
    // 303 turns a POST into a GET without its body; a HEAD stays a HEAD.
    let post = HTTPRequest(method: "POST", url: "http://a/x", body: [1])
    let seeOther = try RedirectPolicy.follow(post, status: 303, to: "http://a/y")
    #expect(seeOther.method == "GET" && seeOther.body.isEmpty)
    let head = HTTPRequest(method: "HEAD", url: "http://a/x")
    #expect(try RedirectPolicy.follow(head, status: 303, to: "http://a/y").method == "HEAD")
  }
}
