import Foundation
import KodoTestSupport

/// The README's shell code, as steps a test can run: emulators started as the README starts them,
/// `$ kodo …` sessions with the output the README shows, and plain blocks of commands.
struct ReadmeSessions {
  /// One fenced code block.
  struct Block {
    /// The fence's info string (`sh`, `python`, or empty).
    var language: String
    /// The lines between the fences, a line ending in `\` joined with the next.
    var lines: [String]
  }

  /// Something the README has the reader run.
  struct Step {
    enum Kind: Equatable {
      /// `kodo-emulator …`, left running; `expected` is what the README shows it printing.
      case emulator
      /// A command, expected to exit 0; `expected` is the output the README shows, if any.
      case command
    }
    var kind: Kind
    /// The line as the README writes it.
    var line: String
    /// The README's output for it (stdout and stderr together), or `nil` when it shows none.
    var expected: [String]?
    /// The group of commands that run in one shell (a code block).
    var group: Int
  }

  /// The fenced code blocks of `text`.
  static func blocks(_ text: String) -> [Block] {
    var blocks = [Block]()
    var current: Block?
    var pending = ""
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = String(rawLine)
      if line.hasPrefix("```") {
        if let block = current {
          blocks.append(block)
          current = nil
        } else {
          current = Block(language: String(line.dropFirst(3)), lines: [])
        }
        continue
      }
      guard current != nil else { continue }
      if line.hasSuffix("\\") {
        pending += line.dropLast() + " "
        continue
      }
      current?.lines.append(pending.isEmpty ? line : pending + line.drop { $0 == " " })
      pending = ""
    }
    return blocks
  }

  /// Lines that build, install or change the reader's machine rather than run against the demo.
  static func isSetUp(_ line: String) -> Bool {
    line.hasPrefix("make ") || line.hasPrefix("export PATH=") || line.hasPrefix("swift ")
      || line.contains("--generate-completion-script")
  }

  /// The steps of `blocks`, in order.
  static func steps(_ blocks: [Block]) -> [Step] {
    var steps = [Step]()
    for (index, block) in blocks.enumerated() {
      let lines = block.lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
      switch block.language {
      case "sh":
        for line in lines where !isSetUp(line) {
          if line.hasPrefix("kodo-emulator ") || line.hasPrefix(".build/debug/kodo-emulator ") {
            var printed: [String]?
            if index + 1 < blocks.count, blocks[index + 1].language.isEmpty,
              blocks[index + 1].lines.first?.hasPrefix("kodo-emulator listening on ") == true
            {
              printed = blocks[index + 1].lines.filter { !$0.isEmpty }
            }
            steps.append(Step(kind: .emulator, line: line, expected: printed, group: index))
          } else {
            steps.append(Step(kind: .command, line: line, expected: nil, group: index))
          }
        }
      case "" where lines.first?.hasPrefix("$ ") == true:
        for line in lines {
          if line.hasPrefix("$ kodo-emulator ") {
            // Started and left running; what follows is what it prints.
            steps.append(
              Step(kind: .emulator, line: String(line.dropFirst(2)), expected: [], group: index))
          } else if line.hasPrefix("$ ") {
            steps.append(
              Step(kind: .command, line: String(line.dropFirst(2)), expected: [], group: index))
          } else {
            steps[steps.count - 1].expected?.append(line)
          }
        }
      case "" where !lines.isEmpty && lines.allSatisfy({ $0.hasPrefix("kodo ") }):
        for line in lines {
          steps.append(Step(kind: .command, line: line, expected: nil, group: index))
        }
      default:
        break
      }
    }
    return steps
  }

  /// The emulator an `export …` line of the README stands for (its index among the emulator
  /// steps): the OSS one for `KODO_PROVIDER=oss`, else the first.
  static func emulator(for exportLine: String, among steps: [Step]) -> Int? {
    let emulators = steps.filter { $0.kind == .emulator }
    let wantsOSS = exportLine.contains("KODO_PROVIDER=oss")
    return emulators.firstIndex { $0.line.contains("--protocol oss") == wantsOSS }
  }

  /// One bash script that runs every step: the emulators from the repository's root (the
  /// README's relative paths), each block's commands in a subshell of their own in a new empty
  /// directory, with the first emulator's environment pasted first. Every step's output (stdout
  /// and stderr) ends with `\u{1E}` and its exit status on a line.
  static func script(_ steps: [Step], root: String) -> String {
    var script = """
      set -u -o pipefail
      exec 2>&1
      work="$(mktemp -d)"
      pids=()
      trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done; rm -rf "$work"' EXIT
      mark() { printf '\\036%d\\n' "$1"; }
      cd \(shellQuoted(root))

      """
    var emulatorIndex = 0
    var group: Int?
    for step in steps {
      if step.kind == .emulator {
        // From the root, not from a block's directory: out of the block's subshell.
        if group != nil { script += ")\n" }
        group = nil
        let out = "\"$work/emulator-\(emulatorIndex).out\""
        // The binary on PATH, the one the test was built with, wherever the build went.
        let command =
          step.line.hasPrefix(".build/debug/") ? String(step.line.dropFirst(13)) : step.line
        script += """
          \(command) >\(out) 2>&1 &
          pids+=($!)
          for _ in $(seq 1 1200); do grep -qs '^export ' \(out) && break; sleep 0.05; done
          cat \(out); grep -qs '^export ' \(out); mark $?

          """
        emulatorIndex += 1
        continue
      }
      if group != step.group {
        if group != nil { script += ")\n" }
        group = step.group
        script += """
          (
          mkdir "$work/block-\(step.group)" && cd "$work/block-\(step.group)"
          eval "$(grep -m1 '^export ' "$work/emulator-0.out")"

          """
      }
      if step.line.hasPrefix("export "), let index = emulator(for: step.line, among: steps) {
        // The reader pastes the line the emulator printed (its port is not the README's).
        script += "eval \"$(grep -m1 '^export ' \"$work/emulator-\(index).out\")\"; mark $?\n"
      } else {
        script += step.line + "\nmark $?\n"
      }
    }
    if group != nil { script += ")\n" }
    return script
  }

  /// What each step printed, and its exit status, from the script's output.
  static func results(_ output: String, count: Int) -> [(output: [String], status: Int32)] {
    var results = [(output: [String], status: Int32)]()
    var rest = Substring(output)
    while results.count < count, let mark = rest.firstIndex(of: "\u{1E}") {
      let printed = rest[..<mark]
      let afterMark = rest[rest.index(after: mark)...]
      let statusText = afterMark.prefix { $0 != "\n" }
      rest = afterMark.dropFirst(statusText.count + 1)
      var lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      if lines.last == "" { lines.removeLast() }
      results.append((lines.filter { !$0.isEmpty }, Int32(statusText) ?? -1))
    }
    return results
  }

  /// `line` without what differs from run to run: ports, times, signatures, request ids.
  static func normalized(_ line: String) -> String {
    let rules: [(String, String)] = [
      (#"127\.0\.0\.1:[0-9]+"#, "127.0.0.1:PORT"),
      (#"[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?Z?"#, "TIME"),
      (#"[0-9]{8}T[0-9]{6}Z"#, "TIME"),
      (#"%2F[0-9]{8}%2F"#, "%2FDAY%2F"),
      (#"[0-9]{17}"#, "N"),
      (#"e=[0-9]+&token=[^ ]+"#, "e=E&token=T"),
      (#"x-oss-signature=[0-9a-f]+"#, "x-oss-signature=S"),
      (#"request id [^)]+"#, "request id ID"),
    ]
    var text = line
    for (pattern, replacement) in rules {
      text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
    }
    return text
  }

  static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
