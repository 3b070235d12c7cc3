import Foundation
import KodoTestSupport
import StorageCore
import Testing

@testable import KodoCLI

/// Every provider in `ProviderRegistry` gives the CLI what it asks of a provider: a name and a
/// scheme of its own, a client made from the configuration, its storage classes, its config
/// keys refused by the others, and its listing columns and part size.
@Suite("Provider registry")
struct ProviderRegistryTests {
  /// What each provider needs in the environment to be made; a new provider adds its own.
  static let environments: [String: [String: String]] = [
    "kodo": ["QINIU_ACCESS_KEY": "AK", "QINIU_SECRET_KEY": "SK"],
    "oss": ["OSS_ACCESS_KEY_ID": "AK", "OSS_ACCESS_KEY_SECRET": "SK", "OSS_REGION": "cn-hangzhou"],
  ]
  /// A config file member only each provider understands.
  static let ownKeys: [String: String] = [
    "kodo": #""hosts": {"uc": "http://127.0.0.1:9"}"#,
    "oss": #""region": "cn-hangzhou""#,
  ]

  static var names: [String] { ProviderRegistry.all.map(\.name) }

  static func context(
    _ arguments: [String], _ environment: [String: String]
  ) throws -> Context {
    var merged = InProcess.baseEnvironment()
    for (name, value) in environment { merged[name] = value }
    let options = try GlobalOptions.parse(arguments)
    return try Runtime.$current.withValue(Runtime(environment: merged)) {
      try Context(options: options)
    }
  }

  @Test func namesAndSchemesAreEachProvidersOwn() throws {
    #expect(Set(Self.names).count == Self.names.count)
    #expect(ProviderRegistry.standard.name == "kodo")
    for kind in ProviderRegistry.all {
      #expect(!kind.name.isEmpty && !kind.displayName.isEmpty)
      #expect(
        kind.name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) })
      #expect(ProviderRegistry.named(kind.name)?.name == kind.name)
      #expect(ProviderRegistry.scheme(of: kind.scheme + "bucket/key")?.name == kind.name)
      let context = try Self.context([], [:])
      #expect(try context.strippingScheme(kind.scheme + "bucket") == "bucket")
      #expect(try context.providerKind().name == kind.name)
    }
    #expect(ProviderRegistry.names("or") == "kodo or oss")
  }

  @Test(arguments: ProviderRegistryTests.names)
  func eachProviderIsMadeFromItsConfiguration(name: String) throws {
    let kind = try #require(ProviderRegistry.named(name))
    let environment = try #require(Self.environments[name], "no environment for \(name)")
    let context = try Self.context(["--provider", name], environment)
    let provider = try context.provider()
    #expect(provider.serviceName == kind.displayName)
    #expect(provider is any ObjectWriting, "put, rm and sync need every provider to write")
    #expect(kind.ownKeys(in: context.configuration).isEmpty)
    // Without its settings, it says what is missing.
    let bare = try Self.context(["--provider", name], [:])
    #expect(throws: StorageError.self) { try bare.provider() }
  }

  @Test(arguments: ProviderRegistryTests.names)
  func eachProvidersKeysMeanNothingToTheOthers(name: String) throws {
    let key = try #require(Self.ownKeys[name], "no config key for \(name)")
    let directory = try ConfigDirectory(#"{"accessKey": "AK", "secretKey": "SK", "# + key + "}")
    let kind = try #require(ProviderRegistry.named(name))
    for other in ProviderRegistry.all where other.name != name {
      let environment = try #require(Self.environments[other.name])
      let context = try Self.context(
        ["--provider", other.name, "--config", directory.file], environment)
      #expect(!kind.ownKeys(in: context.configuration).isEmpty)
      let error = try #require(throws: StorageError.self) { try context.provider() }
      #expect(error.kind == .configuration)
      #expect(error.message.contains("means nothing to \(other.displayName)"), "\(error.message)")
    }
  }

  /// Each key belongs to one provider, and an unknown key's message lists them all.
  @Test func configKeysAreEachProvidersOwn() throws {
    let keys = ProviderRegistry.all.flatMap(\.configKeys)
    #expect(Set(keys).count == keys.count)
    let common = ["provider", "accessKey", "secretKey", "bucket", "domains", "profiles"]
    #expect(Set(keys).isDisjoint(with: common))
    for kind in ProviderRegistry.all {
      let sample = try #require(Self.ownKeys[kind.name])
      #expect(kind.configKeys.contains { sample.hasPrefix("\"\($0)\"") })
    }
    let directory = try ConfigDirectory(#"{"regoin": "x"}"#)
    let error = try #require(throws: StorageError.self) {
      _ = try Configuration.load(configFlag: directory.file, profileFlag: nil, environment: [:])
    }
    #expect(
      error.message
        == "config file \(directory.file): unknown key \"regoin\" (keys are provider, accessKey, secretKey, bucket, domains, profiles; for Kodo hosts; for OSS securityToken, region, endpoint, pathStyle, signatureVersion)"
    )
  }

  @Test(arguments: ProviderRegistryTests.names)
  func eachProviderNamesItsStorageClassesAndColumns(name: String) throws {
    let kind = try #require(ProviderRegistry.named(name))
    #expect(!kind.storageClassNames.isEmpty)
    for storageClass in kind.storageClassNames {
      #expect(kind.storageClass(named: storageClass) == storageClass)
      #expect(kind.storageClass(named: storageClass.uppercased()) == storageClass)
    }
    #expect(kind.storageClass(named: "no_such_class") == nil)
    let error = #expect(throws: (any Error).self) {
      try StorageClassNames.resolve("no_such_class", for: kind)
    }
    #expect("\(error.map { "\($0)" } ?? "")".contains("\(kind.displayName) has no storage class"))
    #expect(kind.defaultPartSize > 0)
    #expect(kind.longColumns.hashWidth > 0)
  }
}
