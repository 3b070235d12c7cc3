import Synchronization

/// Digests of a stored object's content, as a set: its Kodo `hash` (the qetag) and its CRC-64.
struct DigestFields: OptionSet, Sendable {
  let rawValue: Int
  static let hash = DigestFields(rawValue: 1)
  static let crc64 = DigestFields(rawValue: 2)

  /// The fields `metadata` lacks: a written object's `hash` is empty and its `crc64` `nil`
  /// until computed.
  static func missing(in metadata: ObjectMetadata) -> DigestFields {
    var missing: DigestFields = []
    if metadata.hash.isEmpty { missing.insert(.hash) }
    if metadata.crc64 == nil { missing.insert(.crc64) }
    return missing
  }
}

/// The digests a write did not compute, because its protocol does not answer with them (a Kodo
/// upload's CRC-64, an OSS upload's qetag): each is computed from the object's bytes when a read
/// first asks for it (a Kodo stat or list of an OSS upload, an OSS HEAD of a Kodo upload), once
/// however many ask at the same time, then remembered here (and by the store in the object's
/// metadata and record, `ObjectStore.remember`).
///
/// Every copy of a `StoredObject` shares its slot, so what one snapshot computed the others
/// see.
final class PendingDigests: Sendable {
  private struct Known {
    var hash: String?
    var crc64: UInt64?
  }

  private let known = Mutex(Known())
  /// Held while the bytes are read, so that they are read once.
  private let computing = Mutex(())

  init() {}

  /// Fills the fields of `wanted` that `metadata` lacks, computing those not yet known from
  /// `body` (one read for all of them). Returns the fields computed now; none when `body` is
  /// `nil` or cannot be read (the fields then stay missing).
  @discardableResult
  func fill(
    _ metadata: inout ObjectMetadata, _ wanted: DigestFields, body: () -> ObjectBody?
  ) -> DigestFields {
    apply(to: &metadata)
    guard !DigestFields.missing(in: metadata).intersection(wanted).isEmpty else { return [] }
    return computing.withLock { _ -> DigestFields in
      // Another reader may have computed them while this one waited.
      apply(to: &metadata)
      let missing = DigestFields.missing(in: metadata).intersection(wanted)
      guard !missing.isEmpty, let body = body() else { return [] }
      var options: DigestPass.Options = []
      if missing.contains(.hash) { options.insert(.blocks) }
      if missing.contains(.crc64) { options.insert(.crc64) }
      let digests: PartDigests
      do throws(StoreFailure) {
        digests = try DigestPass.of(.whole(body), options)
      } catch {
        return []
      }
      guard digests.size == metadata.fsize else { return [] }
      known.withLock { known in
        if missing.contains(.hash) { known.hash = digests.qetag }
        if missing.contains(.crc64) { known.crc64 = digests.crc64 }
      }
      apply(to: &metadata)
      return missing
    }
  }

  /// Copies what is known into `metadata`, where it lacks it.
  func apply(to metadata: inout ObjectMetadata) {
    let known = known.withLock { $0 }
    if metadata.hash.isEmpty, let hash = known.hash { metadata.hash = hash }
    if metadata.crc64 == nil, let crc = known.crc64 { metadata.crc64 = crc }
  }
}
