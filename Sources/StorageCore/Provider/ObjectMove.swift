extension ObjectWriting {
  /// Moves an object: with the service's own operation where it has one (`ServerSideMoving`),
  /// else by copying, checking that the copy holds the same content, and only then deleting the
  /// source. A copy that cannot be shown to be the same keeps the source and throws
  /// `.protocolError`.
  ///
  /// - Throws: `.invalidInput` when source and destination are the same object, else what the
  ///   copy, the stats or the delete throw.
  public func move(_ request: CopyRequest) async throws(StorageError) {
    guard request.source != request.destination else {
      throw StorageError(
        .invalidInput, "cannot move \(request.source) onto itself")
    }
    if let mover = self as? any ServerSideMoving {
      try await mover.moveOnService(request)
      return
    }
    try await copy(request)
    let source = try await stat(bucket: request.source.bucket, key: request.source.key)
    let copied = try await stat(bucket: request.destination.bucket, key: request.destination.key)
    guard ObjectMoveCheck.sameContent(source, copied) != nil else {
      throw StorageError(
        .protocolError,
        "the copy \(request.destination) cannot be shown to hold the content of \(request.source) (size, CRC-64, hash or ETag differ or are missing); the source was kept"
      )
    }
    try await delete(request.source)
  }
}

/// Whether two objects' details show the same content.
package enum ObjectMoveCheck {
  /// The digest that shows `a` and `b` hold the same content (`crc64`, `hash` or `etag`, the
  /// first both carry), or `nil` when the sizes differ, that digest differs, or neither carries
  /// one both have.
  package static func sameContent(_ a: ObjectDetails, _ b: ObjectDetails) -> String? {
    guard a.object.size == b.object.size else { return nil }
    let pairs: [(String, String?, String?)] = [
      ("crc64", a.crc64, b.crc64),
      ("hash", a.object.hash, b.object.hash),
      ("etag", a.object.etag, b.object.etag),
    ]
    for (name, first, second) in pairs {
      guard let first, let second, !first.isEmpty else { continue }
      return first == second ? name : nil
    }
    return nil
  }
}
