import Foundation
import Logging
import StorageCore
import SystemPackage

/// The one way diagnostics leave a command: `kodo: error: …`, `kodo: warning: …`, `kodo: …`.
///
/// Everything goes through a swift-log `Logger` whose handler writes one line at a time to the
/// runtime's stderr, or hands it to the runtime's sink when a full-screen browser owns the
/// terminal. Only `DisplayText` is accepted, so nothing untrusted reaches stderr unescaped.
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
    let logger = Logger(label: "kodo") { label in
      DiagnosticsLogHandler(runtime: runtime, level: level, message: message)
    }
    switch level {
    case .error: logger.error("\(message.text)")
    case .warning: logger.warning("\(message.text)")
    case .note: logger.notice("\(message.text)")
    }
  }
}

/// Writes a diagnostic as one `kodo: …` line, or hands it to the runtime's sink.
///
/// The handler carries the `DisplayText` it was made for: swift-log's message type is a plain
/// string, and the line written is always the escaped text, never a string from elsewhere.
private struct DiagnosticsLogHandler: LogHandler {
  let runtime: Runtime
  let level: DiagnosticLevel
  let message: DisplayText
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
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
