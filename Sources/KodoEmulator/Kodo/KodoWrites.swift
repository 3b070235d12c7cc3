import KodoCore
import NIOCore
import StorageCore

/// The outcome of one rs operation: Kodo's code and, for failures, its message.
struct OperationResult: Error {
  var code: Int
  var message: String?

  static let ok = OperationResult(code: 200)

  static func failure(_ code: Int, _ message: String) -> OperationResult {
    OperationResult(code: code, message: message)
  }

  /// A store's refusal in Kodo's words.
  static func store(_ failure: StoreFailure) -> OperationResult {
    switch failure {
    case .readOnly: .failure(403, "access denied: the bucket is read-only")
    case .noSuchKey: .failure(612, "no such file or directory")
    case .exists: .failure(614, "file exists")
    case .memoryFull: .failure(413, "the emulator's memory limit is reached")
    case .keyNotAPath: .failure(400, "the key cannot be a path in this directory bucket")
    case .io: .failure(599, "the emulator could not write the file")
    }
  }
}

extension EmulatorService {
  /// rs writes: one operation (`/delete/…`, `/move/…`, …) or `/batch`.
  func write(_ path: Substring, request: IncomingRequest, reqid: String) -> Reply {
    guard request.head.method == .POST else {
      return error(405, "method not allowed", reqid: reqid)
    }
    if path == "/batch" { return batch(request, reqid: reqid) }
    let result = operation(path)
    guard let message = result.message else {
      var body = ByteBuffer()
      body.writeStaticString("{}")
      return json(200, body, reqid: reqid)
    }
    return error(result.code, message, reqid: reqid)
  }

  /// `/batch`: `op=…&op=…` (each op with or without its leading `/`); an array of results in
  /// op order, HTTP 200 when every op succeeded and 298 otherwise.
  private func batch(_ request: IncomingRequest, reqid: String) -> Reply {
    guard let text = String(validating: request.body, as: UTF8.self),
      let form = QueryParameters(Substring(text))
    else { return error(400, "invalid argument", reqid: reqid) }
    let operations = form.pairs.filter { $0.name == "op" }.map(\.value)
    guard !operations.isEmpty else { return error(400, "no op given", reqid: reqid) }
    guard operations.count <= 1_000 else { return error(400, "too many ops", reqid: reqid) }
    var body = ByteBuffer()
    body.writeStaticString("[")
    var allSucceeded = true
    for (position, text) in operations.enumerated() {
      let path = KeySegments.startsWithSlash(text) ? Substring(text) : "/" + text
      let result = operation(path)
      if position > 0 { body.writeStaticString(",") }
      body.writeStaticString("{\"code\":")
      body.writeDecimal(result.code)
      if let message = result.message {
        allSucceeded = false
        body.writeStaticString(",\"data\":{\"error\":")
        body.writeJSONString(message)
        body.writeStaticString("}")
      }
      body.writeStaticString("}")
    }
    body.writeStaticString("]")
    return json(allSucceeded ? 200 : 298, body, reqid: reqid)
  }

  /// One rs operation, its path split at `/`.
  private func operation(_ path: Substring) -> OperationResult {
    let parts = KeySegments.segments(of: path).dropFirst()
    guard let name = parts.first, parts.count >= 2 else {
      return .failure(400, "invalid argument")
    }
    let arguments = Array(parts.dropFirst())
    guard let entry = decodeEntry(arguments[0]) else {
      return .failure(400, "invalid argument")
    }
    let options = Array(arguments.dropFirst())
    switch name {
    case "delete":
      return deleteObject(entry)
    case "move", "copy":
      guard let target = options.first.flatMap(decodeEntry) else {
        return .failure(400, "invalid argument")
      }
      var force = false
      let rest = options.dropFirst()
      if rest.count >= 2, rest.first == "force" { force = rest.dropFirst().first == "true" }
      return transfer(from: entry, to: target, force: force, move: name == "move")
    case "chgm":
      return changeMetadata(entry, options)
    case "chtype":
      guard options.count == 2, options[0] == "type", let type = Int(options[1]),
        (0...5).contains(type)
      else { return .failure(400, "invalid argument") }
      return change(entry) { $0.type = type }
    case "chstatus":
      guard options.count >= 2, options[0] == "status", let status = Int(options[1]),
        (0...1).contains(status)
      else { return .failure(400, "invalid argument") }
      return change(entry) { $0.status = status }
    case "restoreAr":
      guard options.count == 2, options[0] == "freezeAfterDays", let days = Int(options[1]),
        (1...7).contains(days)
      else { return .failure(400, "invalid argument") }
      return restore(entry)
    case "deleteAfterDays":
      guard options.count == 1, let days = Int64(options[0]), days >= 0 else {
        return .failure(400, "invalid argument")
      }
      let now = configuration.clock.unixSeconds
      return change(entry) { $0.expiration = days == 0 ? nil : (now / 86_400 + days) * 86_400 }
    default:
      return .failure(400, "invalid argument")
    }
  }

  /// A bucket and key from an `EncodedEntryURI` path segment.
  private func decodeEntry(_ segment: Substring) -> (bucket: String, key: String)? {
    guard let decoded = EncodedEntryURI.decode(String(segment)), let key = decoded.key else {
      return nil
    }
    return (decoded.bucket, key)
  }

