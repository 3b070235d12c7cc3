import Foundation
import StorageCore

/// Kodo's content hash ("qetag"), the `hash` of every object.
///
/// The content is cut into 4 MiB blocks. One block (or none, for empty content): the tag is
/// `0x16` followed by the block's SHA-1. More blocks: `0x96` followed by the SHA-1 of the
/// concatenated block SHA-1s. The 21 bytes are written in URL-safe base64 with padding, 28
/// characters (`Fto5o-5ea0sNMlW_75VgGJCv2AcJ` for empty content).
public enum QETag {
  /// The block size: 4 MiB.
  public static let blockSize = 4 * 1024 * 1024

  /// Why a file's qetag could not be computed.
  public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's path.
    public var path: String
    /// What went wrong.
    public var reason: String

    /// `cannot hash PATH: REASON`.
    public var description: String { "cannot hash \(path): \(reason)" }
  }

  /// The qetag of `data`.
  public static func hash(of data: [UInt8]) -> String {
    data.withUnsafeBytes { hash(of: $0) }
  }

  /// The qetag of the bytes in `data`.
  public static func hash(of data: UnsafeRawBufferPointer) -> String {
    if data.count <= blockSize {
      return hash(blockDigests: [Digest.sha1(data)])
    }
    var digests = [[UInt8]]()
    digests.reserveCapacity((data.count + blockSize - 1) / blockSize)
    var start = 0
    while start < data.count {
      let end = min(start + blockSize, data.count)
      digests.append(Digest.sha1(UnsafeRawBufferPointer(rebasing: data[start..<end])))
      start = end
    }
    return hash(blockDigests: digests)
  }

  /// The qetag from the SHA-1 digests of the content's 4 MiB blocks, in order.
  ///
  /// For callers that produce content block by block. No digests means empty content.
  public static func hash(blockDigests: [[UInt8]]) -> String {
    if blockDigests.isEmpty {
      return hash(blockDigests: [Digest.sha1([UInt8]())])
    }
    if blockDigests.count == 1 {
      return URLSafeBase64.encode([0x16] + blockDigests[0])
    }
    return URLSafeBase64.encode([0x96] + Digest.sha1(Array(blockDigests.joined())))
  }

  /// The qetag of the file at `path` (see `hash(file:)`).
  ///
  /// - Throws: `QETag.FileError` when the file cannot be opened or read.
  public static func hash(fileAt path: String) throws -> String {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw FileError(
        path: path, reason: "cannot open the file: \(String(cString: strerror(errno)))")
    }
    defer { _ = close(descriptor) }
    do {
      return try hash(file: descriptor)
    } catch {
      throw FileError(path: path, reason: error.reason)
    }
  }

  /// The qetag of the open file `descriptor`, read from its start with positional reads (its
  /// offset is not moved) one block at a time into one buffer: the file's size when under a
  /// block (`sync` and `get -r` hash thousands of small files), else a block.
  ///
  /// - Throws: `QETag.FileError` (without a path) when the file cannot be read.
  public static func hash(file descriptor: Int32) throws(FileError) -> String {
    var status = stat()
    let size = fstat(descriptor, &status) == 0 ? Int(status.st_size) : blockSize
    // One byte more than the size, so that a file that grew since is read on, not cut.
    var buffer = [UInt8](repeating: 0, count: max(1, min(blockSize, size + 1)))
    var offset: Int64 = 0
    var filled = 0
    var digests = [[UInt8]]()
    while true {
      let (count, failure) = buffer.withUnsafeMutableBytes {
        PositionalFile.read(
          descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]), at: offset)
      }
      if let failure {
        throw FileError(path: "", reason: String(cString: strerror(failure)))
      }
      offset += Int64(count)
      filled += count
      // A buffer not filled: the file ended.
      if filled < buffer.count { break }
      if filled == blockSize {
        digests.append(buffer.withUnsafeBytes { Digest.sha1($0) })
        filled = 0
      } else {
        // The file grew past the size it had: read on in blocks.
        buffer += [UInt8](repeating: 0, count: blockSize - buffer.count)
      }
    }
    if filled > 0 || digests.isEmpty {
      digests.append(
        buffer.withUnsafeBytes { Digest.sha1(UnsafeRawBufferPointer(rebasing: $0[..<filled])) })
    }
    return hash(blockDigests: digests)
  }
}
