public import StorageCore

/// One bucket of a ListBuckets answer, or the bucket of a GetBucketInfo answer.
public struct OSSBucketSummary: Sendable, Equatable {
  /// The bucket's name.
  public var name: String
  /// When it was created.
  public var creationDate: Timestamp?
  /// OSS's name for its region (`oss-cn-hangzhou`).
  public var location: String?
  /// The region ID (`cn-hangzhou`), for V4 scopes; derived from `location` when not sent.
  public var region: String?
  /// The public endpoint's host (`oss-cn-hangzhou.aliyuncs.com`).
  public var extranetEndpoint: String?
  /// The endpoint's host inside Aliyun's network (`oss-cn-hangzhou-internal.aliyuncs.com`).
  public var intranetEndpoint: String?
  /// The default storage class, as OSS spells it (`Standard`, `IA`…).
  public var storageClass: String?
  /// GetBucketInfo: `LRS` or `ZRS`.
  public var dataRedundancyType: String?
  /// GetBucketInfo: the ACL grant (`private`, `public-read`, `public-read-write`).
  public var accessControl: String?
  /// GetBucketInfo: `Enabled`, `Suspended`, when sent.
  public var versioning: String?
  /// GetBucketInfo: the owner.
  public var owner: OSSOwner?
  /// The bucket's comment, when set.
  public var comment: String?
  /// The resource group, when sent.
  public var resourceGroupID: String?

  /// A bucket from its parts.
  public init(
    name: String, creationDate: Timestamp? = nil, location: String? = nil, region: String? = nil,
    extranetEndpoint: String? = nil, intranetEndpoint: String? = nil, storageClass: String? = nil,
    dataRedundancyType: String? = nil, accessControl: String? = nil, versioning: String? = nil,
    owner: OSSOwner? = nil, comment: String? = nil, resourceGroupID: String? = nil
  ) {
    self.name = name
    self.creationDate = creationDate
    self.location = location
    self.region = region
    self.extranetEndpoint = extranetEndpoint
    self.intranetEndpoint = intranetEndpoint
    self.storageClass = storageClass
    self.dataRedundancyType = dataRedundancyType
    self.accessControl = accessControl
    self.versioning = versioning
    self.owner = owner
    self.comment = comment
    self.resourceGroupID = resourceGroupID
  }
}

/// One page of ListBuckets (GetService).
public struct OSSListBucketsResult: Sendable, Equatable {
  /// The prefix asked for, when sent.
  public var prefix: String?
  /// The marker the page starts after, when sent.
  public var marker: String?
  /// The page size, when sent.
  public var maxKeys: Int64?
  /// Whether more follows (absent means no).
  public var isTruncated: Bool
  /// Where the next page starts (set when truncated).
  public var nextMarker: String?
  /// The account.
  public var owner: OSSOwner?
  /// The buckets, in order.
  public var buckets: [OSSBucketSummary]

  /// A page from its parts.
  public init(
    prefix: String? = nil, marker: String? = nil, maxKeys: Int64? = nil,
    isTruncated: Bool = false, nextMarker: String? = nil, owner: OSSOwner? = nil,
    buckets: [OSSBucketSummary] = []
  ) {
    self.prefix = prefix
    self.marker = marker
    self.maxKeys = maxKeys
    self.isTruncated = isTruncated
    self.nextMarker = nextMarker
    self.owner = owner
    self.buckets = buckets
  }
}

