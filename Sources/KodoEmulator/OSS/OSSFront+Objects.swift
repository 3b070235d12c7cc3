import Foundation
import NIOCore
import OSSCore
import StorageCore

extension OSSFront {
  /// What an object request asks for.
  enum ObjectMode {
    /// HeadObject: every metadata header, no body.
    case head
    /// GetObjectMeta (`HEAD ?objectMeta`): the short set of headers.
    case meta
    /// GetObject: the headers and the bytes, whole or one range.
    case get
  }

  /// The response headers a presigned or signed GET may override with `response-*` parameters.
  private static let overrides: [(parameter: String, header: String)] = [
    ("response-content-type", "Content-Type"), ("response-content-language", "Content-Language"),
    ("response-expires", "Expires"), ("response-cache-control", "Cache-Control"),
    ("response-content-disposition", "Content-Disposition"),
    ("response-content-encoding", "Content-Encoding"),
  ]

  /// HeadObject, GetObjectMeta and GetObject on `key`.
  func object(_ store: BucketStore?, key: String, _ context: AnswerContext, mode: ObjectMode)
    throws(OSSFailure) -> Reply
  {
    let source = store?.source
    guard let store, let source, let index = source.index(of: Array(key.utf8)),
      let body = source.body(at: index)
    else {
      throw OSSFailure(
        status: 404, code: "NoSuchKey", message: "The specified key does not exist.",
        ec: "0026-00000001", fields: ["Key": key])
    }
    let seed = source is SyntheticSource ? configuration.seed : nil
    let metadata = source.metadata(at: index, digests: .crc64)
    let view = OSSObjectView(
      key: Array(key.utf8), metadata: metadata, index: index, synthetic: seed)
    var headers = commonHeaders(context.requestID, now: context.now, xml: false)
    headers.append(("ETag", "\"" + view.etag + "\""))
    headers.append(("Last-Modified", HTTPDate.format(unixSeconds: view.lastModified)))
    // A written object carries its CRC; the others' are computed once and remembered.
    if let crc = metadata.crc64 ?? checksums.crc64(bucket: store.name, index: index, body: body) {
      headers.append(("x-oss-hash-crc64ecma", String(crc)))
    }
    if mode == .meta {
      return Reply(
        status: .ok, headers: headers, body: .object(body, start: 0, length: body.length),
        sendsBody: false)
    }
    headers.append(("Content-Type", view.contentType))
    headers.append(("Accept-Ranges", "bytes"))
    headers.append(("x-oss-object-type", view.objectType))
    headers.append(("x-oss-storage-class", view.storageClass))
    if let md5 = view.contentMD5 { headers.append(("Content-MD5", md5)) }
    if let restore = view.restore { headers.append(("x-oss-restore", restore.text)) }
    if let position = view.nextAppendPosition {
      headers.append(("x-oss-next-append-position", String(position)))
    }
    for member in view.meta {
      headers.append(("x-oss-meta-" + WireText.asciiLowercased(member.name), member.value))
    }
    if let outcome = Self.preconditions(
      context.incoming.headers, etag: "\"" + view.etag + "\"", lastModified: view.lastModified)
    {
      switch outcome {
      case .notModified:
        let kept = headers.filter { ["ETag", "Last-Modified", "Date", "Server"].contains($0.0) }
        return Reply(
          status: .notModified, headers: kept + [("x-oss-request-id", context.requestID)],
          body: .buffer(ByteBuffer()), sendsBody: false)
      case .failed:
        throw OSSFailure(
          status: 412, code: "PreconditionFailed",
          message: "At least one of the pre-conditions you specified did not hold.")
      }
    }
    if mode == .head {
      return Reply(
        status: .ok, headers: headers, body: .object(body, start: 0, length: body.length),
        sendsBody: false)
    }
    if view.needsRestore {
      throw OSSFailure(
        status: 403, code: "InvalidObjectState",
        message: "The operation is not valid for the object's state.",
        fields: ["Key": key])
    }
    for (parameter, header) in Self.overrides {
      guard let value = context.incoming.parameter(parameter) else { continue }
      // A header value cannot hold control characters (CR and LF would split the answer).
      guard value.utf8.count <= 1_024,
        !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
      else {
        throw OSSFailure(
          status: 400, code: "InvalidArgument", message: "Argument \(parameter) is invalid.",
          fields: ["ArgumentName": parameter])
      }
      headers.removeAll { $0.0 == header }
      headers.append((header, value))
    }
    let rangeHeader = context.incoming.headers["Range"]
    let standard = context.incoming.headers["x-oss-range-behavior"] == "standard"
    var range = ByteRange.parse(rangeHeader, length: body.length)
    if !standard, Self.exceedsLength(rangeHeader, length: body.length) {
      // Without `x-oss-range-behavior: standard`, OSS ignores a range that does not fit.
      range = .whole
    }
    switch range {
    case .whole:
      return Reply(
        status: .ok, headers: headers, body: .object(body, start: 0, length: body.length))
    case .unsatisfiable:
      var failure = OSSFailure(
        status: 416, code: "InvalidRange", message: "The requested range cannot be satisfied.")
      failure.fields["RangeRequested"] = rangeHeader ?? ""
      failure.fields["ActualObjectSize"] = String(body.length)
      var reply = reply(failure, requestID: context.requestID, now: context.now, isHEAD: false)
      reply.headers.append(("Content-Range", "bytes */" + String(body.length)))
      return reply
    case .range(let first, let last):
      headers.append(("Content-Range", "bytes \(first)-\(last)/\(body.length)"))
      return Reply(
        status: .partialContent, headers: headers,
        body: .object(body, start: first, length: last - first + 1))
    }
  }

