import StorageCore

/// Content types of directory buckets' files: the one table (`ContentTypes`), else a fallback.
enum MimeTypes {
  /// The fallback for unknown extensions.
  static let fallback = "application/octet-stream"

  /// The content type for a key, from the extension of its last path segment (case-insensitive).
  static func forKey(_ key: String) -> String {
    ContentTypes.forName(KeySegments.lastSegment(of: key)) ?? fallback
  }
}
