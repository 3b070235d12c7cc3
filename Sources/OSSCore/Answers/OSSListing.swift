public import StorageCore

/// The owner OSS names in listings (with `fetch-owner=true` for ListObjectsV2).
public struct OSSOwner: Sendable, Equatable {
  /// The owner's ID.
  public var id: String
  /// The owner's display name.
  public var displayName: String

  /// An owner from its parts.
  public init(id: String, displayName: String) {
    self.id = id
    self.displayName = displayName
  }
}

/// One object of a listing page (`<Contents>`), as OSS describes it.
public struct OSSObjectSummary: Sendable, Equatable {
  /// The key, decoded.
  public var key: String
  /// `LastModified`, exact (`2012-02-24T08:42:32.000Z` keeps its milliseconds).
  public var lastModified: Timestamp
  /// The size in bytes.
  public var size: Int64
  /// The ETag without its quotes (an MD5 only for simple uploads), when sent, kept inline when
  /// short (`etag` is its text).
  package var etagText: InlineText?
  /// `Normal`, `Multipart`, `Appendable`, `Symlink` or another type, as OSS spells it.
  public var type: String?
  /// `Standard`, `IA`, `Archive`, `ColdArchive`, `DeepColdArchive` or another class, as OSS
  /// spells it.
  public var storageClass: String?
  /// The owner, when sent.
  public var owner: OSSOwner?
  /// The restore state of an archived object (`<RestoreInfo>`), when sent.
  public var restore: OSSRestore?

  /// A summary from its parts.
  public init(
    key: String, lastModified: Timestamp, size: Int64, etag: String? = nil, type: String? = nil,
    storageClass: String? = nil, owner: OSSOwner? = nil, restore: OSSRestore? = nil
  ) {
    self.key = key
    self.lastModified = lastModified
    self.size = size
    self.etagText = etag.map(InlineText.init)
    self.type = type
    self.storageClass = storageClass
    self.owner = owner
    self.restore = restore
  }
}

extension OSSObjectSummary {
  /// The ETag without its quotes (an MD5 only for simple uploads), when sent.
  public var etag: String? {
    get { etagText?.string }
    set { etagText = newValue.map(InlineText.init) }
  }
}

/// One page of ListObjects (V1: `marker`) or ListObjectsV2 (`continuation-token`), decoded:
/// with `encoding-type=url`, every key, prefix, marker and token is already percent-decoded.
public struct OSSListObjectsResult: Sendable, Equatable {
  /// The bucket.
  public var name: String
  /// The prefix listed.
  public var prefix: String
  /// The delimiter, empty when none.
  public var delimiter: String
  /// The page size asked for.
  public var maxKeys: Int64
  /// `url` when keys were percent-encoded, else `nil`.
  public var encodingType: String?
  /// Whether more follows.
  public var isTruncated: Bool
  /// V1: the marker the page starts after.
  public var marker: String?
  /// V1: where the next page starts (set when truncated).
  public var nextMarker: String?
  /// V2: the token this page was asked with.
  public var continuationToken: String?
  /// V2: the token of the next page (set when truncated).
  public var nextContinuationToken: String?
  /// V2: the key the listing started after.
  public var startAfter: String?
  /// V2: how many keys and prefixes the page holds.
  public var keyCount: Int64?
  /// The objects, in order.
  public var objects: [OSSObjectSummary]
  /// The common prefixes ("folders"), in order.
  public var commonPrefixes: [String]

  /// A page from its parts.
  public init(
    name: String, prefix: String = "", delimiter: String = "", maxKeys: Int64 = 100,
    encodingType: String? = nil, isTruncated: Bool = false, marker: String? = nil,
    nextMarker: String? = nil, continuationToken: String? = nil,
    nextContinuationToken: String? = nil, startAfter: String? = nil, keyCount: Int64? = nil,
    objects: [OSSObjectSummary] = [], commonPrefixes: [String] = []
  ) {
    self.name = name
    self.prefix = prefix
    self.delimiter = delimiter
    self.maxKeys = maxKeys
    self.encodingType = encodingType
    self.isTruncated = isTruncated
    self.marker = marker
    self.nextMarker = nextMarker
    self.continuationToken = continuationToken
    self.nextContinuationToken = nextContinuationToken
    self.startAfter = startAfter
    self.keyCount = keyCount
    self.objects = objects
    self.commonPrefixes = commonPrefixes
  }
}

