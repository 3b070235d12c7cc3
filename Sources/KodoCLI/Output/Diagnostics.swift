import Foundation
import StorageCore
import SystemPackage

/// The one way diagnostics leave a command: `kodo: error: …`, `kodo: warning: …`, `kodo: …`.
///
/// Each diagnostic is one line written whole (one `write(2)` loop) to the runtime's stderr, or
/// handed to the runtime's sink when a full-screen browser owns the terminal. Only `DisplayText`
/// is accepted, so nothing untrusted reaches stderr unescaped. (swift-log was used here once; a
/// logger made per line to carry an escaped text was a detour, and nothing else logged.)
enum Diagnostics {
  /// `kodo: error: …` — the one error line.
  static func error(_ message: DisplayText) { log(.error, message) }

  /// `kodo: warning: …`.
  static func warning(_ message: DisplayText) { log(.warning, message) }

  /// `kodo: …` — notes such as resume markers.
  static func note(_ message: DisplayText) { log(.note, message) }

  /// Whether stderr is a terminal (progress lines are drawn only then).
  static var isTerminal: Bool {
    Runtime.current.diagnosticsSink == nil && Runtime.isTerminal(Runtime.current.standardError)
  }

  /// Writes progress without a newline (lines that redraw with `\r`); dropped when a sink owns
  /// the diagnostics.
  static func progress(_ text: DisplayText) {
    let runtime = Runtime.current
    guard runtime.diagnosticsSink == nil else { return }
    FileDescriptorWriter.writeAll(Array(text.text.utf8), to: runtime.standardError)
  }

  private static func log(_ level: DiagnosticLevel, _ message: DisplayText) {
    let runtime = Runtime.current
    if let sink = runtime.diagnosticsSink {
      sink(level, message)
      return
    }
    let prefix: String
    switch level {
    case .error: prefix = "kodo: error: "
    case .warning: prefix = "kodo: warning: "
    case .note: prefix = "kodo: "
    }
    FileDescriptorWriter.writeAll(
      Array((prefix + message.text + "\n").utf8), to: runtime.standardError)
  }
}

/// `write(2)` until every byte is written (swift-system's `writeAll`, which retries interrupted
/// and short writes).
enum FileDescriptorWriter {
  /// Writes `bytes`; returns the `errno` of a failure, or `nil`.
  @discardableResult
  static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
    do {
      _ = try FileDescriptor(rawValue: descriptor).writeAll(bytes)
      return nil
    } catch {
      return (error as? Errno)?.rawValue ?? EIO
    }
  }
}
