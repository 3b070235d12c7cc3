public import StorageCore

/// An OSS endpoint (or a custom domain): a scheme and a host with an optional port, nothing else.
///
/// Parsed strictly, because buckets are placed in front of the host and keys after it: a path, a
/// query, user information or a character outside host names would make every URL built on it
/// point somewhere else.
public struct OSSEndpoint: Sendable, Hashable, CustomStringConvertible {
  /// `https` (the default when none is given) or `http`.
  public let scheme: String
  /// The host, lower-cased, with `:port` when one was given (IPv6 addresses in brackets).
  public let authority: String
  /// The host without the port.
  public let host: String

  /// Parses `https://host[:port][/]`, or `host[:port]` (which means https).
  ///
  /// - Throws: `StorageError(.configuration)` naming what is wrong with the text.
  public init(_ text: String) throws(StorageError) {
    let trimmed = String(KeySegments.droppingTrailingSlashes(text))
    let parts = URLParts(WireText.contains(trimmed, "://") ? trimmed : "https://" + trimmed)
    func invalid(_ why: String) -> StorageError {
      StorageError(
        .configuration, "the endpoint \(DisplayText.quoted(text)) is not usable: \(why)")
    }
    guard parts.isHTTP else {
      throw invalid("only http:// and https:// are supported")
    }
    guard parts.path.isEmpty, parts.query == nil, !WireText.contains(trimmed, byte: "#") else {
      throw invalid("it must be a scheme and a host only, without a path or a query")
    }
    let authority = WireText.asciiLowercased(parts.authority)
    guard !authority.isEmpty else { throw invalid("it has no host") }
    guard !WireText.contains(authority, byte: "@") else {
      throw invalid("it must not contain user information")
    }
    let host = URLParts("http://" + authority).host
    if authority.utf8.count > host.utf8.count {
      let port = Substring(authority.utf8.dropFirst(host.utf8.count + 1))
      guard let number = Int(port), (1...65_535).contains(number), port.allSatisfy(\.isASCII)
      else { throw invalid("the port is not a number from 1 to 65535") }
    }
    guard Self.isHostName(host) || Self.isIPv4(host) || Self.isBracketedIPv6(host) else {
      throw invalid("the host is not a host name or an IP address")
    }
    self.scheme = parts.scheme
    self.authority = authority
    self.host = host
  }

  /// The public endpoint of a region: `https://oss-<region>.aliyuncs.com`, or with `internalNetwork`
  /// the one reachable from Aliyun's own network, `https://oss-<region>-internal.aliyuncs.com`.
  ///
  /// - Throws: `StorageError(.configuration)` when `region` is not a region ID.
  public init(region: String, internalNetwork: Bool = false) throws(StorageError) {
    let id = try OSSRegion.id(region)
    try self.init("https://oss-" + id + (internalNetwork ? "-internal" : "") + ".aliyuncs.com")
  }

  /// `scheme://authority`, the base every URL starts with.
  public var baseURL: String { scheme + "://" + authority }

  /// The base URL.
  public var description: String { baseURL }

  /// Whether the host is an IPv4 or IPv6 address: such endpoints are always addressed in path
  /// style (`http://127.0.0.1:9000/bucket/key`). `localhost` is a name, not an address.
  public var isIPAddress: Bool { Self.isIPv4(host) || Self.isBracketedIPv6(host) }

  /// Whether the host is one of Aliyun's (`*.aliyuncs.com`), where OSS refuses path style.
  public var isAliyunHost: Bool { WireText.hasSuffix(host, ".aliyuncs.com") }

  /// The region ID an Aliyun endpoint names: `oss-cn-hangzhou.aliyuncs.com`,
  /// `oss-cn-hangzhou-internal.aliyuncs.com` and `cn-hangzhou.oss.aliyuncs.com` all name
  /// `cn-hangzhou`; `nil` for other hosts (acceleration endpoints, custom domains, addresses).
  public var regionID: String? {
    guard isAliyunHost else { return nil }
    let labels = WireText.split(host, at: ".")
    guard labels.count >= 3 else { return nil }
    var candidate: Substring
    if labels.count == 4 && WireText.same(labels[1], "oss") {
      candidate = labels[0]
    } else if labels.count == 3, let region = WireText.dropping(prefix: "oss-", from: labels[0]) {
      candidate = WireText.dropping(suffix: "-internal", from: region) ?? region
    } else {
      return nil
    }
    guard !WireText.hasPrefix(candidate, "accelerate"),
      let id = try? OSSRegion.id(String(candidate))
    else { return nil }
    return id
  }

  /// RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens.
  static func isHostName(_ host: String) -> Bool {
    let bytes = Array(host.utf8)
    guard !bytes.isEmpty, bytes.count <= 253 else { return false }
    for label in bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
      guard !label.isEmpty, label.count <= 63, label.first != UInt8(ascii: "-"),
        label.last != UInt8(ascii: "-"),
        label.allSatisfy({ isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") })
      else { return false }
    }
    return true
  }

  static func isIPv4(_ host: String) -> Bool {
    let octets = WireText.split(host, at: ".")
    return octets.count == 4
      && octets.allSatisfy { octet in
        (1...3).contains(octet.utf8.count) && octet.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
          && Int(octet).map { $0 <= 255 } == true
      }
  }

  static func isBracketedIPv6(_ host: String) -> Bool {
    guard let opened = WireText.dropping(prefix: "[", from: host),
      let inside = WireText.dropping(suffix: "]", from: opened), !inside.isEmpty
    else { return false }
    return inside.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
        UInt8(ascii: ":"), UInt8(ascii: "."):
        true
      default: false
      }
    }
  }

  @inline(__always)
  static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
      || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
  }
}

/// OSS region IDs: `cn-hangzhou`, the name the V4 signature's scope must carry.
public enum OSSRegion {
  /// The region ID in `text`, which may also be an OSS region name as bucket answers and
  /// endpoints spell it (`oss-cn-hangzhou`, `oss-cn-hangzhou-internal`): those are reduced to the
  /// ID, since a V4 scope with anything but the ID is refused by OSS.
  ///
  /// - Throws: `StorageError(.configuration)` when the text is not of the form `cn-hangzhou`.
  public static func id(_ text: String) throws(StorageError) -> String {
    var id = Substring(text)
    if let rest = WireText.dropping(prefix: "oss-", from: id) { id = rest }
    if let rest = WireText.dropping(suffix: "-internal", from: id) { id = rest }
    let labels = id.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
    guard id.utf8.count <= 63, labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }),
      labels[0].allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }),
      labels.allSatisfy({ $0.allSatisfy(OSSEndpoint.isLowerAlphanumeric) })
    else {
      throw StorageError(
        .configuration,
        "\(DisplayText.quoted(text)) is not an OSS region ID (such as cn-hangzhou or ap-southeast-1)"
      )
    }
    return String(id)
  }
}
