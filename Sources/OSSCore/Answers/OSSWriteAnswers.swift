public import StorageCore

/// What DeleteMultipleObjects answered: the keys deleted and the keys that failed.
public struct OSSDeleteResult: Sendable, Equatable {
  /// One key that was not deleted.
  public struct Failure: Sendable, Equatable {
    /// The key.
    public var key: String
    /// OSS's code.
    public var code: String
    /// OSS's message.
    public var message: String?
  }

  /// The keys deleted, decoded.
  public var deleted: [String]
  /// The keys not deleted.
  public var errors: [Failure]
}

/// One part of ListParts.
public struct OSSPartSummary: Sendable, Equatable {
  /// The part number.
  public var number: Int
  /// The ETag without quotes.
  public var etag: String
  /// The size.
  public var size: Int64
  /// The part's CRC-64, when sent.
  public var crc64: UInt64?
}

/// One page of ListParts.
public struct OSSListPartsResult: Sendable, Equatable {
  /// The parts, in the order sent.
  public var parts: [OSSPartSummary]
  /// Whether more parts follow.
  public var isTruncated: Bool
  /// Where the next page starts.
  public var nextPartNumberMarker: Int?
}

/// One upload of ListMultipartUploads.
public struct OSSUploadSummary: Sendable, Equatable {
  /// The key, decoded.
  public var key: String
  /// The upload id.
  public var uploadID: String
  /// When it was initiated.
  public var initiated: Timestamp?
}

/// One page of ListMultipartUploads.
public struct OSSListUploadsResult: Sendable, Equatable {
  /// The uploads in progress.
  public var uploads: [OSSUploadSummary]
  /// Whether more follow.
  public var isTruncated: Bool
  /// Where the next page starts (key, decoded).
  public var nextKeyMarker: String?
  /// Where the next page starts (upload id).
  public var nextUploadIDMarker: String?
}

extension OSSAnswers {
  /// The `UploadId` of an InitiateMultipartUpload answer.
  ///
  /// - Throws: `StorageError(.protocolError)` when there is none.
  public static func initiatedUploadID(_ bytes: [UInt8], requestID: String? = nil)
    throws(StorageError) -> String
  {
    try answer("multipart initiation", bytes, requestID: requestID) {
      (reader, root) throws(Failure) in
      guard root == "InitiateMultipartUploadResult" else {
        throw reader.unexpectedRoot(root, "InitiateMultipartUploadResult")
      }
      var uploadID = ""
      try reader.readChildren { (reader, name) throws(Failure) in
        if name == "UploadId" { uploadID = try reader.readString() }
      }
      guard !uploadID.isEmpty else { throw reader.failure("the answer names no UploadId") }
      return uploadID
    }
  }

  /// The `ETag` (without quotes) of a CompleteMultipartUpload, CopyObject or UploadPartCopy
  /// answer, whose root is `root`.
  ///
  /// - Throws: `StorageError(.protocolError)` when the root differs or there is no ETag.
  public static func resultETag(_ bytes: [UInt8], root expected: String, requestID: String? = nil)
    throws(StorageError) -> String
  {
    try answer(expected, bytes, requestID: requestID) { (reader, root) throws(Failure) in
      guard root.string == expected else { throw reader.unexpectedRoot(root, expected) }
      var etag = ""
      try reader.readChildren { (reader, name) throws(Failure) in
        if name == "ETag" { etag = try reader.readUnquotedString() }
      }
      guard !etag.isEmpty else { throw reader.failure("<\(expected)> has no ETag") }
      return etag
    }
  }

  /// A DeleteMultipleObjects answer; an empty body (quiet mode, all deleted) is an empty
  /// result. Keys are percent-decoded when the answer says `EncodingType` `url`.
  public static func deleteResult(_ bytes: [UInt8], requestID: String? = nil)
    throws(StorageError) -> OSSDeleteResult
  {
    if bytes.allSatisfy({ XMLPullReader.isSpace($0) }) {
      return OSSDeleteResult(deleted: [], errors: [])
    }
    let (raw, encodingType) = try answer("batch delete", bytes, requestID: requestID) {
      (reader, root) throws(Failure) in
      guard root == "DeleteResult" else { throw reader.unexpectedRoot(root, "DeleteResult") }
      var result = OSSDeleteResult(deleted: [], errors: [])
      var encodingType: String?
      try reader.readChildren { (reader, name) throws(Failure) in
        switch name {
        case "EncodingType": encodingType = try reader.readString()
        case "Deleted":
          try reader.readChildren { (reader, name) throws(Failure) in
            if name == "Key" { result.deleted.append(try reader.readString()) }
          }
        case "Error":
          var failure = OSSDeleteResult.Failure(key: "", code: "")
          try reader.readChildren { (reader, name) throws(Failure) in
            switch name {
            case "Key": failure.key = try reader.readString()
            case "Code": failure.code = try reader.readString()
            case "Message": failure.message = try reader.readString()
            default: break
            }
          }
          result.errors.append(failure)
        default: break
        }
      }
      return (result, encodingType)
    }
    guard encodingType == "url" else { return raw }
    var result = raw
    result.deleted = try raw.deleted.map { key throws(StorageError) in
      try decoded(key, requestID: requestID)
    }
    for index in result.errors.indices {
      result.errors[index].key = try decoded(result.errors[index].key, requestID: requestID)
    }
    return result
  }

