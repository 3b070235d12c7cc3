import StorageCore

/// `stat`'s human layout: one `Label: value` row per field the service gave (`ObjectField`'s
/// rows in `statOrder`), aligned, every value escaped.
enum StatRenderer {
  static func describe(_ details: ObjectDetails, bucket: String) -> [DisplayText] {
    var rows: [(DisplayText, DisplayText)] = [("Bucket", DisplayText(escaping: bucket))]
    for field in ObjectField.statOrder {
      guard let value = field.value(details) else { continue }
      let label = DisplayText(stringLiteral: field.statLabel)
      switch value {
      case .key(let key): rows.append((label, DisplayText(name: key)))
      case .text(let text): rows.append((label, DisplayText(escaping: text)))
      case .byteCount(let count): rows.append((label, "\(count) bytes (\(Human.size(count)))"))
      case .time(let time): rows.append((label, timeRow(time)))
      case .unixTime(let seconds):
        rows.append(
          (
            label,
            "\(Human.localTimeLong(seconds))  (\(Timestamp.rfc3339(unixSeconds: seconds)), \(seconds))"
          ))
      case .storageClass(let storageClass):
        rows.append((label, "\(storageClass.name) (\(storageClass.serviceName))"))
      case .parts(let sizes):
        rows.append((label, "\(sizes.map(String.init).joined(separator: ", "))"))
      case .metadata(let entries):
        for entry in entries {
          rows.append(
            (label + " " + DisplayText(escaping: entry.name), DisplayText(escaping: entry.value)))
        }
      }
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
