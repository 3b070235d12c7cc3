import Foundation
import KodoEmulator

/// Where a secret key given to the emulator comes from.
enum SecretKeySource: Equatable {
  /// `--secret-key` (visible in the process list).
  case flag
  /// `--secret-key-file PATH`.
  case file(String)
  /// `KODO_EMULATOR_SECRET_KEY`.
  case environment

  static let environmentVariable = "KODO_EMULATOR_SECRET_KEY"

  /// The largest secret-key file read.
  private static let maximumFileSize = 4_096

  /// How the source is named in messages.
  var name: String {
    switch self {
    case .flag: "--secret-key"
    case .file: "--secret-key-file"
    case .environment: Self.environmentVariable
    }
  }

  /// Why a secret key could not be read.
  struct Failure: Error {
    var message: String
    /// 66 for a file that cannot be read, 64 for an empty or unusable key.
    var status: Int32
  }

  /// The secret key: the flag's value, the file's first line, or the variable's value.
  func read(flag: String?, environment: [String: String]) throws(Failure) -> String {
    let value: String
    switch self {
    case .flag:
      value = flag ?? ""
    case .environment:
      value = environment[Self.environmentVariable] ?? ""
    case .file(let path):
      guard let handle = FileHandle(forReadingAtPath: path) else {
        throw Failure(message: "--secret-key-file: cannot read \(path)", status: 66)
      }
      defer { try? handle.close() }
      let data: Data
      do {
        data = try handle.read(upToCount: Self.maximumFileSize + 1) ?? Data()
      } catch {
        throw Failure(message: "--secret-key-file: cannot read \(path)", status: 66)
      }
      guard data.count <= Self.maximumFileSize else {
        throw Failure(
          message: "--secret-key-file: \(path) is over \(Self.maximumFileSize) bytes; "
            + "it should hold only the secret key", status: 64)
      }
      guard let text = String(data: data, encoding: .utf8) else {
        throw Failure(message: "--secret-key-file: \(path) is not UTF-8 text", status: 64)
      }
      value = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
    }
    guard !value.isEmpty else {
      throw Failure(message: "\(name): the secret key is empty", status: 64)
    }
    return value
  }
}

/// What the emulator prints once it listens: the contract's fixed first line, one line per
/// bucket, the credentials (a given secret key never), and a line to paste for `kodo`.
enum StartupOutput {
  static func lines(server: EmulatorServer, secretKeySource: SecretKeySource?) -> [String] {
    var lines = ["kodo-emulator listening on " + server.baseURL]
    for bucket in server.buckets {
      let objects = bucket.objectCount == 1 ? "1 object" : "\(bucket.objectCount) objects"
      lines.append(
        "bucket \(bucket.name): \(server.bucketURL(for: bucket.name)) (\(objects), \(bucket.source), "
          + (bucket.isPrivate ? "private" : "public") + ")")
    }
    if server.buckets.isEmpty {
      lines.append("no buckets: add some with --bucket NAME=DIR or --synthetic NAME=COUNT")
    }
    let isOSS = server.wireProtocol == .oss
    if isOSS {
      lines.append("protocol: oss, region " + server.region + ", path style")
    }
    let accessKey = server.credentials.accessKey
    lines.append("access key: " + accessKey)
    let export =
      isOSS
      ? "export KODO_PROVIDER=oss OSS_ENDPOINT=" + server.baseURL + " OSS_REGION="
        + shellQuoted(server.region) + " OSS_ACCESS_KEY_ID=" + shellQuoted(accessKey)
      : "export KODO_ENDPOINT=" + server.baseURL + " QINIU_ACCESS_KEY=" + shellQuoted(accessKey)
    let secretVariable = isOSS ? "OSS_ACCESS_KEY_SECRET" : "QINIU_SECRET_KEY"
    if let secretKeySource {
      let given =
        switch secretKeySource {
        case .flag: "(as given with --secret-key)"
        case .file: "(as read from --secret-key-file)"
        case .environment: "(from KODO_EMULATOR_SECRET_KEY)"
        }
      lines.append("secret key: " + given)
      lines.append(export)
      lines.append("# and \(secretVariable): the secret key you gave the emulator")
    } else {
      let secretKey = EmulatorConfiguration.defaultSecretKey
      lines.append("secret key: " + secretKey)
      lines.append(export + " " + secretVariable + "=" + shellQuoted(secretKey))
    }
    if isOSS && server.requiresSecurityToken {
      lines.append("# and OSS_SESSION_TOKEN: the token given with --security-token")
    }
    return lines
  }

  /// `text` as one shell word: as is when it is plain, else in single quotes.
  static func shellQuoted(_ text: String) -> String {
    let plain =
      !text.isEmpty
      && text.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
          UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "@"),
          UInt8(ascii: "%"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: "="):
          true
        default:
          false
        }
      }
    if plain { return text }
    return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
