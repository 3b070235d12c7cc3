import StorageCore
import SystemPackage

extension DownloadFile {
  /// The safe download of `get`, `get -r` and the browser: `request`'s object into a new
  /// temporary file next to `destination`, its hash compared with `check`'s, then moved into
  /// place (over a file there only when `replacing`). `progress` may start a task that watches
  /// the temporary file's descriptor; it is cancelled when the download ends. With `parent`,
  /// the file is made in that directory descriptor under `destination`'s last component.
  ///
  /// - Returns: The hash computed (`nil` without a check).
  static func fetch(
    _ request: DownloadRequest, from provider: any StorageProvider, to destination: FilePath,
    in parent: Int32? = nil, check: IntegrityCheck?, replacing: Bool,
    mismatch: (_ check: IntegrityCheck, _ digest: String) -> StorageError,
    progress: ((_ descriptor: Int32) -> Task<Void, Never>)? = nil
  ) async throws(StorageError) -> String? {
    let file: DownloadFile
    if let parent {
      file = try DownloadFile.create(in: parent, for: destination)
    } else {
      file = try DownloadFile.create(for: destination)
    }
    var committed = false
    defer { file.close(committed: committed) }
    let watcher = progress?(file.descriptor.rawValue)
    defer { watcher?.cancel() }
    _ = try await provider.download(request, to: file.descriptor.rawValue)
    // The file itself, not a count of what streamed, must be the object's length.
    try file.finish(size: request.expectedSize)
    let digest = try check.map { check throws(StorageError) in
      // Read back through the open descriptor, never through the directory.
      try check.compute(file.readablePath)
    }
    if let check, let digest, digest != check.expected { throw mismatch(check, digest) }
    try file.commit(replacing: replacing)
    committed = true
    return digest
  }
}
