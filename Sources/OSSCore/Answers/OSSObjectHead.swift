import Foundation
public import StorageCore

/// One object's metadata from the headers of a HeadObject (or GetObjectMeta, or GetObject)
/// answer.
public struct OSSObjectHead: Sendable, Equatable {
  /// `Content-Length`.
  public var size: Int64
  /// `Last-Modified`.
  public var lastModified: Timestamp
  /// `Content-Type`, when sent.
  public var contentType: String?
  /// `ETag` without quotes, when sent.
  public var etag: String?
  /// `Content-MD5` as lower-case hex, when sent.
  public var md5: String?
  /// `x-oss-hash-crc64ecma`, when sent (absent for some multipart objects: then there is
  /// nothing to check against, which is not an error).
  public var crc64: UInt64?
  /// `x-oss-object-type` as OSS spells it (`Normal`, `Multipart`, `Appendable`, `Symlink`).
  public var objectType: String?
  /// `x-oss-storage-class` as OSS spells it; absent means `Standard`.
  public var storageClass: String?
  /// `x-oss-meta-*`, by the name after the prefix, lower-cased.
  public var meta: UserMetadata
  /// `x-oss-restore`, for archived objects.
  public var restore: OSSRestore?
  /// `x-oss-version-id`, when sent.
  public var versionID: String?
  /// `x-oss-server-side-encryption`, when sent.
  public var serverSideEncryption: String?
  /// `x-oss-next-append-position` of appendable objects.
  public var nextAppendPosition: Int64?
  /// `x-oss-expiration` (a lifecycle rule's deadline), as sent.
  public var expiration: String?
  /// `Cache-Control`, `Content-Disposition`, `Content-Encoding`, `Expires`, when sent.
  public var cacheControl: String?
  /// `Content-Disposition`, when sent.
  public var contentDisposition: String?
  /// `Content-Encoding`, when sent.
  public var contentEncoding: String?
  /// `Expires`, when sent.
  public var expires: String?

  /// Metadata from its parts.
  public init(
    size: Int64, lastModified: Timestamp, contentType: String? = nil, etag: String? = nil,
    md5: String? = nil, crc64: UInt64? = nil, objectType: String? = nil,
    storageClass: String? = nil, meta: UserMetadata = [:], restore: OSSRestore? = nil
  ) {
    self.size = size
    self.lastModified = lastModified
    self.contentType = contentType
    self.etag = etag
    self.md5 = md5
    self.crc64 = crc64
    self.objectType = objectType
    self.storageClass = storageClass
    self.meta = meta
    self.restore = restore
  }
}

extension OSSAnswers {
  /// Reads an object's metadata from the headers of a successful HeadObject, GetObjectMeta or
  /// GetObject answer. `Content-Length` and `Last-Modified` are required; every other header
  /// is optional, but one that is sent must be well-formed.
  ///
  /// - Throws: `StorageError(.protocolError)` naming the header that cannot be read.
  public static func objectHead(_ headers: HTTPHeaders, requestID: String? = nil)
    throws(StorageError) -> OSSObjectHead
  {
    func bad(_ name: String, _ value: String?, _ expected: String) -> StorageError {
      let shown = value.map { " " + DisplayText.quoted(String($0.prefix(80))) } ?? ""
      return StorageError(
        .protocolError,
        "cannot read OSS's object metadata: the \(name) header\(shown) is \(value == nil ? "missing" : "not \(expected)")",
        requestID: requestID)
    }
    let lengthText = headers["Content-Length"]
    guard let lengthText, let size = decimal(lengthText) else {
      throw bad("Content-Length", lengthText, "a size")
    }
    let modifiedText = headers["Last-Modified"]
    guard let modifiedText, let lastModified = OSSTime.parseHTTPDate(modifiedText) else {
      throw bad("Last-Modified", modifiedText, "an HTTP date")
    }
    var head = OSSObjectHead(size: size, lastModified: lastModified)
    head.contentType = headers["Content-Type"]
    head.etag = headers["ETag"].map(unquoted)
    if let text = headers["Content-MD5"] {
      guard let digest = Data(base64Encoded: text), digest.count == 16 else {
        throw bad("Content-MD5", text, "base64 of an MD5 digest")
      }
      head.md5 = Hex.encode(digest)
    }
    if let text = headers["x-oss-hash-crc64ecma"] {
      guard let value = UInt64(text), !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
      else {
        throw bad("x-oss-hash-crc64ecma", text, "an unsigned 64-bit decimal")
      }
      head.crc64 = value
    }
    head.objectType = headers["x-oss-object-type"]
    head.storageClass = headers["x-oss-storage-class"]
    if let text = headers["x-oss-restore"] {
      guard let restore = OSSRestore(text) else {
        throw bad("x-oss-restore", text, "a restore state")
      }
      head.restore = restore
    }
    if let text = headers["x-oss-next-append-position"] {
      guard let position = decimal(text) else {
        throw bad("x-oss-next-append-position", text, "a position")
      }
      head.nextAppendPosition = position
    }
    head.versionID = headers["x-oss-version-id"]
    head.serverSideEncryption = headers["x-oss-server-side-encryption"]
    head.expiration = headers["x-oss-expiration"]
    head.cacheControl = headers["Cache-Control"]
    head.contentDisposition = headers["Content-Disposition"]
    head.contentEncoding = headers["Content-Encoding"]
    head.expires = headers["Expires"]
    for field in headers {
      let name = WireText.asciiLowercased(field.name)
      guard let metaName = WireText.dropping(prefix: "x-oss-meta-", from: name), !metaName.isEmpty
      else { continue }
      head.meta[String(metaName)] = field.value
    }
    return head
  }

  /// Digits only (no sign, no spaces), within Int64.
  static func decimal(_ text: String) -> Int64? {
    DecimalText.parse(text.utf8)
  }
}
