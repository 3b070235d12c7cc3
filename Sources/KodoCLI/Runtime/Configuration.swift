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
  /// The profile that was applied, if any.
  var profile: String?
  /// Whether the config file can be read by users other than its owner (it holds a secret).
  var fileReadableByOthers: Bool
  /// Where only one of the two keys came from, so the error can say what is missing.
  var partialCredentialsSource: String?

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
    let place =
      file.map { "accessKey and secretKey in \($0)" } ?? "a config file (see config.example.json)"
    if let partial = partialCredentialsSource {
      throw StorageError(
        .configuration,
        "incomplete credentials: \(partial); set both QINIU_ACCESS_KEY and QINIU_SECRET_KEY, or both keys in \(file ?? "the config file")"
      )
    }
    throw StorageError(
      .configuration,
      "no credentials: set QINIU_ACCESS_KEY and QINIU_SECRET_KEY, or \(place)")
  }

  /// Loads and merges the configuration.
  ///
  /// Precedence, for each value: the flags, then `QINIU_ACCESS_KEY`/`QINIU_SECRET_KEY`/
  /// `KODO_CONFIG`/`KODO_PROFILE`, then the config file (`--config`, `KODO_CONFIG`,
  /// `$XDG_CONFIG_HOME/kodo/config.json`, `~/.config/kodo/config.json`). A file named explicitly
  /// must exist; the default file may be missing.
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
    let path: String?
    if let explicitPath {
      path = explicitPath
    } else if let xdg = nonEmpty(environment["XDG_CONFIG_HOME"]) {
      path = xdg + "/kodo/config.json"
    } else if let home = nonEmpty(environment["HOME"]) {
      path = home + "/.config/kodo/config.json"
    } else {
      path = nil
    }

    var configuration = Configuration()
    var fileAccessKey: String?
    var fileSecretKey: String?
    let profileName = nonEmpty(profileFlag) ?? nonEmpty(environment["KODO_PROFILE"])

    if let path {
      let exists = FileManager.default.fileExists(atPath: path)
      if exists || explicitPath != nil {
        let file = try ConfigFile.read(path: path)
        configuration.file = path
        configuration.fileReadableByOthers = file.readableByOthers
        var settings = file.top
        if let profileName {
          guard let profile = file.profiles[profileName] else {
            let known = file.profiles.keys.sorted()
            throw StorageError(
              .configuration,
              "no profile \(DisplayText.quoted(profileName)) in \(path)"
                + (known.isEmpty
                  ? " (it defines no profiles)" : " (profiles: \(known.joined(separator: ", ")))"))
          }
          settings = settings.overridden(by: profile)
          configuration.profile = profileName
        }
        fileAccessKey = settings.accessKey
        fileSecretKey = settings.secretKey
        configuration.bucket = settings.bucket
        configuration.domains = settings.domains
        configuration.hosts = settings.hosts
      }
    }
    if profileName != nil && configuration.profile == nil {
      throw StorageError(
        .configuration,
        "profile \(DisplayText.quoted(profileName ?? "")) was asked for, but there is no config file"
          + (path.map { " at \($0)" } ?? ""))
    }

    let accessKey = nonEmpty(environment["QINIU_ACCESS_KEY"]) ?? fileAccessKey
    let secretKey = nonEmpty(environment["QINIU_SECRET_KEY"]) ?? fileSecretKey
    if let accessKey, let secretKey {
      configuration.credentials = Credentials(accessKey: accessKey, secretKey: secretKey)
    } else if accessKey != nil {
      configuration.partialCredentialsSource = "an access key but no secret key"
    } else if secretKey != nil {
      configuration.partialCredentialsSource = "a secret key but no access key"
    }
    return configuration
  }

  private static func nonEmpty(_ value: String?) -> String? {
    guard let value, !value.isEmpty else { return nil }
    return value
  }
}

/// The settings one level of the file (top level or a profile) may hold.
struct ConfigSettings: Equatable {
  var accessKey: String?
  var secretKey: String?
  var bucket: String?
  var domains: [String: String] = [:]
  var hosts = ServiceHosts()

  func overridden(by other: ConfigSettings) -> ConfigSettings {
    var domains = self.domains
    for (bucket, domain) in other.domains { domains[bucket] = domain }
    return ConfigSettings(
      accessKey: other.accessKey ?? accessKey, secretKey: other.secretKey ?? secretKey,
      bucket: other.bucket ?? bucket, domains: domains, hosts: hosts.overridden(by: other.hosts))
  }
}

/// The config file, parsed and checked.
struct ConfigFile {
  var top: ConfigSettings
  var profiles: [String: ConfigSettings]
  var readableByOthers: Bool