  /// The writable store of `bucket`, or the failure to report.
  func writableStore(_ bucket: String) -> Result<ObjectStore, OperationResult> {
    guard let store = buckets[bucket] else { return .failure(.failure(631, "no such bucket")) }
    guard let writable = store.writable else { return .failure(.store(.readOnly)) }
    return .success(writable)
  }

  private func deleteObject(_ entry: (bucket: String, key: String)) -> OperationResult {
    switch writableStore(entry.bucket) {
    case .failure(let result): return result
    case .success(let store):
      do throws(StoreFailure) {
        try store.delete(key: Array(entry.key.utf8))
        return .ok
      } catch {
        return .store(error)
      }
    }
  }

  /// `move` and `copy`: the content and metadata (a new put time) under the target key; 614
  /// when the target exists and `force` is not given. Moving an object onto itself is a no-op.
  private func transfer(
    from source: (bucket: String, key: String), to target: (bucket: String, key: String),
    force: Bool, move: Bool
  ) -> OperationResult {
    guard let sourceBucket = buckets[source.bucket] else {
      return .failure(631, "no such bucket")
    }
    // The source's body and metadata, read from a snapshot that is let go before the writes
    // below: a snapshot still held would make each write copy the store's chunk it changes.
    let read: Result<(body: ObjectBody, metadata: ObjectMetadata), OperationResult> = {
      let snapshot = sourceBucket.source
      guard let index = snapshot.index(of: Array(source.key.utf8)),
        let body = snapshot.body(at: index)
      else { return .failure(.store(.noSuchKey)) }
      return .success((body, snapshot.metadata(at: index)))
    }()
    let body: ObjectBody
    var metadata: ObjectMetadata
    switch read {
    case .failure(let result): return result
    case .success(let found): (body, metadata) = found
    }
    if ExactKey.same(source.bucket, target.bucket) && ExactKey.same(source.key, target.key) {
      return force || !move ? .ok : .store(.exists)
    }
    let targetStore: ObjectStore
    switch writableStore(target.bucket) {
    case .failure(let result): return result
    case .success(let store): targetStore = store
    }
    if move && sourceBucket.writable == nil { return .store(.readOnly) }
    metadata.putTime = putTimeNow
    do throws(StoreFailure) {
      // Copied a chunk at a time; the CRC-64 computed on the way when the source has none.
      let prepared = try targetStore.prepare(
        [.whole(body)], digests: metadata.crc64 == nil ? .crc64 : [])
      if metadata.crc64 == nil { metadata.crc64 = prepared.digests.crc64 }
      try targetStore.put(
        key: Array(target.key.utf8), content: prepared.content, metadata: metadata
      ) {
        (existing) throws(StoreFailure) in
        if existing != nil && !force { throw .exists }
        return .write
      }
      if move, let store = sourceBucket.writable { try store.delete(key: Array(source.key.utf8)) }
      return .ok
    } catch {
      return .store(error)
    }
  }

  /// `chgm`: `mime/<b64>` and `x-qn-meta-NAME/<b64>` pairs (a meta entry set, the others kept);
  /// `cond/<b64>` is accepted and ignored.
  private func changeMetadata(_ entry: (bucket: String, key: String), _ options: [Substring])
    -> OperationResult
  {
    guard options.count % 2 == 0 else { return .failure(400, "invalid argument") }
    var mime: String?
    var meta = [MetaMember]()
    var index = 0
    while index < options.count {
      let name = options[index]
      guard
        let value = URLSafeBase64.decode(String(options[index + 1])).flatMap({
          String(validating: $0, as: UTF8.self)
        })
      else { return .failure(400, "invalid argument") }
      if WireText.same(name, "mime") {
        mime = value
      } else if let item = MetaMember(kodoField: name, value: value) {
        meta.append(item)
      } else if !WireText.same(name, "cond") {
        return .failure(400, "invalid argument")
      }
      index += 2
    }
    return change(entry) { metadata in
      if let mime { metadata.mimeType = mime }
      for member in meta {
        if let existing = metadata.meta.firstIndex(where: { ExactKey.same($0.name, member.name) }) {
          metadata.meta[existing].value = member.value
        } else {
          metadata.meta.append(member)
        }
      }
      metadata.meta.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
  }

  /// `restoreAr`: an archived object becomes restored (at once: the emulator has no thaw delay).
  private func restore(_ entry: (bucket: String, key: String)) -> OperationResult {
    var result = OperationResult.ok
    let changed = change(entry) { metadata in
      guard metadata.type == 2 || metadata.type == 3 else {
        result = .failure(400, "the object is not in archive storage")
        return
      }
      metadata.restoreStatus = 2
    }
    return changed.message == nil ? result : changed
  }

  private func change(
    _ entry: (bucket: String, key: String), _ body: (inout ObjectMetadata) -> Void
  ) -> OperationResult {
    switch writableStore(entry.bucket) {
    case .failure(let result): return result
    case .success(let store):
      do throws(StoreFailure) {
        try store.update(key: Array(entry.key.utf8)) { object in body(&object.metadata) }
        return .ok
      } catch {
        return .store(error)
      }
    }
  }
}
