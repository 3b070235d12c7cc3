package import NIOCore
package import OSSCore
package import StorageCore

/// Writes a ListObjects or ListObjectsV2 answer one entry at a time straight into a byte
/// buffer, as `OSSAnswers.listObjectsXML` does for a whole `OSSListObjectsResult`: a server can
/// write a page of keys it holds as bytes without building a string or a summary for each of
/// them. Each entry is one raw write (`RawXML`) into room reserved once, and the buffer is what
/// goes out (`take`, `finish`): nothing is copied after it is written.
package struct OSSListingWriter: Sendable {
  private var buffer = ByteBuffer()
  private let url: Bool

  /// About what an entry takes besides its key (and an owner's strings): its tags, time, ETag,
  /// type, size and storage class. For estimating a page's size, never for safety.
  package static let typicalEntryBytes = 256

  /// Writes everything that comes before the entries: `header`'s fields (V1 when its
  /// `continuationToken`, `startAfter`, `keyCount` and `nextContinuationToken` are all `nil`).
  /// Its objects and common prefixes are not written; `entries` is how many will be appended
  /// (`KeyCount` when `header.keyCount` is `nil`). `capacity` is reserved at once: the page's
  /// estimated size.
  package init(_ header: OSSListObjectsResult, entries: Int, capacity: Int = 0) {
    let url = header.encodingType == "url"
    self.url = url
    let isV2 =
      header.continuationToken != nil || header.startAfter != nil || header.keyCount != nil
      || header.nextContinuationToken != nil
    var room = 768 + RawXML.room(header.name) + RawXML.room(header.prefix)
    room += RawXML.room(header.delimiter) + RawXML.room(header.encodingType)
    room += RawXML.room(header.marker) + RawXML.room(header.nextMarker)
    room += RawXML.room(header.continuationToken) + RawXML.room(header.startAfter)
    room += RawXML.room(header.nextContinuationToken)
    buffer.reserveCapacity(max(capacity, room))
    buffer.writeRawXML(room: room) { xml in
      xml.literal("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult><Name>")
      xml.escaped(header.name)
      xml.literal("</Name><Prefix>")
      xml.text(header.prefix, percentEncoded: url)
      xml.literal("</Prefix>")
      if isV2 {
        if let token = header.continuationToken {
          xml.literal("<ContinuationToken>")
          xml.text(token, percentEncoded: url)
          xml.literal("</ContinuationToken>")
        }
        if let start = header.startAfter {
          xml.literal("<StartAfter>")
          xml.text(start, percentEncoded: url)
          xml.literal("</StartAfter>")
        }
      } else {
        xml.literal("<Marker>")
        xml.text(header.marker ?? "", percentEncoded: url)
        xml.literal("</Marker>")
      }
      xml.literal("<MaxKeys>")
      xml.decimal(header.maxKeys)
      xml.literal("</MaxKeys><Delimiter>")
      xml.text(header.delimiter, percentEncoded: url)
      xml.literal("</Delimiter>")
      if let encodingType = header.encodingType {
        xml.literal("<EncodingType>")
        xml.escaped(encodingType)
        xml.literal("</EncodingType>")
      }
      xml.literal("<IsTruncated>")
      if header.isTruncated { xml.literal("true") } else { xml.literal("false") }
      xml.literal("</IsTruncated>")
      if isV2 {
        xml.literal("<KeyCount>")
        xml.decimal(header.keyCount ?? Int64(entries))
        xml.literal("</KeyCount>")
        if let token = header.nextContinuationToken {
          xml.literal("<NextContinuationToken>")
          xml.text(token, percentEncoded: url)
          xml.literal("</NextContinuationToken>")
        }
      } else if let next = header.nextMarker {
        xml.literal("<NextMarker>")
        xml.text(next, percentEncoded: url)
        xml.literal("</NextMarker>")
      }
    }
  }

  /// Appends one `<Contents>`: `key` in UTF-8, `etag` without its quotes.
  package mutating func appendObject(
    key: UnsafeBufferPointer<UInt8>, lastModified: Timestamp, etag: [UInt8]?, type: String?,
    size: Int64, storageClass: String?, owner: OSSOwner?, restore: OSSRestore?
  ) {
    var room = 400 + RawXML.room(key.count) + RawXML.room(etag?.count ?? 0)
    room +=
      RawXML.room(type) + RawXML.room(storageClass) + (restore == nil ? 0 : RawXML.restoreRoom)
    if let owner { room += RawXML.room(owner.id) + RawXML.room(owner.displayName) }
    let url = url
    buffer.writeRawXML(room: room) { xml in
      xml.literal("<Contents><Key>")
      xml.text(key, percentEncoded: url)
      xml.literal("</Key><LastModified>")
      xml.time(lastModified)
      xml.literal("</LastModified>")
      if let etag {
        xml.literal("<ETag>&quot;")
        etag.withUnsafeBufferPointer { xml.escaped($0) }
        xml.literal("&quot;</ETag>")
      }
      if let type {
        xml.literal("<Type>")
        xml.escaped(type)
        xml.literal("</Type>")
      }
      xml.literal("<Size>")
      xml.decimal(size)
      xml.literal("</Size>")
      if let storageClass {
        xml.literal("<StorageClass>")
        xml.escaped(storageClass)
        xml.literal("</StorageClass>")
      }
      if let owner {
        xml.literal("<Owner><ID>")
        xml.escaped(owner.id)
        xml.literal("</ID><DisplayName>")
        xml.escaped(owner.displayName)
        xml.literal("</DisplayName></Owner>")
      }
      if let restore {
        xml.literal("<RestoreInfo>")
        xml.restore(restore)
        xml.literal("</RestoreInfo>")
      }
      xml.literal("</Contents>")
    }
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
    let url = url
    buffer.writeRawXML(room: 48 + RawXML.room(prefix.count)) { xml in
      xml.literal("<CommonPrefixes><Prefix>")
      xml.text(prefix, percentEncoded: url)
      xml.literal("</Prefix></CommonPrefixes>")
    }
  }

  /// Hands over the bytes written so far (to go out first) and goes on in a new, empty buffer.
  package mutating func take() -> ByteBuffer {
    let written = buffer
    buffer = ByteBuffer()
    return written
  }

  /// Reserves room for `capacity` bytes at once (a page's estimated size).
  package mutating func reserveCapacity(_ capacity: Int) {
    buffer.reserveCapacity(buffer.writerIndex + capacity)
  }

  /// The whole answer, or its rest after `take`; the writer is left empty. (Mutating, not
  /// consuming: a consumed copy would share the buffer, and the closing tag would then copy the
  /// whole page into a new one.)
  package mutating func finish() -> ByteBuffer {
    buffer.writeStaticString("</ListBucketResult>")
    return take()
  }
}
