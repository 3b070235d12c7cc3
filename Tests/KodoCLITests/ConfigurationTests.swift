import Foundation
import KodoCore
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// A temporary directory with a config file in it.
struct ConfigDirectory {
  let path: String

  init(_ text: String?, mode: Int = 0o600) throws {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("kodo-config-\(UUID())").path
    try FileManager.default.createDirectory(
      atPath: path + "/kodo", withIntermediateDirectories: true)
    if let text {
      _ = FileManager.default.createFile(
        atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
    }
  }

  var file: String { path + "/kodo/config.json" }
}

func configError(_ body: () throws -> Void) -> StorageError? {
  do {
    try body()
    return nil
  } catch let error as StorageError {
    return error
  } catch {
    return nil
  }
}

@Suite("Configuration")
struct ConfigurationTests {
  let full = #"""
    {"accessKey":"FILE_AK","secretKey":"FILE_SK","bucket":"photos",
     "domains":{"photos":"https://cdn.example.com"},
     "hosts":{"uc":"http://127.0.0.1:9000","rsf":"http://127.0.0.1:9001"},
     "profiles":{"staging":{"accessKey":"STAGE_AK","secretKey":"STAGE_SK","hosts":{"rs":"http://127.0.0.1:9002"},
                             "domains":{"logs":"http://127.0.0.1:9000/dl/logs"}}}}
    """#

  @Test func theDefaultFileUnderXDGIsRead() throws {
    let directory = try ConfigDirectory(full)
    let config = try Configuration.load(
      configFlag: nil, profileFlag: nil, environment: ["XDG_CONFIG_HOME": directory.path])
    #expect(config.credentials?.accessKey == "FILE_AK")
    #expect(config.bucket == "photos")
    #expect(config.domains == ["photos": "https://cdn.example.com"])
    #expect(config.hosts == ServiceHosts(uc: "http://127.0.0.1:9000", rsf: "http://127.0.0.1:9001"))
    #expect(config.file == directory.file)
    #expect(!config.fileReadableByOthers)
  }

  @Test func theDefaultFileUnderHomeIsRead() throws {
    let directory = try ConfigDirectory(full)
    try FileManager.default.createDirectory(
      atPath: directory.path + "/.config", withIntermediateDirectories: true)
    try FileManager.default.moveItem(
      atPath: directory.path + "/kodo", toPath: directory.path + "/.config/kodo")
    let config = try Configuration.load(
      configFlag: nil, profileFlag: nil, environment: ["HOME": directory.path])
    #expect(config.credentials?.accessKey == "FILE_AK")
  }

  @Test func environmentBeatsTheFileAndFlagsBeatTheEnvironment() throws {
    let directory = try ConfigDirectory(full)
    let other = try ConfigDirectory(#"{"accessKey":"OTHER_AK","secretKey":"OTHER_SK"}"#)
    var config = try Configuration.load(
      configFlag: nil, profileFlag: nil,
      environment: [
        "XDG_CONFIG_HOME": directory.path, "QINIU_ACCESS_KEY": "ENV_AK",
        "QINIU_SECRET_KEY": "ENV_SK",
      ])
    #expect(config.credentials == Credentials(accessKey: "ENV_AK", secretKey: "ENV_SK"))
    config = try Configuration.load(
      configFlag: nil, profileFlag: nil,
      environment: ["KODO_CONFIG": other.file, "XDG_CONFIG_HOME": directory.path])
    #expect(config.credentials?.accessKey == "OTHER_AK")
    config = try Configuration.load(
      configFlag: directory.file, profileFlag: nil, environment: ["KODO_CONFIG": other.file])
    #expect(config.credentials?.accessKey == "FILE_AK")
  }

  @Test func profilesOverrideTopLevelKeys() throws {
    let directory = try ConfigDirectory(full)
    var config = try Configuration.load(
      configFlag: directory.file, profileFlag: "staging", environment: [:])
    #expect(config.credentials?.accessKey == "STAGE_AK")
    #expect(config.bucket == "photos")
    #expect(
      config.hosts
        == ServiceHosts(
          uc: "http://127.0.0.1:9000", rs: "http://127.0.0.1:9002", rsf: "http://127.0.0.1:9001"))
    #expect(config.domains["logs"] == "http://127.0.0.1:9000/dl/logs")
    #expect(config.domains["photos"] == "https://cdn.example.com")
    config = try Configuration.load(
      configFlag: directory.file, profileFlag: nil, environment: ["KODO_PROFILE": "staging"])
    #expect(config.profile == "staging")
    let error = configError {
      _ = try Configuration.load(configFlag: directory.file, profileFlag: "prod", environment: [:])
    }
    #expect(error?.kind == .configuration)
    #expect(error?.message.contains("profiles: staging") == true)
  }

  @Test func aMissingDefaultFileIsFineWithEnvironmentCredentials() throws {
    let directory = try ConfigDirectory(nil)
    let config = try Configuration.load(
      configFlag: nil, profileFlag: nil,
      environment: [
        "XDG_CONFIG_HOME": directory.path, "QINIU_ACCESS_KEY": "A", "QINIU_SECRET_KEY": "S",
      ])
    #expect(config.credentials?.accessKey == "A")
    #expect(config.file == nil)
    let none = try Configuration.load(
      configFlag: nil, profileFlag: nil, environment: ["XDG_CONFIG_HOME": directory.path])
    let error = configError { _ = try none.requireCredentials() }
    #expect(error?.kind == .configuration)
    #expect(error?.message.contains("QINIU_ACCESS_KEY") == true)
    let half = try Configuration.load(
      configFlag: nil, profileFlag: nil,
      environment: ["XDG_CONFIG_HOME": directory.path, "QINIU_ACCESS_KEY": "A"])
    #expect(
      configError { _ = try half.requireCredentials() }?.message.contains("no secret key") == true)
  }

  @Test func anExplicitMissingFileIsAnError() {
    let error = configError {
      _ = try Configuration.load(
        configFlag: "/nonexistent/kodo.json", profileFlag: nil, environment: [:])
    }
    #expect(error?.kind == .configuration)
    #expect(
      error?.message
        == #"cannot read config file "/nonexistent/kodo.json" (from --config): it does not exist"#)
  }

  @Test(arguments: [
    (#"{"accessKey":"a","secretkey":"b"}"#, #"unknown key "secretkey""#),
    (#"{"profiles":{"p":{"hostz":{}}}}"#, #"unknown key "profiles.p.hostz""#),
    (#"{"hosts":{"io":"http://x"}}"#, #"unknown key "hosts.io""#),
    (#"{"hosts":{"uc":"uc.qiniuapi.com"}}"#, #""hosts.uc" must be a base URL"#),
    (#"{"domains":{"b":"cdn.example.com"}}"#, #""domains.b" must be a base URL"#),
    (#"{"accessKey":1}"#, #""accessKey" must be a string"#),
    (#"{"accessKey":"a",}"#, "is not valid JSON"),
    ("[]", "must hold a JSON object"),
    ("", "is not valid JSON"),
  ])
  func invalidFilesNameTheFileAndTheKey(_ text: String, _ expected: String) throws {
    let directory = try ConfigDirectory(text)
    let error = configError {
      _ = try Configuration.load(configFlag: directory.file, profileFlag: nil, environment: [:])
    }
    #expect(error?.kind == .configuration)
    #expect(error?.message.contains(directory.file) == true)
    #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
  }

  @Test func aFileReadableByOthersIsFlaggedAndSecretsStayOutOfErrors() throws {
    let directory = try ConfigDirectory(
      #"{"accessKey":"a","secretKey":"TOP-SECRET","bucket":7}"#, mode: 0o644)
    let error = configError {
      _ = try Configuration.load(configFlag: directory.file, profileFlag: nil, environment: [:])
    }
    #expect(error?.description.contains("TOP-SECRET") == false)
    let readable = try ConfigDirectory(#"{"accessKey":"a","secretKey":"b"}"#, mode: 0o644)
    let config = try Configuration.load(
      configFlag: readable.file, profileFlag: nil, environment: [:])
    #expect(config.fileReadableByOthers)
  }

  @Test func anUnreadableFileSaysPermissionDenied() throws {
    guard getuid() != 0 else { return }  // root reads everything
    let directory = try ConfigDirectory(#"{}"#, mode: 0o000)
    let error = configError {
      _ = try Configuration.load(configFlag: directory.file, profileFlag: nil, environment: [:])
    }
    #expect(error?.message.contains("permission denied") == true)
  }

  @Test func theExampleConfigIsValid() throws {
    let example = Fixtures.repositoryRoot.appendingPathComponent("config.example.json").path
    let config = try Configuration.load(
      configFlag: example, profileFlag: "staging", environment: [:])
    #expect(config.credentials?.accessKey == "STAGING_ACCESS_KEY")
    let aliyun = try Configuration.load(
      configFlag: example, profileFlag: "aliyun", environment: [:])
    #expect(aliyun.provider == "oss" && aliyun.oss.region == "cn-hangzhou")
    #expect(aliyun.oss.signatureVersion == "v4" && aliyun.oss.pathStyle == false)
    #expect(aliyun.kodoOnlyKeys.isEmpty, "the top level's hosts are Kodo's, not the profile's")
    #expect(aliyun.domains["my-oss-bucket"] == "https://static.example.com")
  }
}
