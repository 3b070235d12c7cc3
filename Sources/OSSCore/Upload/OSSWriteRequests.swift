import Foundation
public import StorageCore

/// OSS's write requests (`docs/write-protocol.md` Part B) as `OSSRequest`s for the signer, and
/// their bodies: what each operation is on the wire, whatever headers the caller adds (a
/// content type, `Content-MD5`, `x-oss-forbid-overwrite`, metadata…).
public enum OSSWriteRequests {
  /// PutObject: `PUT /<key>` with the body.
  public static func put(bucket: String, key: String, headers: HTTPHeaders = [:]) -> OSSRequest {
    OSSRequest(method: "PUT", bucket: bucket, key: key, headers: headers)
  }

  /// DeleteObject: `DELETE /<key>` (204, also for a key that does not exist).
  public static func delete(bucket: String, key: String) -> OSSRequest {
    OSSRequest(method: "DELETE", bucket: bucket, key: key)
  }

  /// DeleteMultipleObjects: `POST /?delete&encoding-type=url` with `body` (from `deleteBody`)
  /// and its mandatory `Content-MD5`.
  public static func deleteMultiple(bucket: String, body: [UInt8]) -> OSSRequest {
    OSSRequest(
      method: "POST", bucket: bucket,
      query: [OSSQueryItem("delete", nil), OSSQueryItem("encoding-type", "url")],
      headers: ["Content-MD5": contentMD5(body)])
  }

  /// CopyObject: `PUT /<key>` with `x-oss-copy-source` (the source's key percent-encoded with
  /// `/` kept), then `headers` (a directive, forbid-overwrite, a class, metadata…).
  public static func copy(
    from source: ObjectLocation, bucket: String, key: String, headers: HTTPHeaders = [:],
    encodeSlashes: Bool = false
  ) -> OSSRequest {
    var all: HTTPHeaders = ["x-oss-copy-source": copySource(source, encodeSlashes: encodeSlashes)]
    for field in headers { all.add(field.name, field.value) }
    return OSSRequest(method: "PUT", bucket: bucket, key: key, headers: all)
  }

  /// `x-oss-copy-source`: `/<bucket>/<key>`, the key percent-encoded with `/` kept (the form
  /// of OSS's Go and Python v2 SDKs), or as `%2F` with `encodeSlashes` (oss2's; the same to
  /// OSS).
  public static func copySource(_ source: ObjectLocation, encodeSlashes: Bool = false) -> String {
    "/" + source.bucket + "/"
      + (encodeSlashes
        ? PercentEncoding.encodeQueryValue(source.key) : PercentEncoding.encodePath(source.key))
  }

  /// InitiateMultipartUpload: `POST /<key>?uploads` with `headers` for the final object.
  public static func initiate(bucket: String, key: String, headers: HTTPHeaders = [:])
    -> OSSRequest
  {
    OSSRequest(
      method: "POST", bucket: bucket, key: key, query: [OSSQueryItem("uploads", nil)],
      headers: headers)
  }

  /// UploadPart: `PUT /<key>?partNumber=N&uploadId=ID` with the part as body.
  public static func uploadPart(
    bucket: String, key: String, uploadID: String, partNumber: Int, headers: HTTPHeaders = [:]
  ) -> OSSRequest {
    OSSRequest(
      method: "PUT", bucket: bucket, key: key,
      query: [OSSQueryItem("partNumber", String(partNumber)), OSSQueryItem("uploadId", uploadID)],
      headers: headers)
  }

  /// UploadPartCopy: UploadPart's address with `x-oss-copy-source` and, for part of the
  /// source, `x-oss-copy-source-range: bytes=first-last`.
  public static func uploadPartCopy(
    from source: ObjectLocation, range: ClosedRange<Int64>?, bucket: String, key: String,
    uploadID: String, partNumber: Int, encodeSlashes: Bool = false
  ) -> OSSRequest {
    var headers: HTTPHeaders = [
      "x-oss-copy-source": copySource(source, encodeSlashes: encodeSlashes)
    ]
    if let range {
      headers.add("x-oss-copy-source-range", "bytes=\(range.lowerBound)-\(range.upperBound)")
    }
    return uploadPart(
      bucket: bucket, key: key, uploadID: uploadID, partNumber: partNumber, headers: headers)
  }

  /// CompleteMultipartUpload: `POST /<key>?uploadId=ID` with a body from `completeBody`, or,
  /// when `all`, without one and with `x-oss-complete-all: yes` (every uploaded part).
  public static func complete(
    bucket: String, key: String, uploadID: String, all: Bool = false, headers: HTTPHeaders = [:]
  ) -> OSSRequest {
    var headers = headers
    if all { headers.set("x-oss-complete-all", "yes") }
    return OSSRequest(
      method: "POST", bucket: bucket, key: key, query: [OSSQueryItem("uploadId", uploadID)],
      headers: headers)
  }

  /// AbortMultipartUpload: `DELETE /<key>?uploadId=ID` (204).
  public static func abort(bucket: String, key: String, uploadID: String) -> OSSRequest {
    OSSRequest(
      method: "DELETE", bucket: bucket, key: key, query: [OSSQueryItem("uploadId", uploadID)])
  }

