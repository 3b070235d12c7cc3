import StorageCore

/// Content types by file extension, for directory buckets.
enum MimeTypes {
  /// The fallback for unknown extensions.
  static let fallback = "application/octet-stream"

  private static let table: [String: String] = [
    "txt": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
    "json": "application/json", "xml": "application/xml", "html": "text/html",
    "htm": "text/html", "css": "text/css", "js": "application/javascript",
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
    "webp": "image/webp", "svg": "image/svg+xml", "pdf": "application/pdf",
    "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
    "tar": "application/x-tar", "mp4": "video/mp4", "mp3": "audio/mpeg",
  ]

  /// The content type for a key, from the extension of its last path segment (case-insensitive).
  static func forKey(_ key: String) -> String {
    let name = KeySegments.lastSegment(of: key)
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
    let ext = name[name.index(after: dot)...].lowercased()
    return table[ext] ?? fallback
  }
}
