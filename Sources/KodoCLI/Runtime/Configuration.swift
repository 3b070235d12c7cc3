import Foundation
import KodoCore
import StorageCore

/// The settings a command runs with, after flags, environment and the config file are merged.
struct Configuration: Sendable {
  /// The credentials, when any source supplied both keys.
  var credentials: Credentials?
  /// The default bucket.
  var bucket: String?
  /// Download base URLs per bucket.
  var domains: [String: String]
  /// Host overrides.
  var hosts: ServiceHosts
  /// The config file that was read, if any.
  var file: String?
  /// Where the config file is looked for (`$XDG_CONFIG_HOME` honoured), read or not.
  var defaultFile: String?
  /// The profile that was applied, if any.
  var profile: String?
  /// Whether the config file can be read by users other than its owner (it holds a secret).
  var fileReadableByOthers: Bool
  /// Where only one of the two keys came from, so the error can say what is missing.
  var partialCredentialsSource: String?
  /// The file's `provider` (the profile's, else the top level's).
  var provider: String?
  /// The file's access key and secret key, for a provider whose variables are not Kodo's.
  var fileAccessKey: String?
  var fileSecretKey: String?
  /// The file's OSS keys.
  var oss = OSSSettings()
  /// The file's keys that only Kodo understands.
  var kodoOnlyKeys: [String] = []

  /// An empty configuration (nothing set).
  init(
    credentials: Credentials? = nil, bucket: String? = nil, domains: [String: String] = [:],
    hosts: ServiceHosts = ServiceHosts()
  ) {
    self.credentials = credentials
    self.bucket = bucket
    self.domains = domains
    self.hosts = hosts
    self.file = nil
    self.profile = nil
    self.fileReadableByOthers = false
    self.partialCredentialsSource = nil
  }

  /// The credentials, or a `.configuration` error that says how to supply them.
  func requireCredentials() throws(StorageError) -> Credentials {
    if let credentials { return credentials }
    let file = self.file.map { DisplayText(quoting: $0) } ?? "the config file"
    if let partial = partialCredentialsSource {
      throw StorageError(
        .configuration,
        "incomplete credentials: \(partial); set both QINIU_ACCESS_KEY and QINIU_SECRET_KEY, or both \"accessKey\" and \"secretKey\" in \(file)"
      )
    }
    let place =
      self.file == nil
      ? "or write them to \(defaultFile.map { DisplayText(quoting: $0) } ?? "~/.config/kodo/config.json") as {\"accessKey\": \"…\", \"secretKey\": \"…\"} (chmod 600)"
      : "or add \"accessKey\" and \"secretKey\" to \(file)"
    throw StorageError(
      .configuration, "no credentials: set QINIU_ACCESS_KEY and QINIU_SECRET_KEY, \(place)")
  }

  /// The config file's path: `--config`, `KODO_CONFIG`, `$XDG_CONFIG_HOME/kodo/config.json`,
  /// else `~/.config/kodo/config.json`; `nil` without a home.
  static func filePath(configFlag: String?, environment: [String: String]) -> String? {
    if let explicit = nonEmpty(configFlag) ?? nonEmpty(environment["KODO_CONFIG"]) {
      return explicit
    }
    if let xdg = nonEmpty(environment["XDG_CONFIG_HOME"]) { return xdg + "/kodo/config.json" }
    return nonEmpty(environment["HOME"]).map { $0 + "/.config/kodo/config.json" }
  }