extension OSSAnswers {
  /// Decodes a ListBuckets answer (`<ListAllMyBucketsResult>`). A truncated page must carry
  /// `NextMarker`; every bucket must have a name.
  ///
  /// - Throws: `StorageError(.protocolError)` saying what is wrong and where.
  public static func listBuckets(_ bytes: [UInt8], requestID: String? = nil)
    throws(StorageError) -> OSSListBucketsResult
  {
    try answer("bucket listing", bytes, requestID: requestID) { (reader, root) throws(Failure) in
      guard root == "ListAllMyBucketsResult" else {
        throw reader.unexpectedRoot(root, "ListAllMyBucketsResult")
      }
      var result = OSSListBucketsResult()
      try reader.readChildren { (reader, name) throws(Failure) in
        switch name {
        case "Prefix": result.prefix = try reader.readString()
        case "Marker": result.marker = try reader.readString()
        case "MaxKeys": result.maxKeys = try reader.readCount()
        case "IsTruncated": result.isTruncated = try reader.readBool()
        case "NextMarker": result.nextMarker = try reader.readString()
        case "Owner": result.owner = try owner(&reader)
        case "Buckets":
          try reader.readChildren { (reader, name) throws(Failure) in
            if name == "Bucket" { result.buckets.append(try bucket(&reader)) }
          }
        default: break
        }
      }
      if result.isTruncated && result.nextMarker?.isEmpty != false {
        throw reader.failure("the page is truncated but names no NextMarker to go on from")
      }
      return result
    }
  }

  /// Decodes a GetBucketInfo answer (`<BucketInfo><Bucket>…`).
  ///
  /// - Throws: `StorageError(.protocolError)` saying what is wrong and where.
  public static func bucketInfo(_ bytes: [UInt8], requestID: String? = nil)
    throws(StorageError) -> OSSBucketSummary
  {
    try answer("bucket information", bytes, requestID: requestID) {
      (reader, root) throws(Failure) in
      guard root == "BucketInfo" else { throw reader.unexpectedRoot(root, "BucketInfo") }
      var info: OSSBucketSummary?
      try reader.readChildren { (reader, name) throws(Failure) in
        if name == "Bucket" { info = try bucket(&reader) }
      }
      guard let info else { throw reader.failure("<BucketInfo> has no <Bucket>") }
      return info
    }
  }

  /// Decodes a GetBucketLocation answer: the OSS region name (`oss-cn-hangzhou`).
  ///
  /// - Throws: `StorageError(.protocolError)` when it is not `<LocationConstraint>` with a name.
  public static func bucketLocation(_ bytes: [UInt8], requestID: String? = nil)
    throws(StorageError) -> String
  {
    try answer("bucket location", bytes, requestID: requestID) { (reader, root) throws(Failure) in
      guard root == "LocationConstraint" else {
        throw reader.unexpectedRoot(root, "LocationConstraint")
      }
      let location = try reader.readString()
      guard !location.isEmpty else { throw reader.failure("<LocationConstraint> is empty") }
      return location
    }
  }

  static func bucket(_ reader: inout XMLPullReader) throws(Failure) -> OSSBucketSummary {
    var bucket = OSSBucketSummary(name: "")
    var seen = Seen()
    try reader.readChildren { (reader, name) throws(Failure) in
      switch name {
      case "Name":
        bucket.name = try reader.readString()
        if !bucket.name.isEmpty { seen.insert(.name) }
      case "CreationDate": bucket.creationDate = try reader.readISO8601()
      case "Location": bucket.location = try reader.readString()
      case "Region": bucket.region = try reader.readString()
      case "ExtranetEndpoint": bucket.extranetEndpoint = try reader.readString()
      case "IntranetEndpoint": bucket.intranetEndpoint = try reader.readString()
      case "StorageClass": bucket.storageClass = try reader.readString()
      case "DataRedundancyType": bucket.dataRedundancyType = try reader.readString()
      case "Comment": bucket.comment = try reader.readString()
      case "ResourceGroupId": bucket.resourceGroupID = try reader.readString()
      case "Versioning": bucket.versioning = try reader.readString()
      case "Owner": bucket.owner = try owner(&reader)
      case "AccessControlList":
        try reader.readChildren { (reader, name) throws(Failure) in
          if name == "Grant" { bucket.accessControl = try reader.readString() }
        }
      default: break
      }
    }
    try seen.require([.name], in: "Bucket", reader)
    if bucket.region == nil, let location = bucket.location {
      bucket.region = try? OSSRegion.id(location)
    }
    return bucket
  }
}
