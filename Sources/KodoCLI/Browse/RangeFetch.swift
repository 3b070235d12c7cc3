import Foundation
import KodoBrowse
import StorageCore

extension EffectRunner {
  /// The bytes of `range` of an object (the pager's, at most 64 KiB), through the provider's
  /// ranged download like any other: into an anonymous temporary file (`tmpfile`, already
  /// unlinked, so nothing is left behind), then read back, at most the range's length.
  func fetchRange(bucket: String, key: String, range: ClosedRange<Int64>) async throws(StorageError)
    -> [UInt8]
  {
    let count = Int(range.count)
    guard count <= 1 << 20 else {
      throw StorageError(.invalidInput, "a preview range of \(count) bytes is too large")
    }
    guard let file = tmpfile() else {
      throw StorageError(
        .localIO, "cannot create a temporary file: \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    let descriptor = fileno(file)
    _ = try await provider.download(
      DownloadRequest(
        bucket: bucket, key: key, domain: domain(bucket), expectedSize: Int64(count), range: range),
      to: descriptor)
    var bytes = [UInt8](repeating: 0, count: count)
    // What was read before the end of the file or a failure: the pager shows that much.
    let done = bytes.withUnsafeMutableBytes {
      PositionalFile.read(descriptor, into: $0, at: 0).count
    }
    return Array(bytes[..<done])
  }
}
