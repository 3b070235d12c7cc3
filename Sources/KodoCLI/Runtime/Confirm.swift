import ArgumentParser
import StorageCore
import SystemPackage

/// Asking the user before a change that cannot be undone (`rm` of several keys, `rm -r`; later
/// `mv -r`, `sync --delete`): the one place that decides whether there is a terminal to ask on,
/// writes the question on stderr and reads the answer from stdin.
///
/// There is a terminal when both stdin and stderr are one (and stdin does not carry the
/// command's own input, as with `--stdin`). Without one the command is refused (exit 64) unless
/// the user said `--yes`.
enum Confirm {
  /// What the user must answer.
  enum Answer: Sendable, Equatable {
    /// `y` or `yes` (any case).
    case yes
    /// Exactly this text (a bucket's name, for a whole bucket).
    case typing(String)
  }

  /// Whether a question can be asked: stdin and stderr are terminals, and stdin is free.
  static func hasTerminal(stdinIsInput: Bool = false) -> Bool {
    let runtime = Runtime.current
    return !stdinIsInput && runtime.diagnosticsSink == nil
      && Runtime.isTerminal(runtime.standardInput) && Runtime.isTerminal(runtime.standardError)
  }

  /// Throws the usage error (64) for `refusal` when there is no terminal to ask on.
  static func requireTerminal(_ refusal: DisplayText, stdinIsInput: Bool = false) throws {
    guard !hasTerminal(stdinIsInput: stdinIsInput) else { return }
    throw ValidationError(
      "\(refusal.text) needs confirmation and there is no terminal to ask on: add --yes")
  }

  /// Asks `question` on the terminal and answers whether the user agreed; a usage error (64)
  /// naming `--yes` when there is no terminal to ask on.
  static func ask(
    _ question: DisplayText, answer: Answer, refusal: DisplayText, stdinIsInput: Bool = false
  ) throws -> Bool {
    try requireTerminal(refusal, stdinIsInput: stdinIsInput)
    let prompt: DisplayText
    switch answer {
    case .yes: prompt = "kodo: " + question + " [y/N] "
    case .typing(let text):
      prompt = "kodo: " + question + " Type " + DisplayText(quoting: text) + " to confirm: "
    }
    Diagnostics.progress(prompt)
    let reply = readLine(from: Runtime.current.standardInput)
    switch answer {
    case .yes:
      let word = reply.lowercased()
      return word == "y" || word == "yes"
    case .typing(let text):
      return reply.utf8.elementsEqual(text.utf8)
    }
  }

  /// One line from `descriptor`, without its newline and surrounding blanks; at most 4 KiB
  /// is kept, end of input or an error is an empty answer.
  private static func readLine(from descriptor: Int32) -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = try? withUnsafeMutableBytes(of: &byte) {
        try FileDescriptor(rawValue: descriptor).read(into: $0)
      }
      guard let count, count == 1, byte != UInt8(ascii: "\n") else { break }
      if bytes.count < 4_096 { bytes.append(byte) }
    }
    let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    let trimmed = bytes.drop(while: blank).reversed().drop(while: blank).reversed()
    return String(decoding: trimmed, as: UTF8.self)
  }
}
