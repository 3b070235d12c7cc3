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

  /// The qetag of the file at `path`, read one block at a time.
  ///
  /// - Throws: `QETag.FileError` when the file cannot be opened or read.
  public static func hash(fileAt path: String) throws -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw FileError(path: path, reason: "cannot open the file")
    }
    defer { try? handle.close() }
    var digests = [[UInt8]]()
    var block = Data()
    block.reserveCapacity(blockSize)
    while true {
      let chunk: Data?
      do {
        chunk = try handle.read(upToCount: blockSize - block.count)
      } catch {
        throw FileError(path: path, reason: "\(error)")
      }
      guard let chunk, !chunk.isEmpty else { break }
      block.append(chunk)
      if block.count == blockSize {
        digests.append(block.withUnsafeBytes { Digest.sha1($0) })
        block.removeAll(keepingCapacity: true)
      }
    }
    if !block.isEmpty || digests.isEmpty {
      digests.append(block.withUnsafeBytes { Digest.sha1($0) })
    }
    return hash(blockDigests: digests)
  }
}
