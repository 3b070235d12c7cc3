import StorageCore

extension KodoFactory {
  /// `hosts`: base URLs for Kodo's services (`uc`, `rs`, `rsf`, `api`).
  var configKeys: [String] { ["hosts"] }

  func readSetting(
    _ member: JSONValue.Member, key: String, path: String, into settings: inout ConfigSettings
  ) throws(StorageError) {
    settings.kodoOnlyKeys.append(key)
    guard let hosts = member.value.objectMembers else {
      throw StorageError(.configuration, "config file \(path): \"\(key)\" must be an object")
    }
    for host in hosts {
      guard case .string(let url) = host.value else {
        throw StorageError(
          .configuration, "config file \(path): \"\(key).\(host.name)\" must be a string")
      }
      try ConfigFile.requireBaseURL(url, key: "\(key).\(host.name)", path: path)
      switch host.name {
      case "uc": settings.hosts.uc = url
      case "rs": settings.hosts.rs = url
      case "rsf": settings.hosts.rsf = url
      case "api": settings.hosts.api = url
      default:
        throw StorageError(
          .configuration,
          "config file \(path): unknown key \"\(key).\(DisplayText(escaping: host.name))\" (hosts are uc, rs, rsf, api)"
        )
      }
    }
  }
}