extension OSSAnswers {
  /// Decodes a ListObjects or ListObjectsV2 answer (`<ListBucketResult>`).
  ///
  /// `encodingType` is what the request asked for (`url`, or `nil`): the keys, prefixes,
  /// markers and tokens are percent-decoded strictly (`%XX` only, a `+` stays a `+`) as they
  /// are read, and the answer's `<EncodingType>` must say the same. A V1 page that is truncated
  /// must carry `NextMarker` (V2: `NextContinuationToken`).
  ///
  /// - Throws: `StorageError(.protocolError)` saying what is wrong and where.
  public static func listObjects(
    _ bytes: [UInt8], encodingType: String?, requestID: String? = nil
  ) throws(StorageError) -> OSSListObjectsResult {
    try answer("object listing", bytes, requestID: requestID) { (reader, root) throws(Failure) in
      guard root == "ListBucketResult" else {
        throw reader.unexpectedRoot(root, "ListBucketResult")
      }
      let encoded = encodingType == "url"
      var result = OSSListObjectsResult(name: "")
      var seen = Seen()
      var restores = RecentRestore()
      result.objects.reserveCapacity(1000)
      func value(_ reader: inout XMLPullReader) throws(Failure) -> String {
        encoded ? try reader.readPercentEncoded() : try reader.readString()
      }
      let inside = try reader.beginContent()  // `<ListBucketResult/>` has no children
      while inside, let name = try reader.nextChild() {
        switch name {
        case "Contents":
          result.objects.append(try objectSummary(&reader, encoded: encoded, restores: &restores))
        case "CommonPrefixes":
          try reader.readChildren { (reader, name) throws(Failure) in
            if name == "Prefix" { result.commonPrefixes.append(try value(&reader)) }
          }
        case "Name":
          result.name = try reader.readString()
          seen.insert(.name)
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
          seen.insert(.isTruncated)
        default: break
        }
      }
      try seen.require([.name, .isTruncated], in: "ListBucketResult", reader)
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
  }

  /// The last `<RestoreInfo>` read and what it says: a page's archived objects repeat a few.
  struct RecentRestore {
    var text: String?
    var restore: OSSRestore?
  }

  /// One `<Contents>`. Its children are read the fast way while they are simple elements
  /// (`readSimpleElement`), and the general way (`nextChild`) when one is not; both end in the
  /// same values and the same failures.
  static func objectSummary(
    _ reader: inout XMLPullReader, encoded: Bool, restores: inout RecentRestore
  ) throws(Failure) -> OSSObjectSummary {
    var object = OSSObjectSummary(key: "", lastModified: Timestamp(unixSeconds: 0), size: 0)
    var seen = Seen()
    let inside = try reader.beginContent()  // `<Contents/>` has no children
    while inside {
      if let element = reader.readSimpleElement() {
        if try simpleField(element, &reader, &object, &seen, encoded: encoded) { continue }
        reader.unread(element)
      }
      guard let name = try reader.nextChild() else { break }
      switch name {
      case "Key":
        object.key = encoded ? try reader.readPercentEncoded() : try reader.readString()
        try checkKey(object.key, reader)
        seen.insert(.key)
      case "LastModified":
        object.lastModified = try reader.readISO8601()
        seen.insert(.lastModified)
      case "Size":
        object.size = try reader.readCount()
        seen.insert(.size)
      case "ETag": object.etag = try reader.readUnquotedString()
      case "Type": object.type = try reader.readString()
      case "StorageClass": object.storageClass = try reader.readString()
      case "RestoreInfo":
        let text = try reader.readString()
        object.restore = try restore(text, reader, &restores)
      case "Owner": object.owner = try owner(&reader)
      default: break
      }
    }
    try seen.require([.key, .lastModified, .size], in: "Contents", reader)
    return object
  }

  /// A child of `<Contents>` read as a simple element into `object`; `false` when it must be
  /// read the general way instead (an `<Owner>`, a `<RestoreInfo>` (its text has entities), or
  /// quoted text anywhere but in an ETag).
  @inline(__always)
  static func simpleField(
    _ element: XMLSimpleElement, _ reader: inout XMLPullReader, _ object: inout OSSObjectSummary,
    _ seen: inout Seen, encoded: Bool
  ) throws(Failure) -> Bool {
    let name = reader.name(of: element)
    if element.quoted {
      guard name == "ETag" else { return false }
      object.etagText = try reader.value(
        of: element, XMLPullReader.inlineText, problem: XMLPullReader.notUTF8)
      return true
    }
    switch name {
    case "Key":
      object.key =
        encoded
        ? try reader.value(
          of: element, XMLPullReader.percentDecoded, problem: XMLPullReader.notPercentEncoded)
        : try reader.value(of: element, XMLPullReader.string, problem: XMLPullReader.notUTF8)
      try checkKey(object.key, reader)
      seen.insert(.key)
    case "LastModified":
      object.lastModified = try reader.value(
        of: element, OSSTime.parseISO8601(bytes:), problem: XMLPullReader.notATime)
      seen.insert(.lastModified)
    case "Size":
      object.size = try reader.value(
        of: element, XMLPullReader.count, problem: XMLPullReader.notACount)
      seen.insert(.size)
    case "ETag":
      object.etagText = try reader.value(
        of: element, XMLPullReader.unquotedInlineText, problem: XMLPullReader.notUTF8)
    case "Type":
      object.type = try reader.value(
        of: element, XMLPullReader.string, problem: XMLPullReader.notUTF8)
    case "StorageClass":
      object.storageClass = try reader.value(
        of: element, XMLPullReader.string, problem: XMLPullReader.notUTF8)
    case "RestoreInfo", "Owner": return false
    default: break
    }
    return true
  }

  static func checkKey(_ key: String, _ reader: XMLPullReader) throws(Failure) {
    guard !key.isEmpty else { throw reader.failure("<Key> is empty") }
  }

  /// The restore state `text` says, the one before it when it says the same.
  static func restore(
    _ text: String, _ reader: XMLPullReader, _ restores: inout RecentRestore
  ) throws(Failure) -> OSSRestore? {
    if text != restores.text {
      guard let restore = OSSRestore(text) else {
        throw reader.failure("\(DisplayText.quoted(text)) is not a restore state")
      }
      restores = RecentRestore(text: text, restore: restore)
    }
    return restores.restore
  }

  static func owner(_ reader: inout XMLPullReader) throws(Failure) -> OSSOwner {
    var owner = OSSOwner(id: "", displayName: "")
    try reader.readChildren { (reader, name) throws(Failure) in
      switch name {
      case "ID": owner.id = try reader.readString()
      case "DisplayName": owner.displayName = try reader.readString()
      default: break
      }
    }
    return owner
  }

  /// `"5B3C…"` → `5B3C…`; OSS quotes ETags in answers and headers.
  static func unquoted(_ etag: String) -> String {
    var etag = etag
    return etag.withUTF8 { String(decoding: unquoted(bytes: $0), as: UTF8.self) }
  }

  /// The bytes inside a pair of double quotes around all of `bytes`, else `bytes`.
  static func unquoted(bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\""),
      bytes[bytes.count - 1] == UInt8(ascii: "\"")
    else { return bytes }
    return UnsafeBufferPointer(rebasing: bytes[1..<(bytes.count - 1)])
  }
}

