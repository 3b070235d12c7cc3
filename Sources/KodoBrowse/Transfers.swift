package import StorageCore

/// A local file and the key it is uploaded to.
package struct UploadFile: Sendable, Equatable {
  package var source: String
  package var key: String

  package init(source: String, key: String) {
    self.source = source
    self.key = key
  }
}

/// What an upload (`u`) sends, as `put` / `put -r` would.
package enum UploadPlan: Sendable, Equatable {
  /// A local path into the folder `folder` (a prefix, "" or ending in `/`): a file becomes
  /// `folder` + its name; a folder's files `folder` + the folder's name + `/` + their path below
  /// it (`put -r DIR BUCKET/folder/NAME/`).
  case path(String, folder: String)
  /// Files to their keys (the ones the service refused as existing, sent again to replace them).
  case files([UploadFile])
}

/// How far an upload has come.
package struct UploadProgress: Sendable, Equatable {
  /// Files finished (uploaded, refused or failed), of `listed`.
  package var done = 0
  package var listed = 0
  /// Bytes of the files uploaded, of `total`.
  package var bytes: Int64 = 0
  package var total: Int64 = 0
  /// Seconds since the upload started (for the rate).
  package var seconds: Double = 0
  /// The objects uploaded since the last progress, as the service now holds them (shown at
  /// once in the folders the browser keeps).
  package var uploaded: [ObjectEntry] = []

  package init() {}
}

/// How an upload ended.
package struct UploadSummary: Sendable, Equatable {
  /// Files uploaded.
  package var uploaded = 0
  /// Files whose key exists: refused by the service (kept), offered for replacing.
  package var existing: [UploadFile] = []
  /// Files not uploaded for another reason (or skipped by the walk), and the first reason.
  package var failed = 0
  package var firstFailure: String?
  /// What the walk of a folder skipped, as `put -r` does (a symbolic link, a device …), and the
  /// first one's note.
  package var skipped = 0
  package var firstSkip: String?

  package init() {}

  /// Counts a failure and keeps the first one's message.
  package mutating func failure(_ text: String) {
    failed += 1
    if firstFailure == nil { firstFailure = text }
  }
}

/// One upload, download, delete or move started in this session, for the queue (`t`).
package struct Transfer: Sendable, Equatable {
  package enum Kind: String, Sendable, Equatable {
    case upload, download, delete, move
  }

  package enum Status: Sendable, Equatable {
    case running
    /// Ended; how (the message the status line said).
    case done(String)
    /// Failed as a whole, with the error, whole.
    case failed(String)
    /// Cancelled with `x` (or by quitting).
    case cancelled
  }

  /// The request's id (`cancel(id:)` stops it).
  package var id: Int
  package var kind: Kind
  /// What it is about, not yet escaped.
  package var name: String
  package var status: Status = .running
  /// Objects finished, of `listed` (`nil`: not counted).
  package var done: Int?
  package var listed: Int?
  /// Bytes finished, of `total`.
  package var bytes: Int64?
  package var total: Int64?
  /// Seconds it has run, as last told (for the rate).
  package var seconds: Double?

  package init(id: Int, kind: Kind, name: String) {
    self.id = id
    self.kind = kind
    self.name = name
  }

  /// Whether it still runs.
  package var running: Bool { status == .running }

  /// Bytes a second, once known.
  package var rate: Int64? {
    guard let bytes, let seconds, seconds > 0 else { return nil }
    return Int64(Double(bytes) / seconds)
  }

  /// Its line in the queue (not yet escaped: `Fit.visible` is applied by the view).
  var line: String {
    var parts = [kind.rawValue, name]
    if let listed, let done { parts.append("\(done)/\(listed) objects") }
    if let bytes, let total { parts.append("\(Format.size(bytes))/\(Format.size(total))") }
    if let rate { parts.append("\(Format.size(rate))/s") }
    switch status {
    case .running: parts.append("running")
    case .done(let text): parts.append("done: " + text)
    case .failed(let text): parts.append("failed: " + text)
    case .cancelled: parts.append("cancelled")
    }
    return parts.joined(separator: " · ")
  }
}

extension State {
  /// The transfers still running.
  package var runningTransfers: Int { transfers.filter(\.running).count }

  /// Whether `id` is a transfer cancelled with `x` (what it still sends is dropped).
  func cancelled(_ id: Int) -> Bool {
    transfers.contains { $0.id == id && $0.status == .cancelled }
  }

  /// Records a transfer started with request `id`.
  mutating func began(_ id: Int, _ kind: Transfer.Kind, _ name: String) {
    transfers.append(Transfer(id: id, kind: kind, name: name))
  }

  /// Changes the running transfer `id` (one cancelled or ended is left as it is).
  mutating func transfer(_ id: Int, _ change: (inout Transfer) -> Void) {
    guard let index = transfers.firstIndex(where: { $0.id == id && $0.running }) else { return }
    change(&transfers[index])
  }

