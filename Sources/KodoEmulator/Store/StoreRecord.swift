import NIOCore
import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a writable directory bucket remembers of an object beside its file, in
/// `DIR/.kodo-emulator/objects/<sha1 of the key, hex>.json`: the metadata a file cannot hold
/// (MIME type, `x-qn-meta`, put time, storage class, status, digests). A record is used at start-up
/// only while its file still has the size and modification time it names.
struct StoreRecord {
  var object: StoredObject
  /// The file's modification time when the record was written, 100 ns units.
  var modified: Int64

  /// The largest record read back.
  static let maximumSize = 64 * 1_024

  static func fileName(for key: [UInt8]) -> String {
    Hex.encode(Digest.sha1(key)) + ".json"
  }

  func encoded() -> [UInt8] {
    let metadata = object.metadata
    var buffer = ByteBuffer()
    buffer.writeStaticString("{\"key\":")
    buffer.writeJSONString(object.key)
    buffer.writeStaticString(",\"fsize\":")
    buffer.writeDecimal(metadata.fsize)
    buffer.writeStaticString(",\"modified\":")
    buffer.writeDecimal(modified)
    // A hash not computed yet is left out (a build that requires it then hashes the file).
    if !metadata.hash.isEmpty {
      buffer.writeStaticString(",\"hash\":")
      buffer.writeJSONString(metadata.hash)
    }
    if let md5 = metadata.md5 {
      buffer.writeStaticString(",\"md5\":")
      buffer.writeJSONString(md5)
    }
    if let crc = metadata.crc64 {
      buffer.writeStaticString(",\"crc64\":")
      buffer.writeJSONString(String(crc))
    }
    if let etag = metadata.ossETag {
      buffer.writeStaticString(",\"etag\":")
      buffer.writeJSONString(etag)
    }
    buffer.writeStaticString(",\"mimeType\":")
    buffer.writeJSONString(metadata.mimeType)
    buffer.writeStaticString(",\"putTime\":")
    buffer.writeDecimal(metadata.putTime)
    buffer.writeStaticString(",\"type\":")
    buffer.writeDecimal(metadata.type)
    buffer.writeStaticString(",\"status\":")
    buffer.writeDecimal(metadata.status)
    if let restore = metadata.restoreStatus {
      buffer.writeStaticString(",\"restoreStatus\":")
      buffer.writeDecimal(restore)
    }
    if metadata.isMultipart { buffer.writeStaticString(",\"multipart\":true") }
    buffer.writeStaticString(",\"meta\":[")
    for (position, member) in metadata.meta.enumerated() {
      if position > 0 { buffer.writeStaticString(",") }
      buffer.writeStaticString("[")
      buffer.writeJSONString(member.name)
      buffer.writeStaticString(",")
      buffer.writeJSONString(member.value)
      buffer.writeStaticString("]")
    }
    buffer.writeStaticString("]}\n")
    return Array(buffer.readableBytesView)
  }

  /// A record read back; `nil` when it is not one this emulator wrote.
  static func decode(_ bytes: [UInt8], components: [String]) -> StoreRecord? {
    guard let text = String(validating: bytes, as: UTF8.self),
      case .object(let members)? = try? JSONValue.parse(text)
    else { return nil }
    var fields = [String: JSONValue]()
    for member in members { fields[member.name] = member.value }
    func number(_ name: String) -> Int64? {
      if case .number(let value)? = fields[name] { return Int64(value) }
      return nil
    }
    func string(_ name: String) -> String? {
      if case .string(let value)? = fields[name] { return value }
      return nil
    }
    // Without `hash` or `crc64` (not computed when written), the store computes them on demand.
    guard let key = string("key"), let fsize = number("fsize"), let modified = number("modified"),
      let mimeType = string("mimeType"), let putTime = number("putTime"),
      let type = number("type"), let status = number("status")
    else { return nil }
    var meta = [MetaMember]()
    if case .array(let pairs)? = fields["meta"] {
      for pair in pairs {
        guard case .array(let items) = pair, items.count == 2,
          case .string(let name) = items[0], case .string(let value) = items[1]
        else { return nil }
        meta.append(MetaMember(name: name, value: value))
      }
    }
    var metadata = ObjectMetadata(
      fsize: fsize, hash: string("hash") ?? "", mimeType: mimeType, putTime: putTime)
    metadata.type = Int(type)
    metadata.status = Int(status)
    metadata.md5 = string("md5")
    metadata.restoreStatus = number("restoreStatus").map { Int($0) }
    metadata.meta = meta
    metadata.crc64 = string("crc64").flatMap { UInt64($0) }
    metadata.ossETag = string("etag")
    if case .bool(true)? = fields["multipart"] { metadata.isMultipart = true }
    return StoreRecord(
      object: StoredObject(key: Array(key.utf8), metadata: metadata, content: .file(components)),
      modified: modified)
  }

  /// Reads the record `name` from `folder`; `nil` when missing, a link, too large or unreadable.
  static func read(named name: String, in folder: DirectoryHandle) -> [UInt8]? {
    let descriptor = openat(
      folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0, let file = try? ServedFile(descriptor: descriptor),
      file.size <= Int64(maximumSize)
    else { return nil }
    var buffer = ByteBuffer()
    guard (try? file.read(at: 0, count: Int(file.size), into: &buffer)) != nil else { return nil }
    return Array(buffer.readableBytesView)
  }
}
