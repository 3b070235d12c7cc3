import Foundation
import KodoCore
import KodoTestSupport
import OSSCore
import StorageCore
import Testing

/// A download cut short is resumed from the byte after the last one written, on both providers,
/// and a download is reported written only when the file holds exactly the object.
@Suite("downloads resume where they stopped", .serialized)
struct DownloadResumeTests {
  static let object: [UInt8] = (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }

  static func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kodo-resume-\(UUID())"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// Whether the file at `path` holds exactly `bytes` (a Bool, so that a failure does not print
  /// megabytes).
  static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
    FileManager.default.contents(atPath: path).map(Array.init) == bytes
  }

  /// Serves `object`'s bytes: a GET without `Range` is cut at half (the announced length, half
  /// the body, a close), a `Range: bytes=N-` is served whole with 206.
  static func body(_ request: ScriptedHTTPServer.Request, headers: HTTPHeaders)
    -> ScriptedHTTPServer.Action
  {
    var headers = headers
    if let range = request.headers["Range"], range.hasPrefix("bytes="),
      let start = Int(range.dropFirst(6).split(separator: "-").first ?? "")
    {
      headers.add("Content-Range", "bytes \(start)-\(object.count - 1)/\(object.count)")
      return .respond(
        ScriptedHTTPServer.Response(status: 206, headers: headers, body: Array(object[start...])))
    }
    return .truncatedBody(
      headers: headers, body: Array(object.prefix(object.count / 2)), declaredLength: object.count)
  }

  /// H-1: an OSS object without a CRC-64 (a multipart object, an OSS-compatible server), every
  /// whole GET cut at half. `get` wrote the tail over the head and said it wrote 6000 bytes.
  @Test func anOSSDownloadCutShortIsResumedIntoTheRightPlace() async throws {
    let env = try await OSSEnvironment.get()
    let script: ScriptedHTTPServer.Script = { request in
      let headers: HTTPHeaders = [
        "x-oss-request-id": "scripted", "Last-Modified": "Mon, 02 Jun 2025 10:00:00 GMT",
        "ETag": "\"0123456789ABCDEF0123456789ABCDEF-2\"", "Content-Type": "text/plain",
      ]
      if request.method == "HEAD" {
        var head = headers
        head.add("Content-Length", String(Self.object.count))
        return .respond(ScriptedHTTPServer.Response(status: 200, headers: head, body: []))
      }
      return Self.body(request, headers: headers)
    }
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      var environment = env.variables
      environment["OSS_ENDPOINT"] = server.baseURL
      let get = try await InProcess.run(
        ["get", "photos", "obj.txt", "-o", directory + "/obj.txt"], environment: environment)
      #expect(get.status == 0, "\(get)")
      #expect(Self.holds(directory + "/obj.txt", Self.object), "\(directory + "/obj.txt")")
      // `cat > file`: the tail goes after the head in the file it was given.
      let cat = try await InProcess.run(
        ["cat", "photos", "obj.txt"], environment: environment, stdout: directory + "/cat.txt")
      #expect(cat.status == 0, "\(cat)")
      #expect(Self.holds(directory + "/cat.txt", Self.object), "\(directory + "/cat.txt")")
    }
  }

  /// Kodo told the user to run it again; now it resumes with a Range as OSS does.
  @Test func aKodoDownloadCutShortIsResumed() async throws {
    let hash = QETag.hash(of: Self.object)
    let stat =
      #"{"fsize":\#(Self.object.count),"hash":"\#(hash)","mimeType":"text/plain","putTime":17000000000000000}"#
    let script: ScriptedHTTPServer.Script = { request in
      if request.path.hasPrefix("/stat/") {
        return .respond(.json(stat, headers: ["X-Reqid": "scripted"]))
      }
      return Self.body(request, headers: ["Content-Type": "text/plain"])
    }
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try writeTestConfig(baseURL: server.baseURL)
      defer { try? FileManager.default.removeItem(atPath: config) }
      let get = try await InProcess.run(
        ["get", "--domain", server.baseURL, "b", "obj.txt", "-o", directory + "/obj.txt"],
        environment: ["KODO_CONFIG": config])
      #expect(get.status == 0, "\(get)")
      #expect(Self.holds(directory + "/obj.txt", Self.object), "\(directory + "/obj.txt")")
    }
  }

  /// A resumption answered with the whole object (200, the `Range` ignored) writes nothing: the
  /// object's head never lands where its tail goes. `cat` to a file keeps exactly what came
  /// before, and fails.
  @Test func aResumptionAnsweredFromTheStartWritesNothing() async throws {
    let stat =
      #"{"fsize":\#(Self.object.count),"hash":"\#(QETag.hash(of: Self.object))","mimeType":"text/plain","putTime":17000000000000000}"#
    let script: ScriptedHTTPServer.Script = { request in
      if request.path.hasPrefix("/stat/") {
        return .respond(.json(stat, headers: ["X-Reqid": "scripted"]))
      }
      if request.headers["Range"] != nil {
        return .respond(
          ScriptedHTTPServer.Response(status: 200, headers: [:], body: Self.object))
      }
      return .truncatedBody(
        headers: [:], body: Array(Self.object.prefix(Self.object.count / 2)),
        declaredLength: Self.object.count)
    }
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await ScriptedHTTPServer.withServer(script: script) { server in
      let config = try writeTestConfig(baseURL: server.baseURL)
      defer { try? FileManager.default.removeItem(atPath: config) }
      let cat = try await InProcess.run(
        ["cat", "--domain", server.baseURL, "b", "obj.txt"], environment: ["KODO_CONFIG": config],
        stdout: directory + "/cat.txt")
      expectFailure(cat, status: 76, containing: "206")
      #expect(
        Self.holds(directory + "/cat.txt", Array(Self.object.prefix(Self.object.count / 2))),
        "only the bytes of the first answer")
    }
  }

  /// H-1 with the emulator's own fault: five answers cut short in a row. `get -r` and `cat >
  /// file` wrote the object's last bytes at offset 0 and exited 0; `get` gave a false CRC-64
  /// alarm.
  @Test func fiveShortBodiesInARowStillGiveTheWholeObject() async throws {
    // An emulator of its own: another suite's faults must not reach it, nor its faults them.
    let env = try await OSSEnvironment.get()
    let emulator = try await EmulatorProcess([
      "--protocol", "oss", "--bucket", "photos=\(env.root)/photos",
    ])
    defer { emulator.stop() }
    var variables = env.variables
    variables["OSS_ENDPOINT"] = emulator.baseURL
    variables["OSS_ACCESS_KEY_ID"] = emulator.accessKey
    variables["OSS_ACCESS_KEY_SECRET"] = emulator.secretKey
    let key = "big/three-mib.bin"
    let bytes = try #require(OSSEnvironment.photos[key])
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await emulator.scheduleFault(endpoint: "download", mode: "short-body", count: 5)
    let get = try await InProcess.run(
      ["get", "photos", key, "-o", directory + "/single.bin"], environment: variables)
    #expect(get.status == 0, "\(get)")
    #expect(Self.holds(directory + "/single.bin", bytes), "\(directory + "/single.bin")")
    try FileManager.default.createDirectory(
      atPath: directory + "/r", withIntermediateDirectories: false)
    try await emulator.scheduleFault(endpoint: "download", mode: "short-body", count: 5)
    let recursive = try await InProcess.run(
      ["get", "-r", "photos/big/", directory + "/r"], environment: variables)
    #expect(recursive.status == 0, "\(recursive)")
    #expect(Self.holds(directory + "/r/three-mib.bin", bytes), "\(directory + "/r/three-mib.bin")")
    try await emulator.scheduleFault(endpoint: "download", mode: "short-body", count: 5)
    let cat = try await InProcess.run(
      ["cat", "photos", key], environment: variables, stdout: directory + "/cat.bin")
    #expect(cat.status == 0, "\(cat)")
    #expect(Self.holds(directory + "/cat.bin", bytes), "\(directory + "/cat.bin")")
    try await emulator.clearFaults()
  }
}