  /// `u`: the prompt for a local path to upload into the folder shown.
  mutating func askUpload() {
    guard case .folder = location else {
      message = "open a bucket or folder to upload into"
      return
    }
    message = nil
    mode = .upload(LineEditor(""))
  }

  /// Enter in the upload prompt: uploads `path` (a file, or a folder under its own name) into
  /// the folder shown.
  mutating func upload(_ path: String) -> [Effect] {
    guard case .folder(let bucket, let prefix) = location else { return [] }
    guard !path.isEmpty else {
      message = "nothing uploaded: no path given"
      return []
    }
    let name = String(KeySegments.lastSegment(of: KeySegments.droppingTrailingSlashes(path)))
    guard !name.isEmpty, name != ".", name != ".." else {
      message = "nothing uploaded: name the file or folder (not ., .. or /)"
      return []
    }
    // `-` is a file of that name here, never stdin (put's `-`): the terminal is the browser's.
    let source = path == "-" ? "./-" : path
    return startUpload(
      bucket: bucket, plan: .path(source, folder: prefix), name: name, replace: false)
  }

  private mutating func startUpload(bucket: String, plan: UploadPlan, name: String, replace: Bool)
    -> [Effect]
  {
    let id = newID()
    uploads[id] = bucket
    began(id, .upload, name)
    message = "uploading \(Format.name(name)) (t shows the transfers)"
    return [.upload(id: id, bucket: bucket, plan: plan, replace: replace)]
  }

  /// An upload's progress: the objects it uploaded appear in the folders shown.
  mutating func uploadProgress(id: Int, _ progress: UploadProgress) -> [Effect] {
    guard let bucket = uploads[id] else { return [] }
    transfer(id) {
      $0.done = progress.done
      $0.listed = progress.listed
      $0.bytes = progress.bytes
      $0.total = progress.total
      $0.seconds = progress.seconds
    }
    guard !progress.uploaded.isEmpty else { return [] }
    return apply(.added(progress.uploaded), bucket: bucket)
  }

  /// An upload's end: said on the status line; keys that exist ask whether to replace them.
  mutating func uploadFinished(id: Int, _ summary: UploadSummary) {
    guard let bucket = uploads.removeValue(forKey: id),
      let name = transfers.first(where: { $0.id == id })?.name
    else { return }
    var text =
      "uploaded \(Format.name(name)): \(Format.count(summary.uploaded, "object", "objects"))"
    if !summary.existing.isEmpty { text += ", \(Format.count(summary.existing.count)) exist" }
    if summary.failed > 0 { text += ", \(Format.count(summary.failed)) failed" }
    if let first = summary.firstFailure { text += "; " + first }
    if let first = summary.firstSkip {
      text += "; \(Format.count(summary.skipped)) skipped: " + first
    }
    let failed = summary.failed > 0 && summary.uploaded == 0 && summary.existing.isEmpty
    transfer(id) { $0.status = failed ? .failed(text) : .done(text) }
    message = text
    guard !summary.existing.isEmpty else { return }
    let replacing = Replacement(bucket: bucket, name: name, files: summary.existing)
    if mode == .normal && pager == nil {
      mode = .confirm(.replaceUploads(replacing))
    } else {
      message = text + " (not replaced)"
    }
  }

  /// `y` to "replace N existing objects?": those files sent again, replacing.
  mutating func replaceUploads(_ replacing: Replacement) -> [Effect] {
    startUpload(
      bucket: replacing.bucket, plan: .files(replacing.files), name: replacing.name, replace: true)
  }

  /// A key in the queue (`t`).
  mutating func transfersKey(_ key: Key) -> [Effect] {
    switch key {
    case .down, .character("j"): transferCursor = min(transferCursor + 1, transfers.count - 1)
    case .up, .character("k"): transferCursor = max(0, transferCursor - 1)
    case .character("q"), .escape, .left, .character("h"), .character("t"): mode = .normal
    case .character("x"):
      guard transfers.indices.contains(transferCursor) else { return [] }
      return cancelTransfer(transfers[transferCursor].id)
    default: break
    }
    return []
  }

  /// `x`: stops a running transfer; what it already did stays (each object whole), its end is
  /// no longer awaited.
  mutating func cancelTransfer(_ id: Int) -> [Effect] {
    guard let index = transfers.firstIndex(where: { $0.id == id }), transfers[index].running
    else { return [] }
    transfers[index].status = .cancelled
    uploads[id] = nil
    writes[id] = nil
    if treeDownload?.id == id { treeDownload = nil }
    if transfers[index].kind == .download { download = nil }
    message = "cancelled \(transfers[index].kind.rawValue) of \(Format.name(transfers[index].name))"
    return [.cancel(id: id)]
  }

  /// `q`: quits, asking first while transfers run.
  mutating func quit() -> [Effect] {
    let running = runningTransfers
    guard running > 0 else { return [.quit(0)] }
    mode = .confirm(.quit(running: running))
    return []
  }
}

/// Files refused as existing, offered for replacing.
package struct Replacement: Sendable, Equatable {
  package var bucket: String
  /// The upload's name, not yet escaped.
  package var name: String
  package var files: [UploadFile]
}
