import Foundation
import NIOCore
import StorageCore

extension OSSFront {
  /// RestoreObject: `POST /KEY?restore` with an optional
  /// `<RestoreRequest><Days>N</Days></RestoreRequest>`. An Archive or ColdArchive object becomes
  /// restored at once (the emulator has no thaw delay; 202 the first time, 200 when it already
  /// was, as OSS extends a restored copy); one whose restore is still under way (seeded so) is
  /// `RestoreAlreadyInProgress` (409); another class is `OperationNotSupported` (400).
  func restoreObject(
    _ store: BucketStore, key: String, _ request: IncomingRequest, _ context: AnswerContext
  ) throws(OSSFailure) -> Reply {
    try Self.validate(key: key)
    try Self.checkContentMD5(context.incoming.headers["Content-MD5"], Digest.md5(request.body))
    _ = try Self.restoreDays(request.body)
    guard let writable = store.writable else {
      throw OSSFailure(status: 403, code: "AccessDenied", message: "The bucket is read-only.")
    }
    var refusal: OSSFailure?
    var already = false
    do throws(StoreFailure) {
      try writable.update(key: Array(key.utf8)) { object in
        let metadata = object.metadata
        guard metadata.type == 2 || metadata.type == 3 else {
          refusal = OSSFailure(
            status: 400, code: "OperationNotSupported",
            message: "The operation is not supported for this resource.",
            fields: ["Key": key])
          return
        }
        if metadata.restoreStatus == 1 {
          refusal = OSSFailure(
            status: 409, code: "RestoreAlreadyInProgress",
            message: "The restore operation is in progress.")
          return
        }
        already = metadata.restoreStatus == 2
        object.metadata.restoreStatus = 2
      }
    } catch {
      throw Self.failure(error, key: key)
    }
    if let refusal { throw refusal }
    return empty(already ? 200 : 202, context)
  }

  /// The days a RestoreRequest body asks for (1 by default, without a body), 1 to 365.
  static func restoreDays(_ body: [UInt8]) throws(OSSFailure) -> Int {
    guard !body.isEmpty else { return 1 }
    let text = String(decoding: body, as: UTF8.self)
    guard let open = WireText.range(of: "<Days>", in: text),
      let close = WireText.range(of: "</Days>", in: text[open.upperBound...]),
      let days = Int(text[open.upperBound..<close.lowerBound]), (1...365).contains(days)
    else {
      throw OSSFailure(
        status: 400, code: "MalformedXML",
        message:
          "The XML you provided was not well-formed or did not validate against our published schema."
      )
    }
    return days
  }
}

extension OSSFront {
  /// `x-oss-copy-source-if-match`: the copy goes ahead only while the source's ETag is the one
  /// given (quoted or not, or `*`), else `PreconditionFailed` (412), as OSS does. A copy onto
  /// itself that replaces metadata read just before relies on it.
  func checkCopySourceMatch(
    _ headers: HTTPHeaders, source: any ObjectSource, key: String, index: Int
  ) throws(OSSFailure) {
    guard let expected = headers["x-oss-copy-source-if-match"] else { return }
    let etag = etag(of: source, key: key, index: index)
    guard Self.etagList(expected, matches: etag, unquoting: true) else {
      throw OSSFailure(
        status: 412, code: "PreconditionFailed",
        message: "At least one of the pre-conditions you specified did not hold.",
        fields: ["Condition": "x-oss-copy-source-if-match"])
    }
  }

  /// The ETag HeadObject answers for the object at `index` of `source` (without quotes): a
  /// copy onto itself keeps it, since the content stays.
  func etag(of source: any ObjectSource, key: String, index: Int) -> String {
    OSSObjectView(
      key: Array(key.utf8), metadata: source.metadata(at: index, digests: []), index: index,
      synthetic: source is SyntheticSource ? configuration.seed : nil
    ).etag
  }
}
