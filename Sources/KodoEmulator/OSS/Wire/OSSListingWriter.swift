package import NIOCore
package import OSSCore
package import StorageCore

/// Writes a ListObjects or ListObjectsV2 answer one entry at a time into one byte buffer, as
/// `OSSAnswers.listObjectsXML` does for a whole `OSSListObjectsResult`: a server can write a
/// page of keys it holds as bytes without building a string or a summary for each of them.
package struct OSSListingWriter {
  private var xml: XMLWriter
  private let url: Bool

  /// Writes everything that comes before the entries: `header`'s fields (V1 when its
  /// `continuationToken`, `startAfter`, `keyCount` and `nextContinuationToken` are all `nil`).
  /// Its objects and common prefixes are not written; `entries` is how many will be appended
  /// (`KeyCount` when `header.keyCount` is `nil`).
  package init(_ header: OSSListObjectsResult, entries: Int) {
    url = header.encodingType == "url"
    let isV2 =
      header.continuationToken != nil || header.startAfter != nil || header.keyCount != nil
      || header.nextContinuationToken != nil
    xml = XMLWriter(capacity: 400 * max(0, min(entries, 10_000)) + 512)
    xml.open("ListBucketResult")
    xml.element("Name", header.name)
    text("Prefix", header.prefix)
    if isV2 {
      text("ContinuationToken", ifPresent: header.continuationToken)
      text("StartAfter", ifPresent: header.startAfter)
    } else {
      text("Marker", header.marker ?? "")
    }
    xml.element("MaxKeys", decimal: header.maxKeys)
    text("Delimiter", header.delimiter)
    xml.element("EncodingType", ifPresent: header.encodingType)
    xml.element("IsTruncated", header.isTruncated ? "true" : "false")
    if isV2 {
      xml.element("KeyCount", decimal: header.keyCount ?? Int64(entries))
      text("NextContinuationToken", ifPresent: header.nextContinuationToken)
    } else {
      text("NextMarker", ifPresent: header.nextMarker)
    }
  }

  /// Appends one `<Contents>`: `key` in UTF-8, `etag` without its quotes.
  package mutating func appendObject(
    key: UnsafeBufferPointer<UInt8>, lastModified: Timestamp, etag: [UInt8]?, type: String?,
    size: Int64, storageClass: String?, owner: OSSOwner?, restore: OSSRestore?
  ) {
    // Neighbouring tags go in as one run each: a page is a thousand of these.
    xml.raw("<Contents><Key>")
    xml.text(utf8: key, percentEncoded: url)
    xml.raw("</Key><LastModified>")
    xml.time(lastModified)
    xml.raw("</LastModified>")
    if let etag {
      xml.raw("<ETag>&quot;")
      etag.withUnsafeBufferPointer { xml.escape(utf8: $0) }
      xml.raw("&quot;</ETag>")
    }
    if let type {
      xml.raw("<Type>")
      xml.escape(type)
      xml.raw("</Type>")
    }
    xml.raw("<Size>")
    xml.decimal(size)
    xml.raw("</Size>")
    if let storageClass {
      xml.raw("<StorageClass>")
      xml.escape(storageClass)
      xml.raw("</StorageClass>")
    }
    if let owner { OSSAnswers.writeOwner(owner, to: &xml) }
    xml.element("RestoreInfo", ifPresent: restore?.text)
    xml.raw("</Contents>")
  }

  /// Appends one `<Contents>` from a summary.
  package mutating func append(_ object: OSSObjectSummary) {
    var key = object.key
    key.withUTF8 { key in
      appendObject(
        key: key, lastModified: object.lastModified, etag: object.etag.map { Array($0.utf8) },
        type: object.type, size: object.size, storageClass: object.storageClass,
        owner: object.owner, restore: object.restore)
    }
  }

  /// Appends one `<CommonPrefixes>`.
  package mutating func appendCommonPrefix(utf8 prefix: UnsafeBufferPointer<UInt8>) {
    xml.raw("<CommonPrefixes><Prefix>")
    xml.text(utf8: prefix, percentEncoded: url)
    xml.raw("</Prefix></CommonPrefixes>")
  }

  /// How many bytes are written so far.
  package var count: Int { xml.bytes.count }

  /// Appends the bytes written so far to `buffer`.
  package func write(to buffer: inout ByteBuffer) {
    buffer.writeBytes(xml.bytes)
  }

  /// The whole answer.
  package consuming func finish() -> [UInt8] {
    xml.close("ListBucketResult")
    return xml.bytes
  }

  private mutating func text(_ name: StaticString, _ value: String) {
    var value = value
    value.withUTF8 { xml.element(name, utf8: $0, percentEncoded: url) }
  }

  private mutating func text(_ name: StaticString, ifPresent value: String?) {
    if let value { text(name, value) }
  }
}
