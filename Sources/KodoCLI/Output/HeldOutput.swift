import Foundation
import StorageCore
import SystemPackage

/// Output held back to be written later, in bounded memory: up to `memoryLimit` bytes in memory,
/// the rest in an anonymous temporary file (made with `mkstemp`, unlinked at once, so no other
/// process can reach it and nothing is left behind).
///
/// The human view of a one-level listing shows every folder before any object: folders are
/// written as their pages arrive, objects are held here until the level is complete.
///
/// Only human text is held (`TerminalText`), so what comes back out went through the escaper.
final class HeldOutput {
  private var memory = TerminalText()
  private var spill: Int32 = -1
  private let memoryLimit: Int
  private let directory: String

  init(memoryLimit: Int = 8 << 20, directory: String) {
    self.memoryLimit = memoryLimit
    self.directory = directory
  }

  deinit {
    if spill >= 0 { close(spill) }
  }

  /// Holds bytes.
  func hold(_ body: (inout TerminalText) -> Void) throws(StorageError) {
    body(&memory)
    if memory.bytes.count >= memoryLimit { try spillMemory() }
  }

  /// Writes everything held to `output`, in order.
  func release(to output: OutputStream) throws(StorageError) {
    if spill >= 0 {
      try spillMemory()
      let file = FileDescriptor(rawValue: spill)
      do {
        _ = try file.seek(offset: 0, from: .start)
      } catch {
        throw Self.ioError("read", (error as? Errno)?.rawValue ?? EIO)
      }
      try output.copy(from: file)
      close(spill)
      spill = -1
    } else {
      try output.append(memory)
      memory.removeAll()
    }
  }

  private func spillMemory() throws(StorageError) {
    if spill < 0 {
      var template = Array((directory + "/kodo-ls-XXXXXX").utf8CString)
      let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
        guard let base = buffer.baseAddress else { return -1 }
        let descriptor = Descriptors.temporaryFile(base)
        if descriptor >= 0 { unlink(base) }
        return descriptor
      }
      guard descriptor >= 0 else { throw Self.ioError("create", errno) }
      spill = descriptor
    }
    if let code = FileDescriptorWriter.writeAll(memory.bytes, to: spill) {
      throw Self.ioError("write", code)
    }
    memory.removeAll()
  }

  static func ioError(_ action: String, _ code: Int32) -> StorageError {
    StorageError(
      .localIO,
      "cannot \(action) the temporary file that holds the listing's objects: \(Errno(rawValue: code))"
    )
  }
}

@available(*, unavailable)
extension HeldOutput: Sendable {}
