import Foundation
import KodoCore
import StorageCore

/// The settings one level of the file (top level or a profile) may hold.
struct ConfigSettings: Equatable {
  var accessKey: String?
  var secretKey: String?
  var bucket: String?
  var domains: [String: String] = [:]
  var hosts = ServiceHosts()
  /// `provider`: a name in `ProviderRegistry`.
  var provider: String?
  /// OSS's keys (read by `OSSFactory`).
  var oss = OSSSettings()
  /// The keys set that only Kodo understands (`hosts`, read by `KodoFactory`), as the file
  /// names them.
  var kodoOnlyKeys: [String] = []

  func overridden(by other: ConfigSettings) -> ConfigSettings {
    var domains = self.domains
    for (bucket, domain) in other.domains { domains[bucket] = domain }
    var merged = ConfigSettings(
      accessKey: other.accessKey ?? accessKey, secretKey: other.secretKey ?? secretKey,
      bucket: other.bucket ?? bucket, domains: domains, hosts: hosts.overridden(by: other.hosts))
    merged.provider = other.provider ?? provider
    merged.oss = oss.overridden(by: other.oss)
    merged.kodoOnlyKeys = kodoOnlyKeys + other.kodoOnlyKeys
    return merged
  }
}

/// The config file, parsed and checked.
struct ConfigFile {
  var top: ConfigSettings
  var profiles: [String: ConfigSettings]
  var readableByOthers: Bool

  /// The most bytes a config file may hold.
  static let maximumSize = 1 << 20

  /// Reads and checks the file at `path`; `namedBy` is the flag or variable that named it
  /// (`--config`, `KODO_CONFIG`), for messages, or `nil` for the default file.
  static func read(path: String, namedBy: String? = nil) throws(StorageError) -> ConfigFile {
    let data: Data
    let origin = namedBy.map { " (from \($0))" } ?? ""
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      throw StorageError(
        .configuration,
        "cannot read config file \(DisplayText(quoting: path))\(origin): it is a directory; name the JSON file in it"
      )
    }
    do {
      // Bounded: a config file is a few kilobytes; a huge one (or a device) is refused unread.
      let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      defer { try? handle.close() }
      data = try handle.read(upToCount: maximumSize + 1) ?? Data()
    } catch {
      let reason: String
      if !FileManager.default.fileExists(atPath: path) {
        reason = "it does not exist"
      } else if !FileManager.default.isReadableFile(atPath: path) {
        reason = "permission denied"
      } else {
        reason = "it cannot be read"
      }
      throw StorageError(
        .configuration, "cannot read config file \(DisplayText(quoting: path))\(origin): \(reason)")
    }
    if data.count > maximumSize {
      throw StorageError(
        .configuration,
        "config file \(DisplayText(quoting: path))\(origin) is larger than 1 MiB; a config file holds a few kilobytes of JSON"
      )
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
      let (line, column) = Self.lineAndColumn(of: error.offset, in: Array(data))
      throw StorageError(
        .configuration,
        "config file \(path) is not valid JSON: \(error.reason) at line \(line), column \(column)")
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
              "config file \(path): profile \(DisplayText(quoting: profile.name)) must be an object"
            )
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

  /// The 1-based line and column (in characters) of byte `offset`.
  static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    let end = min(max(0, offset), bytes.count)
    var line = 1
    var lineStart = 0
    for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
      line += 1
      lineStart = index + 1
    }
    let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
    return (line, column)
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
      try Self.string(member.value, key: prefix + member.name, path: path)
    }
    for member in members {
      switch member.name {
      case "accessKey": settings.accessKey = try string(member)
      case "secretKey": settings.secretKey = try string(member)
      case "bucket": settings.bucket = try string(member)
      case "provider":
        let name = try string(member)
        guard ProviderRegistry.named(name) != nil else {
          throw StorageError(
            .configuration,
            "config file \(path): \"\(prefix)provider\" must be \(ProviderRegistry.names("or") { "\"\($0.name)\"" }), not \(DisplayText(quoting: name))"
          )
        }
        settings.provider = name
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
      default:
        guard let kind = ProviderRegistry.all.first(where: { $0.configKeys.contains(member.name) })
        else {
          let own = ProviderRegistry.all.map {
            "; for \($0.displayName) \($0.configKeys.joined(separator: ", "))"
          }
          throw StorageError(
            .configuration,
            "config file \(path): unknown key \"\(prefix)\(DisplayText(escaping: member.name))\" (keys are provider, accessKey, secretKey, bucket, domains, profiles\(own.joined()))"
          )
        }
        try kind.readSetting(member, key: prefix + member.name, path: path, into: &settings)
      }
    }
    return settings
  }

  /// `value` as a string; the file's `key` must be one.
  static func string(_ value: JSONValue, key: String, path: String) throws(StorageError) -> String {
    guard case .string(let text) = value else {
      throw StorageError(.configuration, "config file \(path): \"\(key)\" must be a string")
    }
    return text
  }

  /// Throws `.configuration` naming the file's `key` unless `url` is an http(s) base URL.
  static func requireBaseURL(_ url: String, key: String, path: String) throws(StorageError) {
    try requireBaseURL(url, named: "config file \(path): \"\(key)\"")
  }

  /// Throws `.configuration` unless `url` is an http(s) base URL with a host and no query;
  /// `named` says where it came from (`KODO_ENDPOINT`, a key of the config file).
  static func requireBaseURL(_ url: String, named: String) throws(StorageError) {
    guard URLParts.isBaseURL(url) else {
      throw StorageError(
        .configuration,
        "\(named) must be a base URL with http:// or https:// and a host, got \(DisplayText(quoting: redacted(url)))"
      )
    }
  }

  /// `url` with any user information (`user:password@`) and credential-carrying query values
  /// replaced by `<redacted>`, even when it has no scheme.
  static func redacted(_ url: String) -> String {
    if url.contains("://") { return RequestEvent.redactedURL(url) }
    let authorityEnd = URLParts.authorityEnd(in: url)
    guard let at = URLParts.userInfoEnd(in: url[..<authorityEnd]) else {
      return RequestEvent.redactedURL(url)
    }
    return RequestEvent.redactedURL("<redacted>" + url[at...])
  }
}
