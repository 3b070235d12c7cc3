import Foundation
import StorageCore
import Synchronization
import SystemPackage

/// One upload's checkpoint file while the upload runs: the first save writes the whole
/// checkpoint as a new file (`UploadCheckpoints.create`) and keeps it open; each later save
/// appends a line for each part done since, so a save costs the parts it adds, not all the
/// parts done (an upload of 10,000 parts writes 10,000 lines, not 50 million receipts).
///
/// A checkpoint of another session, part size or source starts a new file. A failure is a
/// warning, said once: the upload goes on, and the next save starts a new file.
final class CheckpointJournal: Sendable {
  private struct State {
    var descriptor: Int32 = -1
    /// The checkpoint the file was made for, without its parts.
    var made: UploadCheckpoint?
    /// The numbers of the parts in the file.
    var parts: Set<Int> = []
    var warned = false
  }

  private let store: UploadCheckpoints
  private let key: UploadCheckpoints.Key
  private let state = Mutex(State())

  init(_ store: UploadCheckpoints, for key: UploadCheckpoints.Key) {
    self.store = store
    self.key = key
  }

  deinit {
    close()
  }

  /// Records `checkpoint`, the upload as it stands.
  func save(_ checkpoint: UploadCheckpoint) {
    var bare = checkpoint
    bare.parts = []
    state.withLock { state in
      do throws(StorageError) {
        if state.descriptor >= 0, state.made == bare {
          try append(checkpoint.parts.filter { !state.parts.contains($0.number) }, &state)
        } else {
          Self.shut(&state)
          state.descriptor = try store.create(checkpoint, for: key)
          state.made = bare
          state.parts = Set(checkpoint.parts.map(\.number))
        }
      } catch {
        Self.shut(&state)
        if !state.warned {
          Diagnostics.warning("cannot save the upload's checkpoint: \(error.message)")
          state.warned = true
        }
      }
    }
  }

  /// Closes the file (it stays where it is; `UploadCheckpoints.remove` removes it).
  func close() {
    state.withLock { Self.shut(&$0) }
  }

  private func append(_ parts: [PartReceipt], _ state: inout State) throws(StorageError) {
    guard !parts.isEmpty else { return }
    let encoder = JSONEncoder()
    var lines: [UInt8] = []
    for part in parts {
      guard let line = try? encoder.encode(part) else {
        throw StorageError(.localIO, "cannot encode the checkpoint")
      }
      lines += line
      lines.append(UInt8(ascii: "\n"))
    }
    if let code = FileDescriptorWriter.writeAll(lines, to: state.descriptor) {
      throw StorageError(.localIO, "cannot write the checkpoint: \(Errno(rawValue: code))")
    }
    state.parts.formUnion(parts.lazy.map(\.number))
  }

  private static func shut(_ state: inout State) {
    if state.descriptor >= 0 { try? FileDescriptor(rawValue: state.descriptor).close() }
    state.descriptor = -1
    state.made = nil
    state.parts = []
  }
}
