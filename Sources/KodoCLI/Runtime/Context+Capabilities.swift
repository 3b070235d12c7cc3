import StorageCore

extension Context {
  /// The provider as `capability` (`any DomainListing`, `any TokenSigning`), for a command that
  /// needs what only some providers have.
  ///
  /// - Throws: `StorageError` (`invalidInput`) naming the service and `what` it cannot do.
  func provider<Capability>(_ capability: Capability.Type, for what: String)
    throws(StorageError) -> Capability
  {
    let provider = try provider()
    guard let capable = provider as? Capability else {
      throw StorageError(.invalidInput, "\(provider.serviceName) has no \(what)")
    }
    return capable
  }
}