  /// A ListParts answer.
  public static func listParts(_ bytes: [UInt8], requestID: String? = nil)
    throws(StorageError) -> OSSListPartsResult
  {
    try answer("part listing", bytes, requestID: requestID) { (reader, root) throws(Failure) in
      guard root == "ListPartsResult" else { throw reader.unexpectedRoot(root, "ListPartsResult") }
      var result = OSSListPartsResult(parts: [], isTruncated: false)
      try reader.readChildren { (reader, name) throws(Failure) in
        switch name {
        case "IsTruncated": result.isTruncated = try reader.readBool()
        case "NextPartNumberMarker": result.nextPartNumberMarker = Int(try reader.readCount())
        case "Part":
          var part = OSSPartSummary(number: 0, etag: "", size: 0)
          try reader.readChildren { (reader, name) throws(Failure) in
            switch name {
            case "PartNumber": part.number = Int(try reader.readCount())
            case "ETag": part.etag = try reader.readUnquotedString()
            case "Size": part.size = try reader.readCount()
            case "HashCrc64ecma":
              part.crc64 = try reader.readValue(
                { UInt64(String(decoding: $0, as: UTF8.self)) },
                problem: { _ in "a CRC-64 that is not an unsigned decimal number" })
            default: break
            }
          }
          guard (1...10_000).contains(part.number) else {
            throw reader.failure("a part's number is not 1 to 10000")
          }
          result.parts.append(part)
        default: break
        }
      }
      if result.isTruncated && result.nextPartNumberMarker == nil {
        throw reader.failure("the page is truncated but names no NextPartNumberMarker")
      }
      return result
    }
  }

  /// A ListMultipartUploads answer; keys percent-decoded when it says `EncodingType` `url`.
  public static func listUploads(_ bytes: [UInt8], requestID: String? = nil)
    throws(StorageError) -> OSSListUploadsResult
  {
    let (raw, encodingType) = try answer("multipart upload listing", bytes, requestID: requestID) {
      (reader, root) throws(Failure) in
      guard root == "ListMultipartUploadsResult" else {
        throw reader.unexpectedRoot(root, "ListMultipartUploadsResult")
      }
      var result = OSSListUploadsResult(uploads: [], isTruncated: false)
      var encodingType: String?
      try reader.readChildren { (reader, name) throws(Failure) in
        switch name {
        case "EncodingType": encodingType = try reader.readString()
        case "IsTruncated": result.isTruncated = try reader.readBool()
        case "NextKeyMarker": result.nextKeyMarker = try reader.readString()
        case "NextUploadIdMarker": result.nextUploadIDMarker = try reader.readString()
        case "Upload":
          var upload = OSSUploadSummary(key: "", uploadID: "")
          try reader.readChildren { (reader, name) throws(Failure) in
            switch name {
            case "Key": upload.key = try reader.readString()
            case "UploadId": upload.uploadID = try reader.readString()
            case "Initiated": upload.initiated = try reader.readISO8601()
            default: break
            }
          }
          result.uploads.append(upload)
        default: break
        }
      }
      return (result, encodingType)
    }
    guard encodingType == "url" else { return raw }
    var result = raw
    for index in result.uploads.indices {
      result.uploads[index].key = try decoded(result.uploads[index].key, requestID: requestID)
    }
    result.nextKeyMarker = try result.nextKeyMarker.map { key throws(StorageError) in
      try decoded(key, requestID: requestID)
    }
    return result
  }

  private static func decoded(_ text: String, requestID: String?) throws(StorageError) -> String {
    guard let value = PercentEncoding.decode(text) else {
      throw StorageError(
        .protocolError,
        "OSS sent the key \(DisplayText.quoted(text)), which is not valid percent-encoding (encoding-type=url)",
        requestID: requestID)
    }
    return value
  }
}
