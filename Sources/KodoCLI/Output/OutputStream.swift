import Foundation
import StorageCore
import SystemPackage

/// Buffered writes of command output to a file descriptor, in large blocks (not a syscall per
/// line).
///
/// Human text goes in only as `DisplayText` or `TerminalText`, which only the escaper and the
/// program's own literals make; the machine formats have writers of their own: JSON Lines
/// (`JSONLine`, which escapes) and NUL-separated keys (`-0`, exact by design). There is no way to
/// write other bytes.
///
/// A closed reader (EPIPE) becomes `StorageError(.outputClosed)`, which the command treats as a
/// quiet, successful end. Used from one task at a time.
final class OutputStream {
  let fileDescriptor: Int32
  private var buffer: [UInt8] = []
  private let flushThreshold: Int

  init(fileDescriptor: Int32, flushThreshold: Int = 64 * 1024) {
    self.fileDescriptor = fileDescriptor
    self.flushThreshold = flushThreshold
    buffer.reserveCapacity(flushThreshold + 4096)
  }

  /// The runtime's stdout.
  static func standardOutput() -> OutputStream {
    OutputStream(fileDescriptor: Runtime.current.standardOutput)
  }

  /// Whether the descriptor is a terminal.
  lazy var isTerminal: Bool = Runtime.isTerminal(fileDescriptor)

  /// Human text and a newline.
  func line(_ text: DisplayText) throws(StorageError) {
    buffer.append(contentsOf: text.text.utf8)
    buffer.append(UInt8(ascii: "\n"))
    try flushIfFull()
  }

  /// Human text built by `body` (renderers that write many rows).
  func text(_ body: (inout TerminalText) -> Void) throws(StorageError) {
    TerminalText.append(to: &buffer, body)
    try flushIfFull()
  }

  /// Human text built earlier.
  func append(_ text: TerminalText) throws(StorageError) {
    buffer.append(contentsOf: text.bytes)
    try flushIfFull()
  }

  /// One JSON Lines line.
  func write(_ line: JSONLine) throws(StorageError) {
    var line = line
    buffer.append(contentsOf: line.finish())
    try flushIfFull()
  }

  /// JSON Lines lines built by `body` in place (`JSONLine.append(to:)`).
  func jsonLines(_ body: (inout JSONLines) -> Void) throws(StorageError) {
    JSONLines.append(to: &buffer, body)
    try flushIfFull()
  }

  /// Keys exactly as they are, each followed by a NUL (`-0`: for `xargs -0`, never a terminal's
  /// text), written by `body` in place (`NulRecords`).
  func nulSeparated(_ body: (inout NulRecords) -> Void) throws(StorageError) {
    NulRecords.append(to: &buffer, body)
    try flushIfFull()
  }

  private func flushIfFull() throws(StorageError) {
    if buffer.count >= flushThreshold { try flush() }
  }

  func flush() throws(StorageError) {
    defer { buffer.removeAll(keepingCapacity: true) }
    guard let code = FileDescriptorWriter.writeAll(buffer, to: fileDescriptor) else { return }
    throw Self.writeFailure(code)
  }

  /// Copies what a `HeldOutput` spilled to its file (human text that went through
  /// `TerminalText`) to the output, after what is buffered.
  func copy(from descriptor: FileDescriptor) throws(StorageError) {
    try flush()
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count: Int
      do {
        count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
      } catch {
        throw HeldOutput.ioError("read", (error as? Errno)?.rawValue ?? EIO)
      }
      if count == 0 { return }
      if let code = FileDescriptorWriter.writeAll(Array(chunk[..<count]), to: fileDescriptor) {
        throw Self.writeFailure(code)
      }
    }
  }

  private static func writeFailure(_ code: Int32) -> StorageError {
    if code == EPIPE { return StorageError(.outputClosed, "output closed") }
    return StorageError(.localIO, "cannot write output: \(Errno(rawValue: code))")
  }
}

@available(*, unavailable)
extension OutputStream: Sendable {}
