import StorageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An open directory: the root of a directory bucket, through which every path inside it is
/// resolved one component at a time, never following a symbolic link.
///
/// `open(path, O_NOFOLLOW)` protects only the last component: a middle folder swapped for a link
/// after the scan would lead outside the bucket. Here each folder is opened with `openat`
/// relative to the one before, with `O_NOFOLLOW | O_DIRECTORY`, starting from the descriptor
/// taken at start-up, so a link anywhere on the way fails the lookup.
final class DirectoryHandle: Sendable {
  /// The descriptor, open for the handle's life.
  let descriptor: Int32

  /// Opens `path` as a directory (the bucket's root, named by the user: links to it are fine).
  init?(path: String) {
    let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    self.descriptor = descriptor
  }

  /// Takes ownership of an open directory descriptor.
  init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit {
    close(descriptor)
  }

  /// Whether `component` can name an entry in a folder: not empty, not `.` or `..`, no `/` or
  /// NUL, at most 255 bytes.
  static func isPlainName(_ component: String) -> Bool {
    let bytes = component.utf8
    guard !bytes.isEmpty, bytes.count <= 255, component != ".", component != ".." else {
      return false
    }
    return !bytes.contains(0x2F) && !bytes.contains(0)
  }

  /// The components of a key, when every one of them is a plain name (no empty component, so no
  /// leading, trailing or doubled `/`); `nil` otherwise.
  static func components(ofKey key: [UInt8]) -> [String]? {
    guard let text = String(validating: key, as: UTF8.self) else { return nil }
    var parts = [String]()
    for part in text.utf8.split(separator: 0x2F, omittingEmptySubsequences: false) {
      let name = String(decoding: part, as: UTF8.self)
      guard isPlainName(name) else { return nil }
      parts.append(name)
    }
    return parts.isEmpty ? nil : parts
  }

  /// Opens the folder `components` names below the root, one link-free step at a time; the
  /// caller closes the descriptor. `nil` when a component is missing, a link or not a folder.
  func openFolder(_ components: some Collection<String>) -> Int32? {
    var current = Descriptors.duplicate(descriptor)
    guard current >= 0 else { return nil }
    for component in components {
      guard Self.isPlainName(component) else {
        close(current)
        return nil
      }
      let next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      close(current)
      guard next >= 0 else { return nil }
      current = next
    }
    return current
  }

  /// Opens the regular file at `components` (at least one) below the root for reading, without
  /// following a link anywhere and without blocking on a FIFO or device; the caller closes the
  /// descriptor. `nil` when it cannot be opened so.
  func openFileForReading(_ components: [String]) -> Int32? {
    guard let name = components.last, Self.isPlainName(name),
      let folder = openFolder(components.dropLast())
    else { return nil }
    defer { close(folder) }
    let file = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    return file >= 0 ? file : nil
  }
}
