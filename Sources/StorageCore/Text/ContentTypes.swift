/// Content types by file extension: `put`'s default `--mime` and the type the emulator gives a
/// directory bucket's files. One table, so an object uploaded and the same file served agree.
package enum ContentTypes {
  private static let table: [String: String] = [
    "txt": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
    "json": "application/json", "xml": "application/xml", "html": "text/html",
    "htm": "text/html", "css": "text/css", "js": "application/javascript",
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
    "webp": "image/webp", "svg": "image/svg+xml", "pdf": "application/pdf",
    "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
    "tar": "application/x-tar", "mp4": "video/mp4", "mp3": "audio/mpeg",
  ]

  /// The type for a file name's extension (case-insensitive), or `nil` when unknown or there
  /// is none (a name that only starts with a dot has none).
  package static func forName(_ name: some StringProtocol) -> String? {
    guard let (stem, suffix) = WireText.cutAtLast(Substring(name), at: "."), !stem.isEmpty else {
      return nil
    }
    return table[WireText.asciiLowercased(suffix)]
  }
}
