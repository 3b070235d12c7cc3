import Foundation
import NIOCore
package import OSSCore
import StorageCore

/// OSS's answers written from the same values OSSCore's decoders produce, for the emulator,
/// which answers as OSS does, and for tests that read them back (the client only reads them).
extension OSSAnswers {
  /// A ListObjects (V1, when `continuationToken`, `startAfter` and `keyCount` are `nil`) or
  /// ListObjectsV2 answer. With `encodingType` `url`, keys, prefixes, markers and tokens are
  /// percent-encoded with RFC 3986's unreserved set.
  package static func listObjectsXML(_ result: OSSListObjectsResult) -> [UInt8] {
    var writer = OSSListingWriter(
      result, entries: result.objects.count + result.commonPrefixes.count)
    for object in result.objects { writer.append(object) }
    for prefix in result.commonPrefixes {
      var prefix = prefix
      prefix.withUTF8 { writer.appendCommonPrefix(utf8: $0) }
    }
    let buffer = writer.finish()
    return Array(buffer.readableBytesView)
  }

  /// A ListBuckets answer.
  package static func listBucketsXML(_ result: OSSListBucketsResult) -> [UInt8] {
    var xml = XMLWriter(capacity: 512 * result.buckets.count + 512)
    xml.open("ListAllMyBucketsResult")
    xml.element("Prefix", ifPresent: result.prefix)
    xml.element("Marker", ifPresent: result.marker)
    xml.element("MaxKeys", ifPresent: result.maxKeys.map { String($0) })
    xml.element("IsTruncated", result.isTruncated ? "true" : "false")
    xml.element("NextMarker", ifPresent: result.nextMarker)
    if let owner = result.owner { writeOwner(owner, to: &xml) }
    xml.open("Buckets")
    for bucket in result.buckets { writeBucket(bucket, to: &xml) }
    xml.close("Buckets")
    xml.close("ListAllMyBucketsResult")
    return xml.bytes
  }

  /// A GetBucketInfo answer.
  package static func bucketInfoXML(_ bucket: OSSBucketSummary) -> [UInt8] {
    var xml = XMLWriter()
    xml.open("BucketInfo")
    writeBucket(bucket, to: &xml)
    xml.close("BucketInfo")
    return xml.bytes
  }

  /// A GetBucketLocation answer.
  package static func bucketLocationXML(_ location: String) -> [UInt8] {
    var xml = XMLWriter()
    xml.element("LocationConstraint", location)
    return xml.bytes
  }

  /// An `<Error>` answer; `fields` follow the standard elements, sorted by name.
  package static func errorXML(_ body: OSSErrorBody) -> [UInt8] {
    var xml = XMLWriter()
    xml.open("Error")
    xml.element("Code", body.code)
    xml.element("Message", ifPresent: body.message)
    xml.element("RequestId", ifPresent: body.requestID)
    xml.element("HostId", ifPresent: body.hostID)
    for (name, value) in body.fields.sorted(by: { $0.key < $1.key })
    where XMLPullReader.isName(name) {
      xml.element(named: name, value)
    }
    xml.element("EC", ifPresent: body.ec)
    xml.close("Error")
    return xml.bytes
  }

  /// The `x-oss-err` header of a bodiless error answer: the `<Error>` document in base64.
  package static func errorHeaderValue(_ body: OSSErrorBody) -> String {
    Data(errorXML(body)).base64EncodedString()
  }

  static func writeOwner(_ owner: OSSOwner, to xml: inout XMLWriter) {
    xml.open("Owner")
    xml.element("ID", owner.id)
    xml.element("DisplayName", owner.displayName)
    xml.close("Owner")
  }

  private static func writeBucket(_ bucket: OSSBucketSummary, to xml: inout XMLWriter) {
    xml.open("Bucket")
    xml.element("CreationDate", ifPresent: bucket.creationDate.map(OSSTime.iso8601))
    xml.element("ExtranetEndpoint", ifPresent: bucket.extranetEndpoint)
    xml.element("IntranetEndpoint", ifPresent: bucket.intranetEndpoint)
    xml.element("Location", ifPresent: bucket.location)
    xml.element("Name", bucket.name)
    xml.element("Region", ifPresent: bucket.region)
    xml.element("StorageClass", ifPresent: bucket.storageClass)
    xml.element("DataRedundancyType", ifPresent: bucket.dataRedundancyType)
    xml.element("Versioning", ifPresent: bucket.versioning)
    xml.element("Comment", ifPresent: bucket.comment)
    xml.element("ResourceGroupId", ifPresent: bucket.resourceGroupID)
    if let owner = bucket.owner { writeOwner(owner, to: &xml) }
    if let grant = bucket.accessControl {
      xml.open("AccessControlList")
      xml.element("Grant", grant)
      xml.close("AccessControlList")
    }
    xml.close("Bucket")
  }
}
