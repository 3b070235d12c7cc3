import Foundation
import KodoCore
import StorageCore

/// Buffered writes to a file descriptor in large blocks (not a syscall per line).
///
/// A closed reader (EPIPE) becomes `StorageError(.outputClosed)`, which the command treats as a
/// quiet, successful end. Used from one task at a time.
final class OutputStream: @unchecked Sendable {
  let fileDescriptor: Int32
  private var buffer: [UInt8] = []
  private let flushThreshold: Int

  init(fileDescriptor: Int32, flushThreshold: Int = 64 * 1024) {
    self.fileDescriptor = fileDescriptor
    self.flushThreshold = flushThreshold
    buffer.reserveCapacity(flushThreshold + 4096)
  }

  /// Whether the descriptor is a terminal.
  lazy var isTerminal: Bool = isatty(fileDescriptor) == 1

  func write(_ text: String) throws(StorageError) {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= flushThreshold { try flush() }
  }

  func write(bytes: [UInt8]) throws(StorageError) {
    buffer.append(contentsOf: bytes)
    if buffer.count >= flushThreshold { try flush() }
  }

  /// Appends to the buffer through `body` (for builders that write bytes directly).
  func append(_ body: (inout [UInt8]) -> Void) throws(StorageError) {
    body(&buffer)
    if buffer.count >= flushThreshold { try flush() }
  }

  func flush() throws(StorageError) {
    var offset = 0
    let count = buffer.count
    defer { buffer.removeAll(keepingCapacity: true) }
    while offset < count {
      let written = buffer.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return Foundation.write(fileDescriptor, base + offset, count - offset)
      }
      if written < 0 {
        let code = errno
        if code == EINTR { continue }
        if code == EPIPE { throw StorageError(.outputClosed, "output closed") }
        throw StorageError(.localIO, "cannot write output: \(String(cString: strerror(code)))")
      }
      offset += written
    }
  }
}

/// stderr, written at once (diagnostics must not wait behind data).
enum Diagnostics {
  static let isTerminal = isatty(2) == 1

  static func write(_ text: String) {
    var bytes = Array(text.utf8)
    if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return Foundation.write(2, base + offset, bytes.count - offset)
      }
      if written < 0 {
        if errno == EINTR { continue }
        return
      }
      offset += written
    }
  }

  /// `kodo: error: …` — the one error line.
  static func error(_ message: String) { write("kodo: error: " + message) }

  /// `kodo: warning: …`.
  static func warning(_ message: String) { write("kodo: warning: " + message) }

  /// `kodo: …` — notes such as resume markers.
  static func note(_ message: String) { write("kodo: " + message) }

  /// Writes without a newline (progress lines that redraw with `\r`).
  static func raw(_ text: String) {
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { raw in
      if let base = raw.baseAddress { _ = Foundation.write(2, base, bytes.count) }
    }
  }
}

/// ANSI colour, on only for terminals and when `NO_COLOR` is unset.
struct Palette {
  let enabled: Bool

  init(terminal: Bool, environment: [String: String]) {
    enabled = terminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
  }

  func folder(_ text: String) -> String { enabled ? "\u{1B}[1;34m" + text + "\u{1B}[0m" : text }
  func dim(_ text: String) -> String { enabled ? "\u{1B}[2m" + text + "\u{1B}[0m" : text }
  func bold(_ text: String) -> String { enabled ? "\u{1B}[1m" + text + "\u{1B}[0m" : text }
}
