import Foundation
import StorageCore
import SystemPackage

/// Buffered writes of command output to a file descriptor, in large blocks (not a syscall per
/// line): human text as `DisplayText` only, machine formats (JSON Lines, NUL-separated keys) as
/// bytes their own writers escape.
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
    if buffer.count >= flushThreshold { try flush() }
  }

  /// Machine-format bytes (already escaped by their format's writer).
  func write(bytes: [UInt8]) throws(StorageError) {
    buffer.append(contentsOf: bytes)
    if buffer.count >= flushThreshold { try flush() }
  }

  /// Appends to the buffer through `body` (for renderers that write bytes directly).
  func append(_ body: (inout [UInt8]) throws(StorageError) -> Void) throws(StorageError) {
    try body(&buffer)
    if buffer.count >= flushThreshold { try flush() }
  }

  func flush() throws(StorageError) {
    defer { buffer.removeAll(keepingCapacity: true) }
    guard let code = FileDescriptorWriter.writeAll(buffer, to: fileDescriptor) else { return }
    if code == EPIPE { throw StorageError(.outputClosed, "output closed") }
    throw StorageError(.localIO, "cannot write output: \(Errno(rawValue: code))")
  }
}

@available(*, unavailable)
extension OutputStream: Sendable {}

/// ANSI colour, on only for terminals and when `NO_COLOR` is unset and `TERM` is not `dumb`.
struct Palette: Sendable {
  let enabled: Bool

  init(terminal: Bool, environment: [String: String]) {
    enabled = terminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
  }

  func folder(_ text: DisplayText) -> DisplayText { enabled ? text.styled("1;34") : text }
  func bold(_ text: DisplayText) -> DisplayText { enabled ? text.styled("1") : text }
}
