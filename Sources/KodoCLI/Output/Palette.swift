import StorageCore

/// ANSI colour, on only for terminals and when `NO_COLOR` is unset and `TERM` is not `dumb`.
struct Palette: Sendable {
  let enabled: Bool

  init(terminal: Bool, environment: [String: String]) {
    enabled = terminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
  }

  func bold(_ text: DisplayText) -> DisplayText { enabled ? text.styled("1") : text }

  /// Appends a folder's name (`TerminalText.append(name:)`), in the folder colour.
  func appendFolder(name: Substring, to text: inout TerminalText) {
    if enabled { text.appendLiteral("\u{1B}[1;34m") }
    text.append(name: name)
    if enabled { text.appendLiteral("\u{1B}[0m") }
  }
}
