/// A provider whose objects can be disabled and enabled again (Kodo's object status: a disabled
/// object is kept but not served). OSS has no such status; commands ask for it with `as?`, like
/// the other capabilities.
public protocol ObjectStatusChanging: ObjectWriting {
  /// Sets the object's status to `.enabled` or `.disabled`.
  ///
  /// - Throws: `.invalidInput` for another status, else what the service answers (`.notFound`
  ///   for a missing object).
  func changeStatus(_ object: ObjectLocation, to status: ObjectStatus) async throws(StorageError)
}
