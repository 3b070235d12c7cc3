import OSSCore
import StorageCore

/// The operation an OSS request asks for (path style: `/BUCKET/KEY?SUBRESOURCE`).
enum OSSOperation {
  case listBuckets
  case bucketInfo(String)
  case bucketLocation(String)
  case bucketACL(String)
  case objectACL(String, key: String)
  case listObjects(String)
  case listObjectsV2(String)
  case headObject(String, key: String)
  case objectMeta(String, key: String)
  case getObject(String, key: String)
  /// Writes: PutObject, CopyObject, DeleteObject, DeleteMultipleObjects and multipart.
  case putObject(String, key: String)
  case copyObject(String, key: String)
  case deleteObject(String, key: String)
  case deleteMultiple(String)
  case initiateMultipart(String, key: String)
  case uploadPart(String, key: String)
  case completeMultipart(String, key: String)
  case abortMultipart(String, key: String)
  case listParts(String, key: String)
  case listMultipartUploads(String)
  /// RestoreObject: `POST /KEY?restore`.
  case restoreObject(String, key: String)
  /// A bucket or object sub-resource the emulator does not serve (`?acl`, `?tagging`, …).
  case notImplemented(String?)

  /// Bucket sub-resources that name other APIs (the emulator serves none of them).
  private static let otherBucketSubresources = Set(
    [
      "cors", "lifecycle", "logging", "website", "referer", "policy", "tagging",
      "versioning", "versions", "encryption", "stat", "replication", "worm",
      "inventory", "qos", "requestPayment", "transferAcceleration", "accessPoint", "regions",
      "cname", "objectInfo", "resourceGroup", "style", "policyStatus", "httpsConfig",
    ].map(ExactKey.init))

  /// Object sub-resources that name other APIs.
  private static let otherObjectSubresources = Set(
    [
      "symlink", "tagging", "restore", "append", "x-oss-process", "versionId",
      "cleanRestoredObject",
    ].map(ExactKey.init))

  init(_ request: OSSIncomingRequest) {
    let names = Set(request.query.map { ExactKey($0.name) })
    guard let bucket = request.bucket else {
      self = names.has("regions") ? .notImplemented(nil) : .listBuckets
      return
    }
    if request.key.isEmpty {
      if request.method == "POST" && names.has("delete") {
        self = .deleteMultiple(bucket)
      } else if request.method == "GET" && names.has("uploads") {
        self = .listMultipartUploads(bucket)
      } else if names.has("bucketInfo") {
        self = .bucketInfo(bucket)
      } else if names.has("location") {
        self = .bucketLocation(bucket)
      } else if names.has("acl") {
        self = .bucketACL(bucket)
      } else if !names.isDisjoint(with: Self.otherBucketSubresources) {
        self = .notImplemented(bucket)
      } else if request.parameter("list-type").map({ WireText.same($0, "2") }) == true {
        self = .listObjectsV2(bucket)
      } else {
        self = .listObjects(bucket)
      }
    } else if request.method == "POST" && names.has("restore") {
      self = .restoreObject(bucket, key: request.key)
    } else if !names.isDisjoint(with: Self.otherObjectSubresources) {
      self = .notImplemented(bucket)
    } else if let write = Self.write(request, bucket: bucket, names: names) {
      self = write
    } else if names.has("acl") {
      self = .objectACL(bucket, key: request.key)
    } else if names.has("objectMeta") {
      self = .objectMeta(bucket, key: request.key)
    } else if request.method == "HEAD" {
      self = .headObject(bucket, key: request.key)
    } else {
      self = .getObject(bucket, key: request.key)
    }
  }

  /// An object write, from the method and sub-resources; `nil` for reads.
  private static func write(_ request: OSSIncomingRequest, bucket: String, names: Set<ExactKey>)
    -> OSSOperation?
  {
    let key = request.key
    switch request.method {
    case "PUT":
      if names.has("uploadId") || names.has("partNumber") {
        return .uploadPart(bucket, key: key)
      }
      if request.headers["x-oss-copy-source"] != nil { return .copyObject(bucket, key: key) }
      return .putObject(bucket, key: key)
    case "POST":
      if names.has("uploads") { return .initiateMultipart(bucket, key: key) }
      if names.has("uploadId") { return .completeMultipart(bucket, key: key) }
      return nil
    case "DELETE":
      return names.has("uploadId")
        ? .abortMultipart(bucket, key: key) : .deleteObject(bucket, key: key)
    case "GET":
      return names.has("uploadId") ? .listParts(bucket, key: key) : nil
    default:
      return nil
    }
  }

  /// The bucket addressed, if any.
  var bucket: String? {
    switch self {
    case .listBuckets: nil
    case .notImplemented(let bucket): bucket
    case .bucketInfo(let bucket), .bucketLocation(let bucket), .bucketACL(let bucket),
      .objectACL(let bucket, _), .listObjects(let bucket), .listObjectsV2(let bucket),
      .headObject(let bucket, _), .objectMeta(let bucket, _), .getObject(let bucket, _),
      .putObject(let bucket, _), .copyObject(let bucket, _), .deleteObject(let bucket, _),
      .deleteMultiple(let bucket), .initiateMultipart(let bucket, _), .uploadPart(let bucket, _),
      .completeMultipart(let bucket, _), .abortMultipart(let bucket, _),
      .listParts(let bucket, _), .listMultipartUploads(let bucket),
      .restoreObject(let bucket, _):
      bucket
    }
  }

  /// Whether it writes (then the bucket must take writes).
  var isWrite: Bool {
    switch self {
    case .putObject, .copyObject, .deleteObject, .deleteMultiple, .initiateMultipart,
      .uploadPart, .completeMultipart, .abortMultipart, .restoreObject:
      true
    default: false
    }
  }

  /// Whether anonymous requests may read it in a public-read bucket.
  var isObjectRead: Bool {
    switch self {
    case .headObject, .objectMeta, .getObject: true
    default: false
    }
  }

  /// The shared counters', faults' and latency's view of it: the Kodo endpoint doing the same
  /// job (`buckets`, `bucketInfo`, `list`, `stat`, `download`).
  var route: Route {
    switch self {
    case .listBuckets: .buckets
    case .bucketInfo, .bucketLocation, .bucketACL: .bucketInfo
    case .listObjects, .listObjectsV2: .list
    case .headObject, .objectMeta, .objectACL: .stat(entry: "")
    case .getObject: .download(bucket: "", key: "")
    case .putObject, .initiateMultipart, .uploadPart, .completeMultipart, .abortMultipart,
      .listParts, .listMultipartUploads:
      .upload("")
    case .copyObject, .deleteObject, .deleteMultiple, .restoreObject: .write("")
    case .notImplemented: .unknown
    }
  }
}

/// One OSS error answer.
struct OSSFailure: Error {
  var status: Int
  var code: String
  var message: String
  /// OSS's detailed error code (`0026-00000001`), where OSS's documentation gives it.
  var ec: String?
  var fields: [String: String] = [:]
}

extension Set<ExactKey> {
  /// Whether the set has a name with the bytes of `name` (query names are compared as bytes).
  fileprivate func has(_ name: String) -> Bool { contains(ExactKey(name)) }
}
