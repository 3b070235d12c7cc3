import StorageCore

/// The keys of the config file that only OSS understands.
struct OSSSettings: Equatable {
  var securityToken: String?
  var region: String?
  var endpoint: String?
  var pathStyle: Bool?
  var signatureVersion: String?
  /// The keys set, as the file names them.
  var keys: [String] = []

  func overridden(by other: OSSSettings) -> OSSSettings {
    OSSSettings(
      securityToken: other.securityToken ?? securityToken, region: other.region ?? region,
      endpoint: other.endpoint ?? endpoint, pathStyle: other.pathStyle ?? pathStyle,
      signatureVersion: other.signatureVersion ?? signatureVersion, keys: keys + other.keys)
  }
}

extension OSSFactory {
  var configKeys: [String] {
    ["securityToken", "region", "endpoint", "pathStyle", "signatureVersion"]
  }

  func readSetting(
    _ member: JSONValue.Member, key: String, path: String, into settings: inout ConfigSettings
  ) throws(StorageError) {
    func string() throws(StorageError) -> String {
      try ConfigFile.string(member.value, key: key, path: path)
    }
    switch member.name {
    case "securityToken": settings.oss.securityToken = try string()
    case "region": settings.oss.region = try string()
    case "endpoint": settings.oss.endpoint = try string()
    case "signatureVersion":
      let version = try string()
      guard version == "v1" || version == "v4" else {
        throw StorageError(
          .configuration,
          "config file \(path): \"\(key)\" must be \"v4\" or \"v1\", not \(DisplayText(quoting: version))"
        )
      }
      settings.oss.signatureVersion = version
    case "pathStyle":
      guard case .bool(let flag) = member.value else {
        throw StorageError(
          .configuration, "config file \(path): \"\(key)\" must be true or false")
      }
      settings.oss.pathStyle = flag
    default:
      return
    }
    settings.oss.keys.append(key)
  }
}
