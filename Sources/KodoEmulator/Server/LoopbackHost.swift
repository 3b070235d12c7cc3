import StorageCore

/// The `Host` check of an emulator bound to a loopback address.
///
/// A page on `evil.example` whose name later resolves to 127.0.0.1 (DNS rebinding) makes the
/// browser send `Host: evil.example`; a loopback-bound emulator answers only requests that name a
/// loopback host: `localhost`, `127.x.y.z` or `[::1]`, with or without a port.
enum LoopbackHost {
  /// Whether a bind address is a loopback one (`localhost`, `127.x.y.z`, `::1`).
  static func isLoopback(_ address: String) -> Bool {
    let host = Substring(address)
    let bracketed = WireText.dropping(prefix: "[", from: host).flatMap {
      WireText.dropping(suffix: "]", from: $0)
    }
    return isLoopbackName(bracketed ?? host)
  }

  /// Whether a request may be answered: its `Host` (and the authority of an absolute-form
  /// target) name a loopback host. A request without `Host` is accepted: browsers always send one.
  static func accepts(host: String?, target: RequestTarget) -> Bool {
    if let host, !acceptsAuthority(Substring(host)) { return false }
    if let authority = target.authority, !acceptsAuthority(authority) { return false }
    return true
  }

  /// `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT` with a loopback host and a numeric port.
  private static func acceptsAuthority(_ authority: Substring) -> Bool {
    let host: Substring
    let port: Substring?
    if let opened = WireText.dropping(prefix: "[", from: authority) {
      guard let (inside, rest) = WireText.cut(opened, at: "]") else { return false }
      host = inside
      if rest.isEmpty {
        port = nil
      } else {
        guard let number = WireText.dropping(prefix: ":", from: rest) else { return false }
        port = number
      }
      guard WireText.same(host, "::1") else { return false }
    } else {
      if let (name, number) = WireText.cut(authority, at: ":") {
        host = name
        port = number
      } else {
        host = authority
        port = nil
      }
      guard isLoopbackName(host), !WireText.same(host, "::1") else { return false }
    }
    if let port {
      guard (1...5).contains(port.utf8.count),
        port.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
      else { return false }
    }
    return true
  }

  /// `localhost` (any case), `::1`, or a dotted-quad IPv4 address in 127.0.0.0/8.
  private static func isLoopbackName(_ host: Substring) -> Bool {
    if WireText.sameIgnoringASCIICase(host, "localhost") || WireText.same(host, "::1") {
      return true
    }
    let parts = WireText.split(host, at: ".")
    guard parts.count == 4, WireText.same(parts[0], "127") else { return false }
    return parts.allSatisfy { part in
      (1...3).contains(part.utf8.count)
        && part.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        && (Int(part) ?? 256) <= 255
    }
  }
}