  /// Loads and merges the configuration.
  ///
  /// Precedence, for each value: the flags, then `QINIU_ACCESS_KEY`/`QINIU_SECRET_KEY`/
  /// `KODO_CONFIG`/`KODO_PROFILE`/`KODO_ENDPOINT`, then the config file (`--config`,
  /// `KODO_CONFIG`, `$XDG_CONFIG_HOME/kodo/config.json`, `~/.config/kodo/config.json`). A file
  /// named explicitly must exist; the default file may be missing. Errors about a value that
  /// came from the environment name the variable.
  ///
  /// - Parameters:
  ///   - configFlag: `--config`, if given.
  ///   - profileFlag: `--profile`, if given.
  ///   - environment: the process environment (passed in; the library never reads it itself).
  /// - Returns: the merged configuration.
  /// - Throws: `StorageError` (`.configuration`) naming the file and the key that is wrong.
  static func load(
    configFlag: String?, profileFlag: String?, environment: [String: String]
  ) throws(StorageError) -> Configuration {
    let explicitPath = nonEmpty(configFlag) ?? nonEmpty(environment["KODO_CONFIG"])
    let pathSource = nonEmpty(configFlag) != nil ? "--config" : "KODO_CONFIG"
    let path = filePath(configFlag: configFlag, environment: environment)

    var configuration = Configuration()
    configuration.defaultFile = path
    var fileAccessKey: String?
    var fileSecretKey: String?
    let profileName = nonEmpty(profileFlag) ?? nonEmpty(environment["KODO_PROFILE"])
    let profileSource = nonEmpty(profileFlag) != nil ? "--profile" : "KODO_PROFILE"

    if let path {
      let exists = FileManager.default.fileExists(atPath: path)
      if exists || explicitPath != nil {
        let file = try ConfigFile.read(
          path: path, namedBy: explicitPath == nil ? nil : pathSource)
        configuration.file = path
        configuration.fileReadableByOthers = file.readableByOthers
        var settings = file.top
        if let profileName {
          guard let profile = file.profiles[profileName] else {
            let known = file.profiles.keys.sorted()
            throw StorageError(
              .configuration,
              "no profile \(DisplayText(quoting: profileName)) (from \(profileSource)) in \(DisplayText(quoting: path))"
                + (known.isEmpty
                  ? " (it defines no profiles)" : " (profiles: \(known.joined(separator: ", ")))"))
          }
          var base = settings
          if let provider = profile.provider,
            provider != (base.provider ?? ProviderRegistry.standard.name)
          {
            // A profile for the other service: the top level's keys of its own service are
            // not the profile's mistake.
            base.oss.keys = []
            base.kodoOnlyKeys = []
          }
          settings = base.overridden(by: profile)
          configuration.profile = profileName
        }
        fileAccessKey = settings.accessKey
        fileSecretKey = settings.secretKey
        configuration.fileAccessKey = settings.accessKey
        configuration.fileSecretKey = settings.secretKey
        configuration.provider = settings.provider
        configuration.oss = settings.oss
        configuration.kodoOnlyKeys = settings.kodoOnlyKeys
        configuration.bucket = settings.bucket
        configuration.domains = settings.domains
        configuration.hosts = settings.hosts
      }
    }
    if let endpoint = nonEmpty(environment["KODO_ENDPOINT"]) {
      try ConfigFile.requireBaseURL(endpoint, named: "KODO_ENDPOINT")
      configuration.hosts = ServiceHosts(uc: endpoint, rs: endpoint, rsf: endpoint, api: endpoint)
    }
    if profileName != nil && configuration.profile == nil {
      throw StorageError(
        .configuration,
        "profile \(DisplayText(quoting: profileName ?? "")) was asked for (by \(profileSource)), but there is no config file"
          + (path.map { " at \(DisplayText(quoting: $0))" } ?? ""))
    }

    let accessKey = nonEmpty(environment["QINIU_ACCESS_KEY"]) ?? fileAccessKey
    let secretKey = nonEmpty(environment["QINIU_SECRET_KEY"]) ?? fileSecretKey
    if let accessKey, let secretKey {
      configuration.credentials = Credentials(accessKey: accessKey, secretKey: secretKey)
    } else if accessKey != nil {
      configuration.partialCredentialsSource =
        "an access key"
        + (nonEmpty(environment["QINIU_ACCESS_KEY"]) != nil ? " (QINIU_ACCESS_KEY)" : "")
        + " but no secret key"
    } else if secretKey != nil {
      configuration.partialCredentialsSource =
        "a secret key"
        + (nonEmpty(environment["QINIU_SECRET_KEY"]) != nil ? " (QINIU_SECRET_KEY)" : "")
        + " but no access key"
    }
    return configuration
  }

  private static func nonEmpty(_ value: String?) -> String? {
    guard let value, !value.isEmpty else { return nil }
    return value
  }
}
