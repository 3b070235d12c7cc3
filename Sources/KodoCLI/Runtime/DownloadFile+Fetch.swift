import StorageCore
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension DownloadFile {
  /// The smallest object `fetch` fetches as parallel ranges (when asked to).
  static let rangedThreshold: Int64 = 64 << 20
  /// The size of each range of a parallel download.
  static let rangeSize: Int64 = 16 << 20

  /// The safe download of `get`, `get -r` and the browser: `request`'s object into a new
  /// temporary file next to `destination`, its hash compared with `check`'s, then moved into
  /// place (over a file there only when `replacing`). `progress` may start a task that watches
  /// the temporary file's descriptor; it is cancelled when the download ends. With `parent`,
  /// the file is made in that directory descriptor under `destination`'s last component.
  /// With `ranges` above 1, an object of at least ``rangedThreshold`` bytes is fetched as
  /// ranges of ``rangeSize``, that many at once, each written in place (the transfer engine's
  /// ``RangedDownload``); the whole file is checked all the same.
  ///
  /// - Returns: The hash computed (`nil` without a check).
  static func fetch(
    _ request: DownloadRequest, from provider: any StorageProvider, to destination: FilePath,
    in parent: Int32? = nil, check: IntegrityCheck?, replacing: Bool,
    mismatch: (_ check: IntegrityCheck, _ digest: String) -> StorageError,
    progress: ((_ descriptor: Int32) -> Task<Void, Never>)? = nil, ranges: Int = 1
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
    if ranges > 1, request.range == nil, let size = request.expectedSize, size >= rangedThreshold {
      let engine = RangedDownload(
        options: RangedDownload.Options(rangeSize: rangeSize, parallel: ranges))
      _ = try await engine.run(ObjectIdentity(size: size), inPlace: file.descriptor.rawValue) {
        range, descriptor async throws(StorageError) in
        var part = request
        part.expectedSize = Int64(range.count)
        part.range = range.lowerBound...(range.upperBound - 1)
        _ = try await provider.download(part, to: descriptor)
      }
    } else {
      _ = try await provider.download(request, to: file.descriptor.rawValue)
    }
    // The file itself, not a count of what streamed, must be the object's length.
    try file.finish(size: request.expectedSize)
    let digest = try check.map { check throws(StorageError) in
      // Read back through the open descriptor, never through the directory.
      try check.compute(file.descriptor.rawValue)
    }
    if let check, let digest, digest != check.expected { throw mismatch(check, digest) }
    try file.commit(replacing: replacing)
    committed = true
    return digest
  }

  /// How many bytes of a download are in the file open at `descriptor`: its offset for one
  /// stream, its allocated blocks (capped at its size) for ranges written in place.
  static func bytesHeld(_ descriptor: Int32) -> Int64 {
    var status = stat()
    let position = Int64(lseek(descriptor, 0, SEEK_CUR))
    guard fstat(descriptor, &status) == 0 else { return position }
    return max(position, min(Int64(status.st_blocks) * 512, Int64(status.st_size)))
  }
}
