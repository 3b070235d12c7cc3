import KodoCore
import NIOCore
import StorageCore

extension EmulatorService {
  /// The answer's message for a download of an archived object that is not restored.
  static let frozenMessage = "archived file is frozen, restore it first"

  /// Whether an object must be restored before it can be read: archive (2) or deep archive (3),
  /// not restored (`restoreStatus` 2). Archive IR (4) is read directly, as on Kodo.
  static func isFrozen(_ metadata: ObjectMetadata) -> Bool {
    (metadata.type == 2 || metadata.type == 3) && metadata.restoreStatus != 2
  }

  /// `GET|HEAD /dl/BUCKET/KEY`: the object's bytes, with `Range` support.
  ///
  /// The key is the percent-decoded rest of the path (`%2F` and `/` both mean `/`, `+` is a
  /// plus). Private buckets need a valid, unexpired token; so does a disabled object in a public
  /// bucket (Kodo serves disabled files only through signed URLs). An archived object that is not
  /// restored is refused with 403 (Kodo's "forbidden", `kodo-protocol.md` §5.2), as OSS refuses it
  /// with `InvalidObjectState`.
  func download(
    bucket bucketName: Substring, key encodedKey: Substring, request: IncomingRequest,
    reqid: String
  ) -> Reply {
    guard let name = PercentEncoding.decode(String(bucketName)),
      let key = PercentEncoding.decode(String(encodedKey))
    else {
      return error(400, "invalid argument", reqid: reqid)
    }
    guard let bucket = buckets[name] else {
      return error(404, "no such bucket", reqid: reqid)
    }
    var token: DownloadTokenOutcome?
    if bucket.isPrivate {
      let outcome = checkDownloadToken(request)
      token = outcome
      switch outcome {
      case .missing: return error(401, "download token not specified", reqid: reqid)
      case .invalid: return error(401, "download token auth failed", reqid: reqid)
      case .expired: return error(401, "token out of date", reqid: reqid)
      case .valid: break
      }
    }
    let source = bucket.source
    guard let index = source.index(of: Array(key.utf8)) else {
      return error(404, "no such file or directory", reqid: reqid)
    }
    guard let body = source.body(at: index) else {
      return error(404, "no such file or directory", reqid: reqid)
    }
    let metadata = source.metadata(at: index)
    if metadata.status != 0 && (token ?? checkDownloadToken(request)) != .valid {
      return error(403, "file disabled", reqid: reqid)
    }
    if Self.isFrozen(metadata) {
      return error(403, Self.frozenMessage, reqid: reqid)
    }
    var headers = commonHeaders(reqid: reqid)
    headers.append(("Content-Type", metadata.mimeType))
    headers.append(("ETag", "\"" + metadata.hash + "\""))
    headers.append(("Accept-Ranges", "bytes"))
    headers.append(
      (
        "Last-Modified",
        HTTPDate.format(unixSeconds: KodoTime.unixSeconds(hundredNanoseconds: metadata.putTime))
      ))
    let sendsBody = request.head.method != .HEAD
    switch ByteRange.parse(request.head.headers.first(name: "Range"), length: body.length) {
    case .whole:
      return Reply(
        status: .ok, headers: headers, body: .object(body, start: 0, length: body.length),
        sendsBody: sendsBody)
    case .unsatisfiable:
      var reply = error(416, "requested range not satisfiable", reqid: reqid)
      reply.headers.append(("Content-Range", "bytes */" + String(body.length)))
      return reply
    case .range(let first, let last):
      headers.append(
        ("Content-Range", "bytes \(first)-\(last)/\(body.length)"))
      return Reply(
        status: .partialContent, headers: headers,
        body: .object(body, start: first, length: last - first + 1), sendsBody: sendsBody)
    }
  }
}

/// A single `Range: bytes=…` request.
enum ByteRange: Equatable {
  /// No range, an unparseable one, or several: the whole body (RFC 9110 allows ignoring Range).
  case whole
  /// A syntactically valid range outside the body.
  case unsatisfiable
  /// Bytes `first...last`, both within the body.
  case range(Int64, Int64)

  static func parse(_ header: String?, length: Int64) -> ByteRange {
    guard let header else { return .whole }
    let trimmed = Substring(header).trimmingSpaces
    guard let unit = WireText.dropping(prefix: "bytes=", from: trimmed) else { return .whole }
    let spec = unit.trimmingSpaces
    guard !WireText.contains(spec, byte: ","), let (head, tail) = WireText.cut(spec, at: "-")
    else { return .whole }
    let firstText = head.trimmingSpaces
    let lastText = tail.trimmingSpaces
    if firstText.isEmpty {
      // A suffix: the last N bytes.
      guard let suffix = Int64(lastText) else { return .whole }
      guard suffix > 0, length > 0 else { return .unsatisfiable }
      return .range(max(0, length - suffix), length - 1)
    }
    guard let first = Int64(firstText), first >= 0 else { return .whole }
    var last = length - 1
    if !lastText.isEmpty {
      guard let parsed = Int64(lastText), parsed >= first else { return .whole }
      last = min(parsed, length - 1)
    }
    guard first < length else { return .unsatisfiable }
    return .range(first, last)
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    WireText.trimmingSpaces(self)
  }
}
