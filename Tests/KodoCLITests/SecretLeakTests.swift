import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

/// Item 5 of "reliability": every subcommand, in success and in failure, with and without
/// `--verbose`, never writes the secret key, in any encoding, to stdout or stderr.
@Suite("The secret key never leaks, whatever happens", .serialized)
struct SecretLeakTests {
  /// A secret whose encodings all differ from it (`/`, `+`, `=`, `%`, space, non-ASCII).
  static let secret = "s3cr3t/+=%&? ~密钥-\(UUID().uuidString)"
  static let wrongSecret = "wr0ng/+=%& ~-\(UUID().uuidString)"

  /// The secret as it could appear if something echoed it: raw, base64 (standard and URL-safe,
  /// with and without padding), percent-encoded (either hex case, `+` for space), JSON-escaped.
  static func forms(of secret: String) -> [String] {
    let bytes = Data(secret.utf8)
    let base64 = bytes.base64EncodedString()
    let urlSafe = URLSafeBase64.encode(Array(bytes))
    func percentEncoded(hex: String) -> String {
      var text = ""
      for byte in secret.utf8 {
        let unreserved =
          (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "-_.~".utf8.contains(byte)
        text += unreserved ? String(UnicodeScalar(byte)) : String(format: hex, byte)
      }
      return text
    }
    let percentUpper = percentEncoded(hex: "%%%02X")
    let percentLower = percentEncoded(hex: "%%%02x")
    let json = String(decoding: try! JSONEncoder().encode(secret), as: UTF8.self).dropFirst()
      .dropLast()
    return [
      secret, base64, base64.trimmingCharacters(in: ["="]), urlSafe,
      urlSafe.trimmingCharacters(in: ["="]), percentUpper,
      percentUpper.replacingOccurrences(of: "%20", with: "+"), percentLower, String(json),
      // The part after the characters that an encoder would treat specially.
      String(secret.suffix(36)),
    ]
  }

  static func expectNoLeak(
    _ result: CLIRunner.Result, of secret: String, _ arguments: [String],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let output = result.stdout + "\n" + result.stderr
    for form in forms(of: secret) {
      #expect(
        !output.contains(form), "\(arguments) printed the secret key as \(form)",
        sourceLocation: sourceLocation)
    }
    // Verbose request lines show the access key and a redacted signature, never a signature.
    for line in result.stderr.split(separator: "\n") {
      guard let range = line.range(of: "Authorization: ") else { continue }
      let value = line[range.upperBound...]
      #expect(
        value.hasPrefix("Qiniu ") && value.hasSuffix(":<redacted>"), "\(line)",
        sourceLocation: sourceLocation)
    }
  }

  @Test func noSubcommandLeaksTheSecretInSuccessOrFailure() async throws {
    let root = try temporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: root + "/p/dir", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: root + "/p/dir/a.txt", contents: Data("a\n".utf8))
    let emulator = try await EmulatorProcess(
      ["--bucket", "p=\(root)/p", "--private", "p", "--synthetic", "big=100"],
      accessKey: "leak-test-ak", secretKey: Self.secret)
    let config = try writeTestConfig(
      baseURL: emulator.baseURL, accessKey: "leak-test-ak", secretKey: Self.secret)
    let kodo = CLIRunner("kodo", environment: ["KODO_CONFIG": config])
    let out = try temporaryDirectory()

    let successes: [[String]] = [
      ["buckets"], ["--json", "buckets"], ["ls", "p"], ["ls", "-r", "--json", "p"],
      ["ls", "-r", "--limit", "1", "big"], ["stat", "p", "dir/a.txt"],
      ["--json", "stat", "p", "dir/a.txt"], ["url", "p", "dir/a.txt"],
      ["url", "--json", "--public", "p", "dir/a.txt"], ["cat", "p", "dir/a.txt"],
      ["get", "--force", "p", "dir/a.txt", "-o", out + "/a.txt"], ["domains", "p"],
      ["token", "qbox", "http://127.0.0.1:9/buckets"],
      ["token", "qiniu", "--json", "--method", "POST", "--body", "x=1", "http://127.0.0.1:9/x"],
      ["token", "upload", "p"], ["token", "upload", "--json", "--policy", #"{"a":1}"#, "p:k"],
    ]
    let failures: [[String]] = [
      ["stat", "p", "missing"], ["cat", "p", "missing"], ["get", "p", "missing", "-o", out],
      ["ls", "nosuchbucket"], ["domains", "nosuchbucket"], ["url", "nosuchbucket", "k"],
      ["url", "--expires", "never", "p", "k"], ["token", "upload", "--policy", "{bad", "p"],
      ["token", "qiniu", "not-a-url"], ["stat"], ["ls", "--bogus", "p"],
      ["stat", "BAD!", "k"], ["stat", "p", ""],
    ]
    for arguments in successes + failures {
      for verbose in [[], ["-v"]] {
        let result = try await kodo.run(verbose + arguments)
        Self.expectNoLeak(result, of: Self.secret, arguments)
        if successes.contains(arguments) {
          #expect(result.status == 0, "\(arguments): \(result)")
        } else {
          #expect(result.status != 0, "\(arguments)")
        }
        if !verbose.isEmpty && successes.contains(arguments) && !arguments.contains("token") {
          #expect(result.stderr.contains(":<redacted>"), "verbose shows requests: \(arguments)")
        }
      }
    }

    // Server faults and timeouts, through every API command.
    let faulted: [[String]] = [
      ["buckets"], ["ls", "-r", "big"], ["stat", "p", "dir/a.txt"], ["cat", "p", "dir/a.txt"],
      ["domains", "p"], ["url", "p", "dir/a.txt"],
    ]
    for (mode, status) in [("status", 503), ("truncated", 0), ("no-reqid", 0), ("hang", 0)] {
      for arguments in faulted {
        try await emulator.scheduleFault(
          endpoint: "*", mode: mode, count: 50, status: status == 0 ? nil : status)
        let result = try await kodo.run(["-v", "--retries", "2", "--timeout", "1"] + arguments)
        try await emulator.clearFaults()
        #expect(result.status != 0, "\(mode) \(arguments)")
        Self.expectNoLeak(result, of: Self.secret, [mode] + arguments)
      }
    }

    // Bad credentials: neither the configured secret nor the one given instead may appear.
    for arguments in faulted + [["get", "p", "dir/a.txt", "-o", out + "/b.txt"]] {
      let result = try await kodo.run(
        ["-v"] + arguments, environment: ["QINIU_SECRET_KEY": Self.wrongSecret])
      #expect(result.status == 77, "\(arguments): \(result)")
      Self.expectNoLeak(result, of: Self.wrongSecret, arguments)
      Self.expectNoLeak(result, of: Self.secret, arguments)
    }

    // The server is gone.
    emulator.stop()
    for arguments in faulted {
      let result = try await kodo.run(["-v", "--retries", "1"] + arguments)
      #expect(result.status == 69, "\(arguments): \(result)")
      Self.expectNoLeak(result, of: Self.secret, arguments)
    }
  }

  /// Config files that are wrong right where the secret is: the errors name the file and the
  /// key, never the value.
  @Test func configErrorsNeverEchoTheSecret() async throws {
    let secret = Self.secret
    let texts = [
      #"{"accessKey":"a","secretKey":"\#(secret)" "bucket":"b"}"#,
      #"{"accessKey":"a","secretKey":\#(secret)}"#,
      #"{"accessKey":"a","secretKey":["\#(secret)"]}"#,
      #"{"accessKey":"a","secretkey":"\#(secret)"}"#,
      #"{"accessKey":"a","secretKey":"\#(secret)","hosts":{"uc":"ftp://x"}}"#,
      #"{"accessKey":"a","secretKey":"\#(secret)","profiles":{"p":{"secretKey":1}}}"#,
      #"{"secretKey":"\#(secret)","hosts":{"uc":"http://127.0.0.1:9"}}"#,
      #"{"accessKey":"a","secretKey":"\#(secret)"#,
    ]
    for text in texts {
      let path = try BadInputTests.configFile(Array(text.utf8))
      for verbose in [[], ["-v"]] {
        let result = try await CLIRunner().run(verbose + ["buckets", "--config", path])
        expectFailure(result, status: 78, containing: path)
        Self.expectNoLeak(result, of: secret, [text])
      }
    }
  }

  /// The permission warning: once, on stderr, naming the file, for a config file that group or
  /// others can read; none for mode 600. It never includes the secret.
  static let modes: [(mode: Int, warns: Bool)] = [
    (0o644, true), (0o640, true), (0o604, true), (0o600, false), (0o400, false),
  ]

  @Test(arguments: modes)
  func aConfigReadableByOthersGetsOneWarning(mode: Int, warns: Bool) async throws {
    let env = try await CLIEnvironment.get()
    let config = try env.emulator.configFile()
    chmod(config, mode_t(mode))
    for arguments in [["buckets"], ["--json", "ls", "photos"]] {
      let result = try await CLIRunner().run(arguments + ["--config", config])
      #expect(result.status == 0, "\(result)")
      let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("kodo: warning:") }
      if warns {
        #expect(
          warnings.map(String.init) == [
            "kodo: warning: config file \(config) can be read by other users and holds a secret key; run: chmod 600 \(config)"
          ], "\(result.stderr)")
      } else {
        #expect(warnings.isEmpty, "\(result.stderr)")
      }
      #expect(!result.stdout.contains("warning"))
      #expect(!result.stderr.contains(env.emulator.secretKey))
    }
  }

  /// `-v` shows each request's URL: a private download's `token=` (which works for an hour) and
  /// a password in a host URL are redacted like the `Authorization` header.
  @Test func verboseRedactsDownloadTokensAndPasswords() async throws {
    let env = try await CLIEnvironment.get()
    let result = try await InProcess.run(
      ["-v", "cat", "logs", "2024-06-01/app.log"], environment: ["KODO_CONFIG": env.config])
    #expect(result.status == 0, "\(result)")
    #expect(result.stderr.contains("token=<redacted>"), "\(result.stderr)")
    #expect(!result.stderr.contains("token=test-access-key:"), "\(result.stderr)")
    let withPassword = try writeTestConfig(
      baseURL: env.emulator.baseURL.replacingOccurrences(of: "http://", with: "http://user:pw@"),
      accessKey: env.emulator.accessKey, secretKey: env.emulator.secretKey)
    let verbose = try await InProcess.run(
      ["-v", "buckets"], environment: ["KODO_CONFIG": withPassword])
    #expect(verbose.stderr.contains("http://<redacted>@"), "\(verbose.stderr)")
    #expect(!verbose.stderr.contains("user:pw"))
  }
}
