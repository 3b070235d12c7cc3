/// A provider whose buckets have base URLs of their own to list (Kodo's bound domains): the
/// `domains` command's capability.
public protocol DomainListing: StorageProvider {
  /// The base URLs a bucket's objects can be fetched from.
  func domains(bucket: String) async throws(StorageError) -> [BucketDomain]
}

/// A provider that signs values for other programs to send to the service themselves (Kodo's
/// Authorization values and upload tokens): the `token` command's capability. Nothing is sent.
public protocol TokenSigning: StorageProvider {
  /// The `Authorization` value for `request` in the service's scheme named `scheme` (Kodo's
  /// `QBox` or `Qiniu`), or `nil` when the service has no scheme of that name.
  func authorization(for request: SignableRequest, scheme: String) -> String?

  /// The upload policy for uploads to `scope` until `deadline` (Unix seconds), with `extra`'s
  /// fields after the service's own, as the text that is signed.
  ///
  /// - Throws: `StorageError` (`invalidInput`) when `extra` cannot be part of a policy.
  func uploadPolicy(scope: String, deadline: Int64, extra: JSONValue?) throws(StorageError)
    -> String

  /// The upload token for `policy`, a policy's text as `uploadPolicy` made it.
  func uploadToken(policy: String) -> String
}