/// Where a listing goes on after a page, as a quick look at the answer tells it.
public struct OSSListContinuation: Sendable, Equatable {
  /// Whether more follows.
  public var isTruncated: Bool
  /// V1: the marker of the next page.
  public var nextMarker: String?
  /// V2: the token of the next page.
  public var nextContinuationToken: String?

  /// A continuation from its parts.
  public init(isTruncated: Bool, nextMarker: String? = nil, nextContinuationToken: String? = nil) {
    self.isTruncated = isTruncated
    self.nextMarker = nextMarker
    self.nextContinuationToken = nextContinuationToken
  }
}

extension OSSAnswers {
  /// The continuation of a ListObjects(V2) page without decoding its objects, so that the next
  /// request can be on its way while this page is decoded: OSS names `IsTruncated`,
  /// `NextMarker` and `NextContinuationToken` before the objects, and the look stops at the
  /// first object once it knows; in any other order it reads past the objects without decoding
  /// them. `nil` when the answer cannot be read this way: `listObjects` then says why, and its
  /// result is the one that counts (it must agree).
  public static func listContinuation(_ bytes: [UInt8], encodingType: String?)
    -> OSSListContinuation?
  {
    let encoded = encodingType == "url"
    let stop = XMLPullReader.Failure(offset: -1, reason: "")
    var truncated: Bool?
    var marker: String?
    var token: String?
    func known() -> Bool {
      truncated == false || (truncated == true && (marker != nil || token != nil))
    }
    do {
      try XMLPullReader.read(bytes) { (reader, root) throws(Failure) in
        guard root == "ListBucketResult" else { throw stop }
        try reader.readChildren { (reader, name) throws(Failure) in
          switch name {
          case "IsTruncated": truncated = try reader.readBool()
          case "NextMarker":
            marker = encoded ? try reader.readPercentEncoded() : try reader.readString()
          case "NextContinuationToken":
            token = encoded ? try reader.readPercentEncoded() : try reader.readString()
          case "Contents", "CommonPrefixes": if known() { throw stop }
          default: break
          }
        }
      }
    } catch {
      guard error == stop else { return nil }
    }
    guard let truncated, known() else { return nil }
    return OSSListContinuation(
      isTruncated: truncated, nextMarker: truncated ? marker : nil,
      nextContinuationToken: truncated ? token : nil)
  }
}
