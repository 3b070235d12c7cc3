public import StorageCore

/// One of Kodo's rs management operations (`docs/write-protocol.md` §A8): its path on the rs
/// host, sent alone with `POST`, or as one `op=` of a `/batch`.
///
/// Entries are `EncodedEntryURI`s and values URL-safe base64 with padding; `=`, `-` and `_`
/// stay literal in the path.
public enum KodoOperation: Sendable, Equatable {
  /// `/delete/<E>[/cond/<c>]`.
  case delete(ObjectLocation, condition: KodoCondition? = nil)
  /// `/move/<Esrc>/<Edst>/force/<bool>` (614 when the destination exists and not `force`).
  case move(ObjectLocation, to: ObjectLocation, force: Bool)
  /// `/copy/<Esrc>/<Edst>/force/<bool>`.
  case copy(ObjectLocation, to: ObjectLocation, force: Bool)
  /// `/chgm/<E>[/mime/<b64>][/x-qn-meta-<name>/<b64>]…`.
  case changeMetadata(ObjectLocation, mimeType: String?, metadata: [MetadataEntry])
  /// `/chtype/<E>/type/<n>`: 0 standard … 5 intelligent tiering.
  case changeType(ObjectLocation, type: Int)
  /// `/chstatus/<E>/status/<n>`: 0 enabled, 1 disabled.
  case changeStatus(ObjectLocation, status: Int)
  /// `/deleteAfterDays/<E>/<n>` (0 cancels).
  case deleteAfterDays(ObjectLocation, days: Int)
  /// `/lifecycle/<E>/toIAAfterDays/<n>/toArchiveIRAfterDays/<n>/toArchiveAfterDays/<n>/
  /// toDeepArchiveAfterDays/<n>/deleteAfterDays/<n>[/cond/<c>]` (0 unchanged, −1 cancels).
  case lifecycle(ObjectLocation, KodoLifecycle, condition: KodoCondition? = nil)
  /// `/restoreAr/<E>/freezeAfterDays/<n>` (1 to 7 days).
  case restoreArchive(ObjectLocation, days: Int)
  /// `/stat/<E>`.
  case stat(ObjectLocation)

  /// The operation's path, with its leading `/`.
  public var path: String {
    func entry(_ location: ObjectLocation) -> String {
      EncodedEntryURI.encode(bucket: location.bucket, key: location.key)
    }
    func condition(_ value: KodoCondition?) -> String {
      value.map { "/cond/" + $0.encoded } ?? ""
    }
    switch self {
    case .delete(_, nil), .move, .copy:
      // Written once, as the bytes a batch carries.
      var bytes: [UInt8] = []
      var scratch: [UInt8] = []
      appendPath(to: &bytes, scratch: &scratch)
      return String(decoding: bytes, as: UTF8.self)
    case .delete(let object, let cond):
      return "/delete/" + entry(object) + condition(cond)
    case .changeMetadata(let object, let mimeType, let metadata):
      var path = "/chgm/" + entry(object)
      if let mimeType { path += "/mime/" + URLSafeBase64.encode(mimeType) }
      for item in metadata {
        path += "/x-qn-meta-" + item.name + "/" + URLSafeBase64.encode(item.value)
      }
      return path
    case .changeType(let object, let type):
      return "/chtype/" + entry(object) + "/type/" + String(type)
    case .changeStatus(let object, let status):
      return "/chstatus/" + entry(object) + "/status/" + String(status)
    case .deleteAfterDays(let object, let days):
      return "/deleteAfterDays/" + entry(object) + "/" + String(days)
    case .lifecycle(let object, let rule, let cond):
      return "/lifecycle/" + entry(object) + "/toIAAfterDays/" + String(rule.toIA)
        + "/toArchiveIRAfterDays/" + String(rule.toArchiveIR) + "/toArchiveAfterDays/"
        + String(rule.toArchive) + "/toDeepArchiveAfterDays/" + String(rule.toDeepArchive)
        + "/deleteAfterDays/" + String(rule.delete) + condition(cond)
    case .restoreArchive(let object, let days):
      return "/restoreAr/" + entry(object) + "/freezeAfterDays/" + String(days)
    case .stat(let object):
      return "/stat/" + entry(object)
    }
  }

