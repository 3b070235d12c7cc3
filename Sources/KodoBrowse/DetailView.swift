import StorageCore

/// A line of the detail pane.
struct DetailLine {
  var text: String
  var style: Style = []
}

/// The detail pane: every field of the selected object's stat (or its listing entry while the
/// stat loads), `ObjectField`'s rows in `detailOrder`, the key escaped and wrapped by cells.
func detailLines(_ state: State, width: Int) -> [DetailLine] {
  guard let row = state.selected else { return [] }
  var lines: [DetailLine] = []
  let labelWidth = 11
  func field(_ label: String, _ value: String?) {
    guard let value, !value.isEmpty else { return }
    // Cut with `…`, never silently: a cut hash must not pass for a whole one.
    let room = max(1, width - labelWidth)
    lines.append(
      DetailLine(text: Fit.pad(label, to: labelWidth) + Fit.truncate(Fit.visible(value), to: room)))
  }
  for part in wrap(Format.name(row.name), width: width) {
    lines.append(DetailLine(text: part, style: .bold))
  }
  lines.append(DetailLine(text: ""))
  switch row.kind {
  case .bucket(let bucket):
    field("region", bucket.region)
    field("access", bucket.isPrivate.map { $0 ? "private" : "public" })
    field("shared", bucket.shared)
    field("remark", bucket.remark)
  case .folder:
    lines.append(DetailLine(text: "folder · Enter opens it", style: .dim))
  case .object(let entry):
    let details = state.details[ExactKey(entry.key)]
    if details == nil && state.statLoading.map({ ExactKey.same($0.key, entry.key) }) == true {
      lines.append(DetailLine(text: "loading details …", style: .dim))
    }
    let shown = details ?? ObjectDetails(object: entry)
    for row in ObjectField.detailOrder {
      guard let label = row.detailLabel, let value = row.value(shown) else { continue }
      switch value {
      case .key(let text), .text(let text): field(label, text)
      case .byteCount(let count): field(label, "\(count) (\(Format.size(count)))")
      case .time(let time): field(label, time.rfc3339)
      case .unixTime(let seconds): field(label, Timestamp.rfc3339(unixSeconds: seconds))
      case .storageClass(let storageClass): field(label, storageClass.name)
      case .parts(let sizes): field(label, "\(sizes.count)")
      case .metadata(let entries):
        for entry in entries { field(label, entry.name + ": " + entry.value) }
      }
    }
    lines.append(DetailLine(text: ""))
    lines.append(DetailLine(text: "key", style: .dim))
    for part in wrap(Format.name(entry.key), width: width) { lines.append(DetailLine(text: part)) }
  }
  return lines
}

/// Splits safe text into lines of at most `width` cells, never inside a cluster.
func wrap(_ text: String, width: Int) -> [String] {
  guard width > 0 else { return [] }
  var lines: [String] = []
  var line = ""
  var used = 0
  for character in text {
    let cells = CellWidth.of(character)
    if used + cells > width {
      lines.append(line)
      line = ""
      used = 0
    }
    line.append(character)
    used += cells
  }
  if !line.isEmpty || lines.isEmpty { lines.append(line) }
  return lines
}