  /// What a conditional request's headers decide.
  enum PreconditionOutcome {
    /// 304: `If-None-Match` matched, or not modified since `If-Modified-Since`.
    case notModified
    /// 412: `If-Match` did not match, or modified since `If-Unmodified-Since`.
    case failed
  }

  /// `If-Match`, `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since`, in RFC 9110's
  /// order; `nil` when they let the request through. An unreadable date is ignored.
  static func preconditions(_ headers: HTTPHeaders, etag: String, lastModified: Int64)
    -> PreconditionOutcome?
  {
    func matches(_ list: String) -> Bool { etagList(list, matches: etag, unquoting: false) }
    if let ifMatch = headers["If-Match"] {
      if !matches(ifMatch) { return .failed }
    } else if let since = headers["If-Unmodified-Since"].flatMap(HTTPDate.parse),
      lastModified > since
    {
      return .failed
    }
    if let ifNoneMatch = headers["If-None-Match"] {
      if matches(ifNoneMatch) { return .notModified }
    } else if let since = headers["If-Modified-Since"].flatMap(HTTPDate.parse),
      lastModified <= since
    {
      return .notModified
    }
    return nil
  }

  /// Whether a single `bytes=` range reaches past the object: a first byte or an explicit last
  /// byte at or past `length`, or a suffix longer than the object.
  static func exceedsLength(_ header: String?, length: Int64) -> Bool {
    guard let header else { return false }
    let spec = Substring(header.utf8.drop(while: { $0 == UInt8(ascii: " ") }))
    guard let ranges = WireText.dropping(prefix: "bytes=", from: spec),
      !WireText.contains(ranges, byte: ",")
    else { return false }
    let parts = WireText.split(ranges, at: "-")
    guard parts.count == 2 else { return false }
    let first = String(decoding: parts[0].utf8.filter { $0 != UInt8(ascii: " ") }, as: UTF8.self)
    let last = String(decoding: parts[1].utf8.filter { $0 != UInt8(ascii: " ") }, as: UTF8.self)
    if first.isEmpty {
      guard let suffix = Int64(last) else { return false }
      return suffix > length
    }
    if let start = Int64(first), start >= length { return true }
    if let end = Int64(last), end >= length { return true }
    return false
  }

  /// Whether a comma-separated ETag list (`If-Match`, `x-oss-copy-source-if-match`) names
  /// `etag` (ASCII case ignored) or is `*`; with `unquoting`, a tag's one pair of quotes is
  /// dropped first. Cut and compared at bytes.
  static func etagList(_ list: String, matches etag: String, unquoting: Bool) -> Bool {
    WireText.split(list, at: ",").contains { candidate in
      var tag = WireText.trimmingSpaces(candidate)
      if unquoting, let opened = WireText.dropping(prefix: "\"", from: tag),
        let inside = WireText.dropping(suffix: "\"", from: opened)
      {
        tag = inside
      }
      return WireText.same(tag, "*") || WireText.sameIgnoringASCIICase(tag, etag)
    }
  }
}
