import StorageCore

/// kodo's marker for OSS listings: OSS's continuation token (`NextContinuationToken`) in
/// URL-safe base64 behind a prefix, opaque as Kodo's markers are, so that `--marker` resumes a
/// listing the same way on both services.
enum OSSListMarker {
  static let prefix = "oss2."

  /// The marker for `token`.
  static func wrap(_ token: String) -> String {
    prefix + URLSafeBase64.encode(token)
  }

  /// The token in `marker`.
  ///
  /// - Throws: `StorageError(.invalidInput)` when the marker is not one kodo gave for an OSS
  ///   listing.
  static func unwrap(_ marker: String) throws(StorageError) -> String {
    guard let encoded = WireText.dropping(prefix: prefix, from: marker),
      let bytes = URLSafeBase64.decode(String(encoded)),
      !bytes.isEmpty, let token = String(validating: bytes, as: UTF8.self)
    else {
      throw StorageError(
        .invalidInput,
        "\(DisplayText.quoted(String(marker.prefix(100)))) is not a marker kodo printed for an OSS listing",
        hint: .restartListing)
    }
    return token
  }

  /// The provider-neutral page of a decoded ListObjectsV2 answer: folders, objects, and the
  /// wrapped token when more follows.
  static func page(_ result: OSSListObjectsResult, what: String, requestID: String?)
    throws(StorageError) -> ListPage
  {
    var items: [ObjectEntry] = []
    items.reserveCapacity(result.objects.count)
    // A page repeats a few storage classes and types: each is converted once.
    var storageClass = (service: nil as String?, value: OSSClient.storageClass(nil))
    var type = (service: nil as String?, value: nil as String?)
    // Through the buffer: `for object in result.objects` would copy each summary first.
    result.objects.withUnsafeBufferPointer { objects in
      for index in objects.indices {
        if objects[index].storageClass != storageClass.service {
          let name = objects[index].storageClass
          storageClass = (name, OSSClient.storageClass(name))
        }
        if objects[index].type != type.service {
          let name = objects[index].type
          type = (name, name.map(UTF8Text.lowercased))
        }
        items.append(
          ObjectEntry(
            key: objects[index].key, size: objects[index].size,
            putTime: objects[index].lastModified, storageClass: storageClass.value,
            mimeType: nil, hashText: nil, etagText: objects[index].etagText, status: nil,
            objectType: type.value, md5Text: nil, endUser: nil, meta: nil,
            restoreStatus: objects[index].restore?.status, lastModified: nil, parts: nil))
      }
    }
    var next: String?
    if result.isTruncated {
      guard let token = result.nextContinuationToken, !token.isEmpty else {
        throw StorageError(
          .protocolError,
          "OSS's answer to \(what) is truncated but names no NextContinuationToken",
          requestID: requestID)
      }
      next = wrap(token)
    }
    return ListPage(
      commonPrefixes: result.commonPrefixes, items: items, nextMarker: next,
      bucket: result.name.isEmpty ? nil : result.name,
      prefix: result.prefix.isEmpty ? nil : result.prefix)
  }
}
