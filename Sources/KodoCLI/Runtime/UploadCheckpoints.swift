import Foundation
import StorageCore
import SystemPackage

/// Where `put` keeps the checkpoints of interrupted multipart uploads: one file (0600) per
/// provider, bucket, key and source path under `$XDG_STATE_HOME/kodo/uploads/` (else
/// `~/.local/state/kodo/uploads/`), named by a digest of those. The checkpoint inside records the
/// source's size and modification time, so a changed file is recognised. Files are written only
/// as new temporary files (`O_CREAT|O_EXCL|O_NOFOLLOW`) renamed over the old one, then appended
/// to through the descriptor that made them (`CheckpointJournal`); directories are made 0700.
struct UploadCheckpoints: Sendable {
  /// What a checkpoint is for.
  struct Key: Sendable, Equatable {
    var provider: String
    var location: ObjectLocation
    var path: String

    /// The file name: a digest of the four, so that no name reaches the file system.
    var fileName: String {
      let text = [provider, location.bucket, location.key, path].joined(separator: "\0")
      return Hex.encode(Digest.sha256(Array(text.utf8))) + ".json"
    }
  }

  /// The file's content: the key spelled out (a digest collision is then harmless) and the
  /// checkpoint.
  private struct Record: Codable {
    var provider: String
    var bucket: String
    var key: String
    var path: String
    var checkpoint: UploadCheckpoint
  }

  /// The directory.
  let directory: String

  /// `$XDG_STATE_HOME/kodo/uploads`, else `$HOME/.local/state/kodo/uploads`; `nil` with neither.
  static func directory(_ environment: [String: String]) -> String? {
    if let state = environment["XDG_STATE_HOME"], !state.isEmpty {
      return state + "/kodo/uploads"
    }
    if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/kodo/uploads" }
    return nil
  }

  /// The saved checkpoint for `key`, or `nil` when there is none (or it cannot be read: the
  /// upload then starts afresh).
  ///
  /// The file's first line is the record, with the parts done when it was written; each further
  /// line is a part done since (`CheckpointJournal`). A line cut short (a process killed while
  /// it wrote) ends the reading: the parts after it are sent again.
  func load(_ key: Key) -> UploadCheckpoint? {
    let path = directory + "/" + key.fileName
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return nil }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    guard let data = try? handle.read(upToCount: Self.largestFile) else { return nil }
    var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    // The text after the last newline is a line only when nothing follows the record.
    if lines.count > 1 { lines.removeLast() }
    guard let first = lines.first,
      let record = try? JSONDecoder().decode(Record.self, from: first),
      record.provider == key.provider, record.bucket == key.location.bucket,
      record.key == key.location.key, record.path == key.path
    else { return nil }
    var parts = Dictionary(
      record.checkpoint.parts.map { ($0.number, $0) }, uniquingKeysWith: { $1 })
    let decoder = JSONDecoder()
    for line in lines.dropFirst() {
      guard let part = try? decoder.decode(PartReceipt.self, from: line) else { break }
      parts[part.number] = part
    }
    var checkpoint = record.checkpoint
    checkpoint.parts = parts.values.sorted { $0.number < $1.number }
    return checkpoint
  }

  /// The most of a checkpoint file that is read: 10,000 parts' lines fit many times over.
  static let largestFile = 1 << 24

  /// Writes `checkpoint` for `key` as a new file (a temporary file renamed over the old one) and
  /// returns it open for appending, or a failure (said as a warning by the caller).
  func create(_ checkpoint: UploadCheckpoint, for key: Key) throws(StorageError) -> Int32 {
    let record = Record(
      provider: key.provider, bucket: key.location.bucket, key: key.location.key, path: key.path,
      checkpoint: checkpoint)
    guard let data = try? JSONEncoder().encode(record) else {
      throw StorageError(.localIO, "cannot encode the checkpoint")
    }
    try makeDirectory()
    let final = directory + "/" + key.fileName
    let temporary = final + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
    let descriptor = open(
      temporary, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw failure("create \(temporary)") }
    if let code = FileDescriptorWriter.writeAll(
      [UInt8](data) + [UInt8(ascii: "\n")], to: descriptor)
    {
      _ = close(descriptor)
      _ = unlink(temporary)
      throw failure("write \(temporary)", code)
    }
    guard rename(temporary, final) == 0 else {
      let code = errno
      _ = close(descriptor)
      _ = unlink(temporary)
      throw failure("rename \(temporary)", code)
    }
    return descriptor
  }

  /// Removes the checkpoint for `key`, if any.
  func remove(_ key: Key) {
    _ = unlink(directory + "/" + key.fileName)
  }

  private func failure(_ what: String, _ code: Int32 = errno) -> StorageError {
    StorageError(.localIO, "cannot \(DisplayText(escaping: what)): \(Errno(rawValue: code))")
  }

  /// Makes the directory and its missing parents (0700).
  private func makeDirectory() throws(StorageError) {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw StorageError(
        .localIO, "cannot make \(DisplayText(quoting: directory)): \(error.localizedDescription)")
    }
  }
}