  static func read(path: String) throws(StorageError) -> ConfigFile {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      let reason: String
      if !FileManager.default.fileExists(atPath: path) {
        reason = "it does not exist"
      } else if !FileManager.default.isReadableFile(atPath: path) {
        reason = "permission denied"
      } else {
        reason = "it cannot be read"
      }
      throw StorageError(.configuration, "cannot read config file \(path): \(reason)")
    }
    var readableByOthers = false
    if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let permissions = attributes[.posixPermissions] as? NSNumber
    {
      readableByOthers = permissions.intValue & 0o044 != 0
    }
    // JSON is UTF-8 (RFC 8259); replacing bad bytes would silently change a key or a secret.
    guard let text = String(validating: data, as: UTF8.self) else {
      let valid = Self.validUTF8Prefix(Array(data))
      throw StorageError(
        .configuration,
        "config file \(path) is not valid UTF-8 (at byte \(valid)); save it as UTF-8")
    }
    let root: JSONValue
    do {
      root = try JSONValue.parse(text)
    } catch {
      throw StorageError(.configuration, "config file \(path) is not valid JSON: \(error)")
    }
    guard let members = root.objectMembers else {
      throw StorageError(.configuration, "config file \(path) must hold a JSON object")
    }
    var file = ConfigFile(top: ConfigSettings(), profiles: [:], readableByOthers: readableByOthers)
    var topMembers: [JSONValue.Member] = []
    for member in members {
      if member.name == "profiles" {
        guard let profiles = member.value.objectMembers else {
          throw StorageError(.configuration, "config file \(path): \"profiles\" must be an object")
        }
        for profile in profiles {
          guard let profileMembers = profile.value.objectMembers else {
            throw StorageError(
              .configuration,
              "config file \(path): profile \(DisplayText.quoted(profile.name)) must be an object")
          }
          file.profiles[profile.name] = try settings(
            profileMembers, path: path, prefix: "profiles." + profile.name + ".")
        }
      } else {
        topMembers.append(member)
      }
    }
    file.top = try settings(topMembers, path: path, prefix: "")
    return file
  }

  /// How many bytes at the start of `bytes` are valid UTF-8.
  static func validUTF8Prefix(_ bytes: [UInt8]) -> Int {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var offset = 0
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): offset += UTF8.width(scalar)
      case .emptyInput, .error: return offset
      }
    }
  }

  private static func settings(_ members: [JSONValue.Member], path: String, prefix: String)
    throws(StorageError) -> ConfigSettings
  {
    var settings = ConfigSettings()
    func string(_ member: JSONValue.Member) throws(StorageError) -> String {
      guard case .string(let text) = member.value else {
        throw StorageError(
          .configuration, "config file \(path): \"\(prefix)\(member.name)\" must be a string")
      }
      return text
    }
    for member in members {
      switch member.name {
      case "accessKey": settings.accessKey = try string(member)
      case "secretKey": settings.secretKey = try string(member)
      case "bucket": settings.bucket = try string(member)
      case "domains":
        guard let domains = member.value.objectMembers else {
          throw StorageError(
            .configuration, "config file \(path): \"\(prefix)domains\" must be an object")
        }
        for domain in domains {
          guard case .string(let url) = domain.value else {
            throw StorageError(
              .configuration,
              "config file \(path): \"\(prefix)domains.\(domain.name)\" must be a string")
          }
          try requireBaseURL(url, key: "\(prefix)domains.\(domain.name)", path: path)
          settings.domains[domain.name] = url
        }
      case "hosts":
        guard let hosts = member.value.objectMembers else {
          throw StorageError(
            .configuration, "config file \(path): \"\(prefix)hosts\" must be an object")
        }
        for host in hosts {
          guard case .string(let url) = host.value else {
            throw StorageError(
              .configuration,
              "config file \(path): \"\(prefix)hosts.\(host.name)\" must be a string")
          }
          try requireBaseURL(url, key: "\(prefix)hosts.\(host.name)", path: path)
          switch host.name {
          case "uc": settings.hosts.uc = url
          case "rs": settings.hosts.rs = url
          case "rsf": settings.hosts.rsf = url
          case "api": settings.hosts.api = url
          default:
            throw StorageError(
              .configuration,
              "config file \(path): unknown key \"\(prefix)hosts.\(DisplayText.escaped(host.name))\" (hosts are uc, rs, rsf, api)"
            )
          }
        }
      default:
        throw StorageError(
          .configuration,
          "config file \(path): unknown key \"\(prefix)\(DisplayText.escaped(member.name))\" (keys are accessKey, secretKey, bucket, domains, hosts, profiles)"
        )
      }
    }
    return settings
  }

  private static func requireBaseURL(_ url: String, key: String, path: String) throws(StorageError)
  {
    let parts = URLParts(url)
    guard parts.scheme == "http" || parts.scheme == "https", !parts.host.isEmpty, parts.query == nil
    else {
      throw StorageError(
        .configuration,
        "config file \(path): \"\(key)\" must be a base URL with http:// or https:// and a host, got \(DisplayText.quoted(url))"
      )
    }
  }
}
