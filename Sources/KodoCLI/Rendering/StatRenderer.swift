import StorageCore

/// `stat`'s human layout: one `Label: value` row per field the service gave, aligned, every
/// value escaped.
enum StatRenderer {
  static func describe(_ details: ObjectDetails, bucket: String) -> [DisplayText] {
    let object = details.object
    var rows: [(DisplayText, DisplayText)] = [
      ("Bucket", DisplayText(escaping: bucket)),
      ("Key", DisplayText(name: object.key)),
      ("Size", "\(object.size) bytes (\(Human.size(object.size)))"),
    ]
    if let hash = object.hash { rows.append(("Hash", DisplayText(escaping: hash))) }
    if let etag = object.etag { rows.append(("ETag", DisplayText(escaping: etag))) }
    if let crc64 = details.crc64 { rows.append(("CRC-64", DisplayText(escaping: crc64))) }
    if let mimeType = object.mimeType {
      rows.append(("MIME type", DisplayText(escaping: mimeType)))
    }
    rows.append(("Put time", timeRow(object.putTime)))
    rows.append(
      ("Storage class", "\(object.storageClass.name) (\(object.storageClass.serviceName))"))
    if let status = object.status { rows.append(("Status", "\(status.name)")) }
    if let objectType = object.objectType {
      rows.append(("Object type", DisplayText(escaping: objectType)))
    }
    if let lastModified = object.lastModified {
      rows.append(("Last modified", timeRow(lastModified)))
    }
    if let restore = object.restoreStatus {
      rows.append(("Restore status", DisplayText(escaping: restore.name)))
    }
    if let md5 = object.md5 { rows.append(("MD5", DisplayText(escaping: md5))) }
    if let endUser = object.endUser { rows.append(("End user", DisplayText(escaping: endUser))) }
    let lifecycle: [(DisplayText, Int64?)] = [
      ("Expires", details.expiration), ("To IA", details.transitionToIA),
      ("To archive IR", details.transitionToArchiveIR), ("To archive", details.transitionToArchive),
      ("To deep archive", details.transitionToDeepArchive),
    ]
    for (label, value) in lifecycle {
      if let value {
        rows.append(
          (
            label,
            "\(Human.localTimeLong(value))  (\(Timestamp.rfc3339(unixSeconds: value)), \(value))"
          ))
      }
    }
    if let parts = object.parts {
      rows.append(("Parts", "\(parts.map(String.init).joined(separator: ", "))"))
    }
    for (name, value) in (object.meta ?? [:]).sorted(by: { $0.key < $1.key }) {
      rows.append(("meta " + DisplayText(escaping: name), DisplayText(escaping: value)))
    }
    let width = rows.map { $0.0.text.count }.max() ?? 0
    return rows.map { Human.padRight($0.0 + ":", width + 1) + " " + $0.1 }
  }

  private static func timeRow(_ time: Timestamp) -> DisplayText {
    let exact =
      time.fractionDigits == 7 ? ", \(time.hundredNanoseconds)" : ""
    return "\(Human.localTimeLong(time.unixSeconds))  (\(time.rfc3339)\(exact))"
  }
}
