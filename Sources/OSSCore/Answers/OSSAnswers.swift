public import StorageCore

/// Decoders of OSS's XML answers into OSS's own values, on `XMLPullReader` (streaming, strict,
/// bounded): ListObjects/ListObjectsV2, ListBuckets, GetBucketInfo, GetBucketLocation, the
/// `<Error>` body (and the `x-oss-err` header of HEAD answers), and HeadObject's headers.
///
/// Every decoder throws only `StorageError(.protocolError)`, saying which answer, what is wrong,
/// in which element and at which byte; malformed XML, a missing required element, an impossible
/// number, a nesting too deep or a document too large never crash and never pass silently.
public enum OSSAnswers {
  typealias Failure = XMLPullReader.Failure

  /// Runs `body` over the document in `bytes`, turning a failure into a `.protocolError` that
  /// says which answer could not be read.
  static func answer<T>(
    _ what: String, _ bytes: [UInt8], requestID: String?,
    _ body: (inout XMLPullReader, XMLName) throws(Failure) -> T
  ) throws(StorageError) -> T {
    do {
      return try XMLPullReader.read(bytes, body)
    } catch {
      throw StorageError(
        .protocolError,
        "cannot read OSS's \(what) answer: \(error) (at byte \(error.offset) of \(bytes.count))",
        requestID: requestID)
    }
  }
}

extension XMLPullReader {
  /// The failure for a document whose root element is not the expected one.
  func unexpectedRoot(_ root: XMLName, _ expected: String) -> Failure {
    Failure(
      offset: 0,
      reason:
        "the document is <\(DisplayText.escaped(String(root.string.prefix(64))))>, not <\(expected)>"
    )
  }
}

/// Which required elements a decoder has seen.
struct Seen {
  enum Field: UInt32 {
    case name, isTruncated, key, lastModified, size, code, creationDate

    var element: String {
      switch self {
      case .name: "Name"
      case .isTruncated: "IsTruncated"
      case .key: "Key"
      case .lastModified: "LastModified"
      case .size: "Size"
      case .code: "Code"
      case .creationDate: "CreationDate"
      }
    }
  }

  private var bits: UInt32 = 0

  mutating func insert(_ field: Field) {
    bits |= 1 << field.rawValue
  }

  /// Throws when one of `fields` was not seen in the element just read.
  func require(_ fields: [Field], in element: String, _ reader: XMLPullReader)
    throws(XMLPullReader.Failure)
  {
    for field in fields where bits & (1 << field.rawValue) == 0 {
      var failure = reader.failure("<\(element)> has no <\(field.element)>")
      failure.offset = max(0, reader.position - 1)
      failure.path += (failure.path.isEmpty ? "" : "/") + element
      throw failure
    }
  }
}

/// An archived object's restore state, from `x-oss-restore` or `<RestoreInfo>`:
/// `ongoing-request="true"` (restoring) or `ongoing-request="false", expiry-date="<RFC 1123>"`
/// (restored until then).
public struct OSSRestore: Sendable, Equatable {
  /// Whether the restore is still running.
  public var ongoing: Bool
  /// Until when the restored copy stays readable (Unix seconds), once restored.
  public var expiry: Int64?

  /// A state from its parts.
  public init(ongoing: Bool, expiry: Int64? = nil) {
    self.ongoing = ongoing
    self.expiry = expiry
  }

  /// Parses the header's or element's text; `nil` when it is not of that form.
  public init?(_ text: String) {
    var text = text
    guard let restore = text.withUTF8(Self.parse) else { return nil }
    self = restore
  }

  /// `init(_:)` over the text's UTF-8 bytes: `name="value"` pairs separated by commas, spaces
  /// around each part ignored; `ongoing-request` once and required, `expiry-date` at most once,
  /// other names skipped. (A page of archived objects has one of these each, with a different
  /// date: read as bytes, not as `Substring`s.)
  private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> OSSRestore? {
    let space = UInt8(ascii: " ")
    let quote = UInt8(ascii: "\"")
    var ongoing: Bool?
    var expiry: Int64?
    var at = 0
    while true {
      while at < bytes.count, bytes[at] == space { at += 1 }
      guard let equals = bytes[at...].firstIndex(of: UInt8(ascii: "=")) else { return nil }
      var nameEnd = equals
      while nameEnd > at, bytes[nameEnd - 1] == space { nameEnd -= 1 }
      let name = UnsafeBufferPointer(rebasing: bytes[at..<nameEnd])
      at = equals + 1
      while at < bytes.count, bytes[at] == space { at += 1 }
      guard at < bytes.count, bytes[at] == quote,
        let close = bytes[(at + 1)...].firstIndex(of: quote)
      else { return nil }
      let value = UnsafeBufferPointer(rebasing: bytes[(at + 1)..<close])
      at = close + 1
      if name.elementsEqual("ongoing-request".utf8) {
        guard ongoing == nil else { return nil }
        if value.elementsEqual("true".utf8) {
          ongoing = true
        } else if value.elementsEqual("false".utf8) {
          ongoing = false
        } else {
          return nil
        }
      } else if name.elementsEqual("expiry-date".utf8) {
        guard expiry == nil, let date = HTTPDate.parse(String(decoding: value, as: UTF8.self))
        else { return nil }
        expiry = date
      }
      while at < bytes.count, bytes[at] == space { at += 1 }
      if at == bytes.count { break }
      guard bytes[at] == UInt8(ascii: ",") else { return nil }
      at += 1
    }
    guard let ongoing else { return nil }
    return OSSRestore(ongoing: ongoing, expiry: expiry)
  }

  /// The provider-neutral state: `restoring` or `restored`.
  public var status: RestoreStatus { ongoing ? .restoring : .restored }

  /// The text OSS writes.
  public var text: String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumTextLength) { buffer in
      guard let base = buffer.baseAddress else { return "" }
      let count = write(to: base)
      return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
  }

  /// The most bytes `write(to:)` writes.
  package static var maximumTextLength: Int { 40 + HTTPDate.maximumLength }

  /// Writes `text` at `out`, which has room for `maximumTextLength` bytes; returns how many it
  /// wrote (the one formatter: `text` and the emulator's listing writer use it).
  package func write(to out: UnsafeMutablePointer<UInt8>) -> Int {
    var at = out.write(ongoing ? "ongoing-request=\"true\"" : "ongoing-request=\"false\"")
    if let expiry {
      at += (out + at).write(", expiry-date=\"")
      at += HTTPDate.write(unixSeconds: expiry, to: out + at)
      at += (out + at).write("\"")
    }
    return at
  }
}
