import ArgumentParser
import StorageCore
import Synchronization

/// The provider named by a scheme on a bucket argument (`oss://…`, `kodo://…`), once one is seen.
final class SchemeChoice: Sendable {
  private let chosen = Mutex<ProviderKind?>(nil)

  var kind: ProviderKind? { chosen.withLock { $0 } }

  /// Records `kind`; a different scheme seen before is a usage error.
  func record(_ kind: ProviderKind) throws {
    let previous = chosen.withLock { value -> ProviderKind? in
      defer { if value == nil { value = kind } }
      return value
    }
    if let previous, !previous.same(as: kind) {
      throw ValidationError(
        "the arguments name both \(previous.scheme) and \(kind.scheme) buckets; one command talks to one service"
      )
    }
  }
}

extension Context {
  /// `text` without a leading `oss://` or `kodo://`, whose provider is recorded for `provider()`.
  ///
  /// - Throws: `ValidationError` (64) when the scheme contradicts `--provider`, or is another
  ///   tool's (`s3://`).
  func strippingScheme(_ text: String) throws -> String {
    if let kind = ProviderRegistry.scheme(of: text) {
      if let flag = options.provider, flag != kind.name {
        throw ValidationError(
          "\(DisplayText(quoting: text)) names a \(kind.name) bucket, but --provider says \(flag)"
        )
      }
      try self.scheme.record(kind)
      return String(text.dropFirst(kind.scheme.count))
    }
    if let separator = text.range(of: "://"), !text[..<separator.lowerBound].isEmpty,
      text[..<separator.lowerBound].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
    {
      throw ValidationError(
        "\(DisplayText(quoting: text)): kodo knows the schemes \(ProviderRegistry.names("and", \.scheme)), or a BUCKET with none"
      )
    }
    return text
  }

  /// The provider: a scheme on a bucket argument, `--provider`, `KODO_PROVIDER`, the config
  /// file's `provider` (profile, then top level), else the registry's first (Kodo).
  ///
  /// - Throws: `StorageError(.configuration)` when `KODO_PROVIDER` names no provider.
  func providerKind() throws(StorageError) -> ProviderKind {
    if let kind = scheme.kind { return kind }
    if let flag = options.provider, let kind = ProviderRegistry.named(flag) { return kind }
    if let variable = environment["KODO_PROVIDER"], !variable.isEmpty {
      guard let kind = ProviderRegistry.named(variable) else {
        throw StorageError(
          .configuration,
          "KODO_PROVIDER must be \(ProviderRegistry.names("or")), not \(DisplayText(quoting: variable))"
        )
      }
      return kind
    }
    if let name = configuration.provider, let kind = ProviderRegistry.named(name) { return kind }
    return ProviderRegistry.standard
  }

  /// The storage provider with the configured credentials, hosts, retries and timeouts.
  ///
  /// - Throws: `StorageError(.configuration)` when the config file sets a key only another
  ///   provider understands, or the provider's own settings are missing or wrong.
  func provider() throws(StorageError) -> any StorageProvider {
    let kind = try providerKind()
    for other in ProviderRegistry.all where !other.same(as: kind) {
      if let key = other.ownKeys(in: configuration).first {
        throw StorageError(
          .configuration,
          "config file \(configuration.file ?? ""): \"\(DisplayText.escaped(key))\" means nothing to \(kind.displayName); remove it, or choose the provider it belongs to"
        )
      }
    }
    return try kind.makeProvider(self)
  }
}
