import Foundation
import KodoTestSupport
import Testing

/// The contract's shape of a failure: the exit code, exactly one `kodo: error: …` line on stderr,
/// nothing that looks like a crash, and no raw control characters on stderr.
func expectFailure(
  _ result: CLIRunner.Result, status: Int32, containing text: String? = nil,
  stdoutEmpty: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
  let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
  #expect(
    lines.filter { $0.hasPrefix("kodo: error: ") }.count == 1, "\(result)",
    sourceLocation: sourceLocation)
  expectNoCrash(result, sourceLocation: sourceLocation)
  expectNoRawControlCharacters(stderrOf: result, sourceLocation: sourceLocation)
  if let text {
    #expect(result.stderr.contains(text), "\(result)", sourceLocation: sourceLocation)
  }
  if stdoutEmpty {
    #expect(result.stdoutBytes.isEmpty, "\(result)", sourceLocation: sourceLocation)
  }
}

/// No signal death, no Swift runtime trap, no stack trace.
func expectNoCrash(_ result: CLIRunner.Result, sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(
    result.status < 128 || [130, 143].contains(result.status), sourceLocation: sourceLocation)
  for marker in ["Fatal error", "Stack dump", "Current stack trace", "Illegal instruction"] {
    #expect(!result.stderr.contains(marker), "\(result)", sourceLocation: sourceLocation)
  }
}

/// stderr has no control characters other than the line feeds ending its lines (C0, DEL, C1,
/// U+2028/9): nothing the server sent can move the cursor or forge a line.
func expectNoRawControlCharacters(
  stderrOf result: CLIRunner.Result, sourceLocation: SourceLocation = #_sourceLocation
) {
  let bad = unsafeScalars(in: result.stderr, allowing: ["\n"])
  #expect(bad.isEmpty, "raw control characters \(bad) in \(result)", sourceLocation: sourceLocation)
}

/// The control characters (C0 other than `allowing`, DEL, C1, U+2028, U+2029), bidirectional
/// controls and invisible characters in `text`.
func unsafeScalars(in text: String, allowing: Set<Unicode.Scalar> = []) -> [UInt32] {
  text.unicodeScalars.filter { scalar in
    let value = scalar.value
    guard !allowing.contains(scalar) else { return false }
    return value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || value == 0x2028
      || value == 0x2029 || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
      || [0x061C, 0x200B, 0x200E, 0x200F, 0x2060, 0xFEFF].contains(value)
  }.map(\.value)
}

/// The marker of the last `--marker TOKEN` on stderr.
func resumeMarker(in stderr: String) -> String? {
  guard let range = stderr.range(of: "--marker ", options: .backwards) else { return nil }
  let rest = stderr[range.upperBound...]
  let marker = rest.prefix { !$0.isWhitespace }
  return marker.isEmpty ? nil : String(marker)
}

/// The `key` of every JSON line of `result`, in order.
func jsonKeys(_ result: CLIRunner.Result, type: String = "object") throws -> [String] {
  try CLIEnvironment.jsonLines(result).filter { ($0["type"] as? String) == type }.map {
    try #require($0["key"] as? String)
  }
}

/// The keys a text `ls` printed, read against `keys`, the same listing in JSON: line *i* must end
/// with key *i* after two spaces, as it is or, when the renderer quotes it (a trailing space),
/// in quotes. `nil` when a line does not, or there are more lines than keys. (Keys may hold
/// spaces: a line cannot be split into columns.)
func textKeys(_ result: CLIRunner.Result, among keys: [String]) -> [String]? {
  let lines = result.lines
  guard lines.count <= keys.count else { return nil }
  for (line, key) in zip(lines, keys) {
    guard line.hasSuffix("  " + key) || line.hasSuffix("  \"" + key + "\"") else { return nil }
  }
  return Array(keys.prefix(lines.count))
}

/// Whether `keys` are strictly increasing in UTF-8 byte order (so also free of duplicates).
func strictlyIncreasingByBytes(_ keys: [String]) -> Bool {
  zip(keys, keys.dropFirst()).allSatisfy {
    Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
  }
}

/// A fresh, empty temporary directory.
func temporaryDirectory() throws -> String {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("kodo-dir-\(UUID())")
    .path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}
