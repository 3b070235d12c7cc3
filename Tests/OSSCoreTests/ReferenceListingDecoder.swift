import OSSCore
import StorageCore

/// The ListObjects(V2) decoder as it was before `<Contents>` children took the fast way: every
/// element through `XMLPullReader.readChildren` and the typed readers. Test code only, the
/// reference `ListingDecoderAgreementTests` holds `OSSAnswers.listObjects` to.
enum ReferenceListingDecoder {
  typealias Failure = XMLPullReader.Failure

  static func listObjects(
    _ bytes: [UInt8], encodingType: String?, requestID: String? = nil
  ) throws(StorageError) -> OSSListObjectsResult {
    do {
      return try XMLPullReader.read(bytes) { (reader, root) throws(Failure) in
        try decode(&reader, root, encodingType: encodingType)
      }
    } catch {
      throw StorageError(
        .protocolError,
        "cannot read OSS's object listing answer: \(error) (at byte \(error.offset) of \(bytes.count))",
        requestID: requestID)
    }
  }

  /// Which required elements were seen, as the decoders' `Seen` says it.
  struct Seen {
    var names: Set<String> = []

    func require(_ fields: [String], in element: String, _ reader: XMLPullReader)
      throws(Failure)
    {
      for field in fields where !names.contains(field) {
        var failure = reader.failure("<\(element)> has no <\(field)>")
        failure.offset = max(0, reader.position - 1)
        failure.path += (failure.path.isEmpty ? "" : "/") + element
        throw failure
      }
    }
  }

  static func decode(_ reader: inout XMLPullReader, _ root: XMLName, encodingType: String?)
    throws(Failure) -> OSSListObjectsResult
  {
    guard root == "ListBucketResult" else {
      throw Failure(
        offset: 0,
        reason:
          "the document is <\(DisplayText.escaped(String(root.string.prefix(64))))>, not <ListBucketResult>"
      )
    }
    let encoded = encodingType == "url"
    var result = OSSListObjectsResult(name: "")
    var seen = Seen()
    func value(_ reader: inout XMLPullReader) throws(Failure) -> String {
      encoded ? try reader.readPercentEncoded() : try reader.readString()
    }
    try reader.readChildren { (reader, name) throws(Failure) in
      switch name {
      case "Contents":
        result.objects.append(try objectSummary(&reader, encoded: encoded))
      case "CommonPrefixes":
        try reader.readChildren { (reader, name) throws(Failure) in
          if name == "Prefix" { result.commonPrefixes.append(try value(&reader)) }
        }
      case "Name":
        result.name = try reader.readString()
        seen.names.insert("Name")
      case "Prefix": result.prefix = try value(&reader)
      case "Delimiter": result.delimiter = try value(&reader)
      case "Marker": result.marker = try value(&reader)
      case "NextMarker": result.nextMarker = try value(&reader)
      case "ContinuationToken": result.continuationToken = try value(&reader)
      case "NextContinuationToken": result.nextContinuationToken = try value(&reader)
      case "StartAfter": result.startAfter = try value(&reader)
      case "MaxKeys": result.maxKeys = try reader.readCount()
      case "KeyCount": result.keyCount = try reader.readCount()
      case "EncodingType": result.encodingType = try reader.readString()
      case "IsTruncated":
        result.isTruncated = try reader.readBool()
        seen.names.insert("IsTruncated")
      default: break
      }
    }
    try seen.require(["Name", "IsTruncated"], in: "ListBucketResult", reader)
    guard (result.encodingType == "url") == encoded else {
      throw reader.failure(
        encoded
          ? "the listing was asked for with encoding-type=url but the answer is not URL-encoded"
          : "the answer is URL-encoded although that was not asked for")
    }
    if result.isTruncated && result.nextMarker == nil && result.nextContinuationToken == nil {
      throw reader.failure(
        "the page is truncated but names no NextMarker or NextContinuationToken to go on from")
    }
    return result
  }

  static func objectSummary(_ reader: inout XMLPullReader, encoded: Bool) throws(Failure)
    -> OSSObjectSummary
  {
    var object = OSSObjectSummary(key: "", lastModified: Timestamp(unixSeconds: 0), size: 0)
    var seen = Seen()
    try reader.readChildren { (reader, name) throws(Failure) in
      switch name {
      case "Key":
        object.key = encoded ? try reader.readPercentEncoded() : try reader.readString()
        guard !object.key.isEmpty else { throw reader.failure("<Key> is empty") }
        seen.names.insert("Key")
      case "LastModified":
        object.lastModified = try reader.readISO8601()
        seen.names.insert("LastModified")
      case "Size":
        object.size = try reader.readCount()
        seen.names.insert("Size")
      case "ETag": object.etag = try reader.readUnquotedString()
      case "Type": object.type = try reader.readString()
      case "StorageClass": object.storageClass = try reader.readString()
      case "RestoreInfo":
        let text = try reader.readString()
        guard let restore = OSSRestore(text) else {
          throw reader.failure("\(DisplayText.quoted(text)) is not a restore state")
        }
        object.restore = restore
      case "Owner":
        var owner = OSSOwner(id: "", displayName: "")
        try reader.readChildren { (reader, name) throws(Failure) in
          switch name {
          case "ID": owner.id = try reader.readString()
          case "DisplayName": owner.displayName = try reader.readString()
          default: break
          }
        }
        object.owner = owner
      default: break
      }
    }
    try seen.require(["Key", "LastModified", "Size"], in: "Contents", reader)
    return object
  }
}
