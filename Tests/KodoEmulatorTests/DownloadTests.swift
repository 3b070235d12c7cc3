import Foundation
import KodoCore
import KodoEmulator
import KodoTestSupport
import StorageCore
import Testing

@Suite struct DownloadTests {
  @Test func publicDownloadsServeTheBytesWithKodoHeaders() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      for key in SampleObjects.keys {
        let body = SampleObjects.body(for: key)
        let response = try await emulator.download(
          emulator.publicDownloadTarget(bucket: "public", key: key))
        #expect(response.status == 200, "\(key)")
        #expect(response.body == body, "\(key)")
        #expect(response.header("Content-Length") == String(body.count))
        #expect(response.header("ETag") == "\"" + QETag.hash(of: body) + "\"")
        #expect(response.header("X-Reqid") != nil)
      }
      let jpeg = try await emulator.download("/dl/public/x/full.jpg")
      #expect(jpeg.header("Content-Type") == "image/jpeg")
      #expect(jpeg.header("Last-Modified") == "Sat, 09 Feb 2013 07:41:13 GMT")
    }
  }

  @Test func pathDecodingTreatsEscapedAndLiteralSlashesAlike() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let expected = SampleObjects.body(for: "b/c/3.txt")
      for target in ["/dl/public/b/c/3.txt", "/dl/public/b%2Fc%2F3.txt", "/dl/public/b%2fc/3.txt"] {
        #expect(try await emulator.download(target).body == expected, "\(target)")
      }
      // `+` in a path is a plus, not a space.
      #expect(try await emulator.download("/dl/public/c+plus.txt").status == 200)
      #expect(try await emulator.download("/dl/public/d%20e/space%20file.txt").status == 200)
      #expect(try await emulator.download("/dl/public/d+e/space+file.txt").status == 404)
      // The query and fragment characters must be escaped to be part of the key.
      #expect(try await emulator.download("/dl/public/q%3Fx%23y%26z%3D1.txt").status == 200)
      let bad = try await emulator.download("/dl/public/%zz")
      #expect(bad.status == 400)
      #expect(bad.errorMessage == "invalid argument")
    }
  }

  @Test func missingObjectsAre404WithJSON() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      for target in ["/dl/public/nope.txt", "/dl/public/", "/dl/public", "/dl/nobucket/a.txt"] {
        let response = try await emulator.download(target)
        #expect(response.status == 404, "\(target)")
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("X-Reqid") != nil)
      }
      #expect(
        try await emulator.download("/dl/public/nope.txt").errorMessage
          == "no such file or directory")
    }
  }

  @Test func headAndRanges() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      let body = SampleObjects.body(for: "a.txt")  // "content of a.txt\n", 17 bytes
      let head = try await emulator.download("/dl/public/a.txt", method: "HEAD")
      #expect(head.status == 200)
      #expect(head.body.isEmpty)
      #expect(head.header("Content-Length") == String(body.count))

      let cases: [(range: String, status: Int, bytes: ArraySlice<UInt8>, contentRange: String?)] = [
        ("bytes=0-6", 206, body[0...6], "bytes 0-6/17"),
        ("bytes=11-", 206, body[11...], "bytes 11-16/17"),
        ("bytes=-4", 206, body[13...], "bytes 13-16/17"),
        ("bytes=5-100", 206, body[5...], "bytes 5-16/17"),
        ("bytes=0-0,2-3", 200, body[...], nil),  // several ranges: the whole body
        ("items=0-1", 200, body[...], nil),
        ("bytes=17-20", 416, [], "bytes */17"),
      ]
      for test in cases {
        let response = try await emulator.download(
          "/dl/public/a.txt", headers: [("Range", test.range)])
        #expect(response.status == test.status, "\(test.range)")
        #expect(response.header("Content-Range") == test.contentRange, "\(test.range)")
        if test.status != 416 { #expect(response.body == Array(test.bytes), "\(test.range)") }
      }
      let headRange = try await emulator.download(
        "/dl/public/a.txt", method: "HEAD", headers: [("Range", "bytes=1-2")])
      #expect(headRange.status == 206)
      #expect(headRange.header("Content-Length") == "2")
    }
  }

  @Test func privateBucketsCheckTokens() async throws {
    let now: Int64 = 1_700_000_000
    let configuration = SampleObjects.configuration(clock: .fixed(unixSeconds: now))
    try await EmulatorHarness.with(configuration) { emulator in
      let valid = emulator.privateDownloadTarget(
        bucket: "secret", key: "d e/space file.txt", deadline: now + 60)
      let ok = try await emulator.download(valid)
      #expect(ok.status == 200)
      #expect(ok.body == SampleObjects.body(for: "d e/space file.txt"))

      let missing = try await emulator.download("/dl/secret/a.txt")
      #expect(missing.status == 401)
      #expect(missing.text == "{\"error\":\"download token not specified\"}")

      let expired = try await emulator.download(
        emulator.privateDownloadTarget(bucket: "secret", key: "a.txt", deadline: now - 1))
      #expect(expired.status == 401)
      #expect(expired.text == "{\"error\":\"token out of date\"}")

      let other = Credentials(accessKey: emulator.credentials.accessKey, secretKey: "other")
      let url = DownloadURL.privateURL(
        baseURL: emulator.server.downloadDomain(for: "secret") + "/a.txt", deadline: now + 60,
        credentials: other)
      let forged = try await emulator.download(URLParts(url).pathAndQuery)
      #expect(forged.status == 401)
      #expect(forged.text == "{\"error\":\"download token auth failed\"}")

      // A token for one key does not open another, nor a later deadline.
      let forA = emulator.privateDownloadTarget(bucket: "secret", key: "a.txt", deadline: now + 60)
      let swapped = try await emulator.download(
        forA.replacingOccurrences(of: "a.txt", with: "b0.txt"))
      #expect(swapped.status == 401)
      let extended = try await emulator.download(
        forA.replacingOccurrences(of: "e=\(now + 60)", with: "e=\(now + 600)"))
      #expect(extended.status == 401)
      let noDeadline = try await emulator.download(
        "/dl/secret/a.txt?token=" + emulator.credentials.sign("x"))
      #expect(noDeadline.errorMessage == "download token auth failed")
      // Parameters after the token are ignored; parameters before it are signed.
      #expect(try await emulator.download(forA + "&ignored=1").status == 200)
      let withQuery = DownloadURL.privateURL(
        baseURL: emulator.server.downloadDomain(for: "secret") + "/a.txt?attname=x.txt",
        deadline: now + 60, credentials: emulator.credentials)
      #expect(try await emulator.download(URLParts(withQuery).pathAndQuery).status == 200)
      // HEAD is checked the same way.
      #expect(try await emulator.download(forA, method: "HEAD").status == 200)
      #expect(try await emulator.download("/dl/secret/a.txt", method: "HEAD").status == 401)
      // A missing key in a private bucket is still 401 without a token, 404 with one.
      let ghost = emulator.privateDownloadTarget(bucket: "secret", key: "ghost", deadline: now + 60)
      #expect(try await emulator.download(ghost).status == 404)
    }
  }

  @Test func publicBucketsIgnoreTokensButDisabledObjectsNeedOne() async throws {
    let now: Int64 = 1_700_000_000
    try await EmulatorHarness.with(SampleObjects.configuration(clock: .fixed(unixSeconds: now))) {
      emulator in
      #expect(try await emulator.download("/dl/public/a.txt?e=1&token=nonsense").status == 200)
      let signed = emulator.privateDownloadTarget(
        bucket: "public", key: "a.txt", deadline: now - 100)
      #expect(try await emulator.download(signed).status == 200)

      let disabled = try await emulator.download("/dl/public/x/disabled.bin")
      #expect(disabled.status == 403)
      #expect(disabled.errorMessage == "file disabled")
      let withToken = emulator.privateDownloadTarget(
        bucket: "public", key: "x/disabled.bin", deadline: now + 60)
      let allowed = try await emulator.download(withToken)
      #expect(allowed.status == 200)
      #expect(allowed.body == [1, 2, 3])
    }
  }

  /// Issue 19 L18: archive and deep archive objects are read only once restored, on the Kodo
  /// protocol as on OSS; archive IR and the other classes are read directly.
  @Test func archivedObjectsAreRefusedUntilRestored() async throws {
    let cases: [(key: String, type: Int, restore: Int?, readable: Bool)] = [
      ("archive.bin", 2, nil, false), ("archive-restoring.bin", 2, 1, false),
      ("archive-restored.bin", 2, 2, true), ("deep.bin", 3, nil, false),
      ("deep-restoring.bin", 3, 1, false), ("deep-restored.bin", 3, 2, true),
      ("archive-ir.bin", 4, nil, true), ("ia.bin", 1, nil, true), ("tiering.bin", 5, nil, true),
    ]
    let objects = cases.map {
      EmulatorObject(key: $0.key, body: [9, 8, 7], type: $0.type, restoreStatus: $0.restore)
    }
    let now: Int64 = 1_700_000_000
    let configuration = EmulatorConfiguration(
      buckets: [.objects("cold", objects), .objects("vault", objects)], privateBuckets: ["vault"],
      clock: .fixed(unixSeconds: now))
    try await EmulatorHarness.with(configuration) { emulator in
      for test in cases {
        let targets = [
          emulator.publicDownloadTarget(bucket: "cold", key: test.key),
          emulator.privateDownloadTarget(bucket: "vault", key: test.key, deadline: now + 60),
        ]
        for target in targets {
          for method in ["GET", "HEAD"] {
            let response = try await emulator.download(target, method: method)
            if test.readable {
              #expect(response.status == 200, "\(method) \(target)")
              #expect(response.body == (method == "GET" ? [9, 8, 7] : []), "\(target)")
            } else {
              #expect(response.status == 403, "\(method) \(target)")
              #expect(response.header("X-Reqid") != nil)
              if method == "GET" {
                #expect(response.errorMessage == "archived file is frozen, restore it first")
              }
            }
          }
        }
      }
    }
  }

  @Test func downloadsAreCounted() async throws {
    try await EmulatorHarness.with(SampleObjects.configuration()) { emulator in
      _ = try await emulator.download("/dl/public/a.txt")
      _ = try await emulator.download("/dl/public/missing")
      #expect(emulator.server.stats.download == 2)
    }
  }
}
