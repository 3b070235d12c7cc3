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
    var ongoing: Bool?
    var expiry: Int64?
    var rest = Substring(text)
    while true {
      rest = rest.trimmingSpaces
      guard let (rawName, afterEquals) = WireText.cut(rest, at: "=") else { return nil }
      let name = rawName.trimmingSpaces
      guard let quoted = WireText.dropping(prefix: "\"", from: afterEquals.trimmingSpaces),
        let (value, afterValue) = WireText.cut(quoted, at: "\"")
      else { return nil }
      rest = afterValue.trimmingSpaces
      switch name {
      case "ongoing-request":
        guard ongoing == nil, value == "true" || value == "false" else { return nil }
        ongoing = value == "true"
      case "expiry-date":
        guard expiry == nil, let date = HTTPDate.parse(String(value)) else { return nil }
        expiry = date
      default: break
      }
      if rest.isEmpty { break }
      guard let next = WireText.dropping(prefix: ",", from: rest) else { return nil }
      rest = next
    }
    guard let ongoing else { return nil }
    self.init(ongoing: ongoing, expiry: expiry)
  }

  /// The provider-neutral state: `restoring` or `restored`.
  public var status: RestoreStatus { ongoing ? .restoring : .restored }

  /// The text OSS writes.
  public var text: String {
    "ongoing-request=\"\(ongoing)\""
      + (expiry.map { ", expiry-date=\"" + HTTPDate.format(unixSeconds: $0) + "\"" } ?? "")
  }
}

extension Substring {
  var trimmingSpaces: Substring {
    let space = UInt8(ascii: " ")
    let start = utf8.firstIndex { $0 != space } ?? endIndex
    var end = endIndex
    while end > start, utf8[utf8.index(before: end)] == space { end = utf8.index(before: end) }
    return self[start..<end]
  }
}