  /// ListParts: `GET /<key>?uploadId=ID[&part-number-marker=M]` (OSS's pages hold 1000 parts).
  public static func listParts(bucket: String, key: String, uploadID: String, marker: Int? = nil)
    -> OSSRequest
  {
    var query = [OSSQueryItem("uploadId", uploadID)]
    if let marker { query.append(OSSQueryItem("part-number-marker", String(marker))) }
    return OSSRequest(method: "GET", bucket: bucket, key: key, query: query)
  }

  /// ListMultipartUploads: `GET /?uploads&prefix=…&max-uploads=N&encoding-type=url`, from the
  /// markers when given.
  public static func listUploads(
    bucket: String, prefix: String, keyMarker: String? = nil, uploadIDMarker: String? = nil,
    maxUploads: Int = 1000
  ) -> OSSRequest {
    var query = [OSSQueryItem("uploads", nil), OSSQueryItem("prefix", prefix)]
    if let keyMarker { query.append(OSSQueryItem("key-marker", keyMarker)) }
    if let uploadIDMarker { query.append(OSSQueryItem("upload-id-marker", uploadIDMarker)) }
    query.append(OSSQueryItem("max-uploads", String(maxUploads)))
    query.append(OSSQueryItem("encoding-type", "url"))
    return OSSRequest(method: "GET", bucket: bucket, query: query)
  }

  /// RestoreObject: `POST /<key>?restore` with `body` (from `restoreBody`) and its
  /// `Content-MD5`.
  public static func restore(bucket: String, key: String, body: [UInt8]) -> OSSRequest {
    OSSRequest(
      method: "POST", bucket: bucket, key: key, query: [OSSQueryItem("restore", nil)],
      headers: ["Content-MD5": contentMD5(body)])
  }

  /// `Content-MD5`: the base64 of the body's binary MD5 (RFC 1864).
  public static func contentMD5(_ body: [UInt8]) -> String {
    Data(Digest.md5(body)).base64EncodedString()
  }

  // MARK: Bodies

  /// One part of a multipart upload, as Complete lists it.
  public struct Part: Sendable, Equatable {
    /// The part number, 1 to 10000.
    public var number: Int
    /// The ETag UploadPart answered, with or without its quotes.
    public var etag: String

    /// A part from its parts.
    public init(number: Int, etag: String) {
      self.number = number
      self.etag = etag
    }
  }

  /// `<CompleteMultipartUpload>` with the parts in ascending order (OSS refuses another
  /// order), each ETag in exactly one pair of quotes.
  public static func completeBody(_ parts: [Part]) -> [UInt8] {
    var body = Array("<CompleteMultipartUpload>".utf8)
    for part in parts.sorted(by: { $0.number < $1.number }) {
      var etag = Substring(part.etag)
      while let inner = WireText.dropping(prefix: "\"", from: etag) { etag = inner }
      while let inner = WireText.dropping(suffix: "\"", from: etag) { etag = inner }
      body += Array("<Part><PartNumber>\(part.number)</PartNumber><ETag>\"".utf8)
      appendText(etag, escapingQuotes: false, to: &body)
      body += Array("\"</ETag></Part>".utf8)
    }
    body += Array("</CompleteMultipartUpload>".utf8)
    return body
  }

  /// `<Delete><Quiet>…</Quiet><Object><Key>…</Key></Object>…</Delete>`, keys escaped as XML
  /// text (`&`, `<`, `>`, `"`; tab, line feed and carriage return as character references).
  ///
  /// - Returns: `nil` when a key holds a character XML 1.0 cannot carry (another control
  ///   character): such keys go through DeleteObject one by one (`canBatchDelete`).
  public static func deleteBody(keys: [String], quiet: Bool) -> [UInt8]? {
    guard keys.allSatisfy(canBatchDelete) else { return nil }
    var body = Array("<Delete><Quiet>\(quiet)</Quiet>".utf8)
    for key in keys {
      body += Array("<Object><Key>".utf8)
      appendText(Substring(key), escapingQuotes: true, to: &body)
      body += Array("</Key></Object>".utf8)
    }
    body += Array("</Delete>".utf8)
    return body
  }

  /// Whether a DeleteMultipleObjects body can name `key`: no control character but tab, line
  /// feed and carriage return, and no U+FFFE or U+FFFF (not XML 1.0 characters).
  public static func canBatchDelete(_ key: String) -> Bool {
    key.unicodeScalars.allSatisfy { scalar in
      switch scalar.value {
      case 0x09, 0x0A, 0x0D: true
      case 0x00..<0x20, 0xFFFE, 0xFFFF: false
      default: true
      }
    }
  }

  /// `<RestoreRequest><Days>N</Days></RestoreRequest>`.
  public static func restoreBody(days: Int) -> [UInt8] {
    Array("<RestoreRequest><Days>\(days)</Days></RestoreRequest>".utf8)
  }

  private static func appendText(_ text: Substring, escapingQuotes: Bool, to body: inout [UInt8]) {
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "&"): body += Array("&amp;".utf8)
      case UInt8(ascii: "<"): body += Array("&lt;".utf8)
      case UInt8(ascii: ">"): body += Array("&gt;".utf8)
      case UInt8(ascii: "\"") where escapingQuotes: body += Array("&quot;".utf8)
      case 0x09: body += Array("&#x9;".utf8)
      case 0x0A: body += Array("&#xA;".utf8)
      case 0x0D: body += Array("&#xD;".utf8)
      default: body.append(byte)
      }
    }
  }
}