  /// Appends `path`'s bytes to `bytes`: for a delete without a condition, a move and a copy
  /// (what batches carry by the thousand) without building a string; `scratch` is working
  /// space, reused from one call to the next.
  ///
  /// `asForm` writes instead what a batch's form body carries for the path: without its leading
  /// `/`, percent-encoded as a query value (`/` is `%2F`, each entry's padding `=` is `%3D`; the
  /// rest of an entry needs no escape).
  func appendPath(to bytes: inout [UInt8], scratch: inout [UInt8], asForm: Bool = false) {
    let slash: StaticString = asForm ? "%2F" : "/"
    func literal(_ text: StaticString) {
      bytes.append(
        contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
    func entry(_ location: ObjectLocation) {
      Self.appendEntry(
        bucket: location.bucket, key: location.key, to: &bytes, scratch: &scratch, asForm: asForm)
    }
    func transfer(
      _ name: StaticString, _ source: ObjectLocation, _ destination: ObjectLocation, _ force: Bool
    ) {
      if !asForm { literal(slash) }
      literal(name)
      literal(slash)
      entry(source)
      literal(slash)
      entry(destination)
      literal(slash)
      literal("force")
      literal(slash)
      literal(force ? "true" : "false")
    }
    switch self {
    case .delete(let object, nil):
      Self.appendDelete(
        bucket: object.bucket, key: object.key, to: &bytes, scratch: &scratch, asForm: asForm)
    case .move(let source, let destination, let force):
      transfer("move", source, destination, force)
    case .copy(let source, let destination, let force):
      transfer("copy", source, destination, force)
    case .delete(_, .some), .changeMetadata, .changeType, .changeStatus, .deleteAfterDays,
      .lifecycle, .restoreArchive, .stat:
      guard asForm else { return bytes.append(contentsOf: path.utf8) }
      // Without the leading `/`.
      var path = path
      path.withUTF8 {
        PercentEncoding.append(
          UnsafeBufferPointer(rebasing: $0.dropFirst()), keepSlash: false, to: &bytes)
      }
    }
  }

  /// Appends the path of the delete of `bucket:key` as `appendPath` does (a batch of deletes
  /// writes it from the keys, without an operation for each).
  static func appendDelete(
    bucket: String, key: String, to bytes: inout [UInt8], scratch: inout [UInt8], asForm: Bool
  ) {
    bytes.append(contentsOf: (asForm ? "delete%2F" : "/delete/").utf8)
    appendEntry(bucket: bucket, key: key, to: &bytes, scratch: &scratch, asForm: asForm)
  }

  /// Appends the `EncodedEntryURI` of `bucket:key`, `asForm` with its padding as `%3D`.
  private static func appendEntry(
    bucket: String, key: String, to bytes: inout [UInt8], scratch: inout [UInt8], asForm: Bool
  ) {
    EncodedEntryURI.append(bucket: bucket, key: key, to: &bytes, scratch: &scratch)
    guard asForm else { return }
    var padding = 0
    while bytes.last == UInt8(ascii: "=") {
      bytes.removeLast()
      padding += 1
    }
    for _ in 0..<padding { bytes.append(contentsOf: "%3D".utf8) }
  }

  /// The object the operation is about (the source of a move or copy).
  public var object: ObjectLocation {
    switch self {
    case .delete(let object, _), .move(let object, _, _), .copy(let object, _, _),
      .changeMetadata(let object, _, _), .changeType(let object, _),
      .changeStatus(let object, _), .deleteAfterDays(let object, _),
      .lifecycle(let object, _, _), .restoreArchive(let object, _), .stat(let object):
      return object
    }
  }

  /// Metadata names Kodo accepts: 1 to 50 of `A-Z a-z 0-9 _ -` (api-specs
  /// `modify_object_metadata.yml`); anything else would change the path's meaning.
  package static func validateMetadataName(_ name: String) throws(StorageError) {
    let bytes = Array(name.utf8)
    let allowed = bytes.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
        return true
      default: return false
      }
    }
    guard allowed, (1...50).contains(bytes.count) else {
      throw StorageError(
        .invalidInput,
        "the metadata name \(DisplayText.quoted(name)) is not 1 to 50 letters, digits, \"_\" or \"-\""
      )
    }
  }
}

/// Days after upload at which Kodo moves or deletes an object (0 leaves a rule unchanged, −1
/// cancels it).
public struct KodoLifecycle: Sendable, Equatable {
  /// To infrequent access.
  public var toIA: Int
  /// To archive (instant retrieval).
  public var toArchiveIR: Int
  /// To archive.
  public var toArchive: Int
  /// To deep archive.
  public var toDeepArchive: Int
  /// Deletion.
  public var delete: Int

  /// A rule set from its parts; each defaults to unchanged.
  public init(
    toIA: Int = 0, toArchiveIR: Int = 0, toArchive: Int = 0, toDeepArchive: Int = 0,
    delete: Int = 0
  ) {
    self.toIA = toIA
    self.toArchiveIR = toArchiveIR
    self.toArchive = toArchive
    self.toDeepArchive = toDeepArchive
    self.delete = delete
  }
}

/// A condition on an object's state that a delete, lifecycle or status change needs to hold
/// (`/cond/` + URL-safe base64 of `hash=…&mime=…&fsize=…&putTime=…`, the fields given).
public struct KodoCondition: Sendable, Equatable {
  /// The qetag the object must have.
  public var hash: String?
  /// The content type it must have.
  public var mimeType: String?
  /// The size it must have.
  public var size: Int64?
  /// The `putTime` (100 ns units) it must have.
  public var putTime: Int64?

  /// A condition from its parts.
  public init(
    hash: String? = nil, mimeType: String? = nil, size: Int64? = nil, putTime: Int64? = nil
  ) {
    self.hash = hash
    self.mimeType = mimeType
    self.size = size
    self.putTime = putTime
  }

  /// The condition as its path segment's value.
  public var encoded: String {
    var parts: [String] = []
    if let hash { parts.append("hash=" + hash) }
    if let mimeType { parts.append("mime=" + mimeType) }
    if let size { parts.append("fsize=" + String(size)) }
    if let putTime { parts.append("putTime=" + String(putTime)) }
    return URLSafeBase64.encode(parts.joined(separator: "&"))
  }
}
